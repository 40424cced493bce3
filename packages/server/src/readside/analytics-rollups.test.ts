import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Scheduler } from '../scheduler/scheduler.js';
import { Store } from '../store/index.js';
import { coverageOf, readAnalyticsInputs } from './analytics-rollups.js';
import { computeAnalytics, type AnalyticsQuery, type SeriesRow } from './analytics.js';
import { HISTOGRAM_RELATIVE_ERROR } from '../store/formats/rollup-histogram.js';
import { DAY_MS, HOUR_MS } from '../store/port-rules.js';
import { openRepositories } from '../repositories.js';
import type { CheckResultDocument } from '../store/result-ports.js';
import { sqlitePorts } from '../store/sqlite/index.js';

const stores: Store[] = [];
afterEach(() => stores.splice(0).forEach((store) => store.close()));

const T0 = Date.parse('2026-09-01T00:00:00.000Z');
/** 40 days after T0: with a 30-day retention, T0's results are pruned and its rollups kept. */
const NOW = T0 + 40 * DAY_MS;
const OLD = { from: T0, to: T0 + 2 * DAY_MS };

function result(at: number, index: number): CheckResultDocument {
  const failing = index % 9 === 4;
  return {
    id: randomUUID(),
    checkId: 'check-1',
    created_at: new Date(at).toISOString(),
    runLocation: index % 2 === 0 ? 'eu-west-1' : 'us-east-1',
    hasFailures: failing,
    attempts: failing ? 1 : 0,
    responseTime: 20 + ((index * 37) % 400),
    resultType: 'FINAL',
    apiCheckResult: { response: { status: failing ? 503 : 200, timingPhases: { wait: 2, dns: 1, tcp: 5, firstByte: 10, download: 2 } } },
  };
}

/** A store with 300 results spread over OLD (every 9.6 minutes) and a few recent ones, stored through the check-results port. */
async function storeWithHistory(): Promise<Store> {
  const store = new Store(':memory:');
  stores.push(store);
  await sqlitePorts(store).transaction(async (tx) => {
    for (let index = 0; index < 300; index++) await tx.checkResults.appendKept('acct', result(T0 + index * 576_000, index));
    for (let index = 0; index < 10; index++) await tx.checkResults.appendKept('acct', result(NOW - DAY_MS + index * 60_000, index));
  });
  return store;
}

async function prune(store: Store): Promise<void> {
  await new Scheduler({ repositories: openRepositories(store), queue: { submit: () => undefined, pending: 0, idle: async () => undefined } as never, now: () => NOW, retentionDays: 30 }).prune(NOW);
}

async function report(store: Store, query: Partial<AnalyticsQuery> & { metrics: string[] }) {
  const full: AnalyticsQuery = { kind: 'api-checks', window: OLD, page: 1, limit: 10, ...query };
  const { facts, rollups } = await readAnalyticsInputs(sqlitePorts(store).checkResults, 'acct', 'check-1', full.window);
  return computeAnalytics(facts, full, rollups);
}

const EXACT = ['availability', 'retries', 'responseTime_avg', 'responseTime_min', 'responseTime_max', 'responseTime_sum', 'responseTime_stddev', 'responseTime'];
const ESTIMATED = ['responseTime_p50', 'responseTime_p90', 'responseTime_p95', 'responseTime_p99', 'responseTime_median'];

function expectRowsClose(actual: readonly SeriesRow[], expected: readonly SeriesRow[]): void {
  expect(actual.map((row) => row['timestamp'])).toEqual(expected.map((row) => row['timestamp']));
  actual.forEach((row, index) => {
    const want = expected[index]!;
    for (const name of EXACT) expect(row[name], name).toBeCloseTo(want[name] as number, 6);
    for (const name of ESTIMATED) {
      const exact = want[name] as number;
      expect(Math.abs((row[name] as number) - exact), `${name}: ${String(row[name])} against ${exact}`).toBeLessThanOrEqual(exact * HISTOGRAM_RELATIVE_ERROR + 1e-9);
    }
  });
}

describe('analytics past the raw retention', () => {
  const metrics = [...EXACT, ...ESTIMATED];

  it('answers a window whose raw results were pruned from the rollups: the same numbers, percentiles within the histogram bound', async () => {
    const store = await storeWithHistory();
    const before = (await report(store, { metrics }));
    await prune(store);
    expect(await sqlitePorts(store).checkResults.facts('acct', 'check-1', OLD.from, OLD.to)).toEqual([]);
    const after = (await report(store, { metrics }));
    expect(after.series).toHaveLength(1);
    expectRowsClose(after.series[0]!.data, before.series[0]!.data);
    expect(after.series[0]!.data[0]!['availability']).toBeLessThan(100);
  });

  it('keeps the series per location', async () => {
    const store = await storeWithHistory();
    const before = (await report(store, { metrics, groupBy: 'runLocation' }));
    await prune(store);
    const after = (await report(store, { metrics, groupBy: 'runLocation' }));
    expect(after.series.map((entry) => entry.runLocation)).toEqual(['eu-west-1', 'us-east-1']);
    after.series.forEach((entry, index) => expectRowsClose(entry.data, before.series[index]!.data));
  });

  it('gives one row per hour with an aggregation interval shorter than an hour, stamped with the bucket the hour starts in', async () => {
    const store = await storeWithHistory();
    await prune(store);
    const { series } = (await report(store, { metrics: ['availability'], aggregationInterval: 5 }));
    const stamps = series[0]!.data.map((row) => Date.parse(row['timestamp'] as string));
    expect(stamps).toHaveLength(48);
    expect(stamps.every((stamp, index) => stamp === T0 + index * HOUR_MS)).toBe(true);
  });

  it('has no timing phases, status code series or one-sided status filter for the rollup part', async () => {
    const store = await storeWithHistory();
    await prune(store);
    expect((await report(store, { metrics: ['wait_avg', 'dns'] })).series[0]!.data[0]).toMatchObject({ wait_avg: null, dns: null });
    expect((await report(store, { metrics: ['availability'], groupBy: 'statusCode' })).series).toEqual([]);
    expect((await report(store, { metrics: ['availability'], filterByStatus: ['success'] })).series[0]!.data[0]).toMatchObject({ availability: null });
  });

  it('merges rollups with the raw results of a window reaching past the raw horizon', async () => {
    const store = await storeWithHistory();
    const window = { from: T0, to: NOW };
    const before = (await report(store, { metrics, window }));
    await prune(store);
    const after = (await report(store, { metrics, window }));
    expectRowsClose(after.series[0]!.data, before.series[0]!.data);
    // The recent results still give their phases.
    expect((await report(store, { metrics: ['wait_avg'], window })).series[0]!.data[0]).toMatchObject({ wait_avg: 2 });
  });

  it('answers from raw results alone a window starting after the raw horizon', async () => {
    const store = await storeWithHistory();
    await prune(store);
    const { rollups } = await readAnalyticsInputs(sqlitePorts(store).checkResults, 'acct', 'check-1', { from: NOW - 2 * DAY_MS, to: NOW });
    expect(rollups).toEqual([]);
  });
});

describe('retention of rollups', () => {
  it('deletes hourly rows 30 days after the raw retention and daily rows after the rollup retention, and keeps answering from what is left', async () => {
    const store = await storeWithHistory();
    const queue = { submit: () => undefined, pending: 0, idle: async () => undefined } as never;
    const count = (table: string) => store.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
    const hourlyBefore = count('result_rollups_hourly');
    const dailyBefore = count('result_rollups_daily');
    const before = (await report(store, { metrics: ['availability', 'retries'] }));

    // 46 days on, raw retention 12 days: OLD's hours (older than 12 + 30 days) are gone, its days
    // (younger than the rollup retention of 50 days) are kept and answer for it.
    const later = T0 + 46 * DAY_MS;
    await new Scheduler({ repositories: openRepositories(store), queue, now: () => later, retentionDays: 12, rollupRetentionDays: 50 }).prune(later);
    expect(count('result_rollups_hourly')).toBe(hourlyBefore - 48 * 2);
    expect(count('result_rollups_daily')).toBe(dailyBefore);
    expect(await sqlitePorts(store).checkResults.horizons()).toMatchObject({ raw: later - 12 * DAY_MS, hourly: later - 42 * DAY_MS });
    expect((await report(store, { metrics: ['availability', 'retries'] })).series[0]!.data[0]).toEqual(before.series[0]!.data[0]);

    // Past the rollup retention nothing is left of OLD; the recent days stay.
    const muchLater = T0 + 60 * DAY_MS;
    await new Scheduler({ repositories: openRepositories(store), queue, now: () => muchLater, retentionDays: 12, rollupRetentionDays: 50 }).prune(muchLater);
    expect(count('result_rollups_daily')).toBe(2);
    expect((await report(store, { metrics: ['availability'] })).series[0]!.data[0]).toMatchObject({ availability: null });
  });
});

describe('coverageOf', () => {
  /** A UTC midnight, so the windows start and end on day boundaries. */
  const MIDNIGHT = Date.parse('2026-11-24T00:00:00.000Z');
  const window = (fromDay: number, toDay: number) => ({ from: MIDNIGHT + fromDay * DAY_MS, to: MIDNIGHT + toDay * DAY_MS });
  it.each([
    { name: 'never pruned: raw results only', horizons: {}, want: { raw: window(-90, 0) } },
    { name: 'a window after the raw horizon: raw results only', horizons: { raw: MIDNIGHT - 30 * DAY_MS }, window: window(-10, 0), want: { raw: window(-10, 0) } },
    {
      name: 'raw from the first hour after the raw horizon, hourly rows before it, daily rows before the hourly horizon',
      horizons: { raw: MIDNIGHT - 30 * DAY_MS + 90_000, hourly: MIDNIGHT - 60 * DAY_MS + 90_000 },
      want: {
        raw: { from: MIDNIGHT - 30 * DAY_MS + HOUR_MS, to: MIDNIGHT },
        hourly: { from: MIDNIGHT - 59 * DAY_MS, to: MIDNIGHT - 30 * DAY_MS + HOUR_MS },
        daily: { from: MIDNIGHT - 90 * DAY_MS, to: MIDNIGHT - 59 * DAY_MS },
      },
    },
    {
      name: 'an old window: rollups only',
      horizons: { raw: MIDNIGHT - 30 * DAY_MS, hourly: MIDNIGHT - 60 * DAY_MS },
      window: window(-100, -70),
      want: { raw: { from: MIDNIGHT - 70 * DAY_MS, to: MIDNIGHT - 70 * DAY_MS }, daily: window(-100, -70) },
    },
    {
      name: 'hourly horizon past the raw one (a rollup retention shorter than the raw one): no row in two parts',
      horizons: { raw: MIDNIGHT - 30 * DAY_MS, hourly: MIDNIGHT - 7 * DAY_MS },
      want: { raw: window(-30, 0), daily: window(-90, -30) },
    },
  ])('$name', ({ horizons, window: asked, want }) => {
    expect(coverageOf(asked ?? window(-90, 0), horizons)).toEqual(want);
  });
});
