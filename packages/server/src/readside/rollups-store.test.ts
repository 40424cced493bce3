import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SqliteDatabase } from '../store/index.js';
import { compactResultRow, type StoredResult } from './results-store.js';
import { HISTOGRAM_RELATIVE_ERROR } from '../store/formats/rollup-histogram.js';
import { coverageOf, DAY_MS, HOUR_MS, type RollupRow } from './rollups-store.js';
import { totalsOf, responseTimeWithRollups } from './analytics-rollups.js';
import { aggregate } from './stats.js';
import { sqlitePorts } from '../store/sqlite/index.js';
import { migrateSqlite, stepNumberOf } from '../store/sqlite/migrations/index.js';
import { useMemoryStores } from '../store/sqlite/test-store.js';

const openStore = useMemoryStores();

const T0 = Date.parse('2026-11-24T00:00:00.000Z');

/** A deterministic spread of results: response times from 0.4 ms to a few seconds, some failing, degraded, retried or without a response time. */
function generatedResults(checkId: string, count: number): StoredResult[] {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return Array.from({ length: count }, (_, index) => {
    const failing = random() < 0.1;
    const at = T0 + Math.floor(random() * 3 * DAY_MS);
    return {
      id: randomUUID(),
      checkId,
      created_at: new Date(at).toISOString(),
      runLocation: index % 3 === 0 ? 'us-east-1' : 'eu-west-1',
      hasFailures: failing,
      isDegraded: !failing && random() < 0.05,
      attempts: failing ? 2 : random() < 0.1 ? 1 : 0,
      responseTime: index % 50 === 0 ? null : Math.round((0.4 + random() ** 3 * 4000) * 100) / 100,
      resultType: index % 7 === 0 ? 'ATTEMPT' : 'FINAL',
    };
  });
}

interface RawRollup {
  results: number;
  failures: number;
  degraded: number;
  attempts: number;
  times: number[];
}

/** What the rollups of `results` should hold, worked out from the raw results one by one. */
function expectedRollups(results: readonly StoredResult[], spanMs: number): Map<string, RawRollup> {
  const expected = new Map<string, RawRollup>();
  for (const result of results.filter((r) => r.resultType !== 'ATTEMPT')) {
    const start = Math.floor(Date.parse(result.created_at) / spanMs) * spanMs;
    const key = `${start} ${result.runLocation}`;
    const entry = expected.get(key) ?? { results: 0, failures: 0, degraded: 0, attempts: 0, times: [] };
    entry.results += 1;
    if (result.hasFailures) entry.failures += 1;
    if (result['isDegraded'] === true) entry.degraded += 1;
    entry.attempts += result.attempts ?? 0;
    if (typeof result.responseTime === 'number') entry.times.push(result.responseTime);
    expected.set(key, entry);
  }
  return expected;
}

/** Rows of a rollup table, keyed like `expectedRollups`, read without the coverage rules. */
function storedRollups(db: SqliteDatabase, table: string): Map<string, { row: Record<string, number | string | null>; rollup: RollupRow }> {
  const rows = db.prepare(`SELECT * FROM ${table}`).all() as Array<Record<string, number | string | null>>;
  return new Map(
    rows.map((row) => [
      `${row['start_ms']} ${row['location']}`,
      {
        row,
        rollup: {
          startMs: row['start_ms'] as number,
          spanMs: 0,
          location: row['location'] as string,
          results: row['results'] as number,
          failures: row['failures'] as number,
          degraded: row['degraded'] as number,
          attempts: row['attempts'] as number,
          rtCount: row['rt_count'] as number,
          rtSum: row['rt_sum'] as number,
          rtSqSum: row['rt_sq_sum'] as number,
          rtMin: row['rt_min'] as number | null,
          rtMax: row['rt_max'] as number | null,
          histogram: new Map(Object.entries(JSON.parse(row['rt_hist'] as string) as Record<string, number>).map(([k, v]) => [Number(k), v])),
        },
      },
    ]),
  );
}

function expectRollupsToMatch(db: SqliteDatabase, results: readonly StoredResult[]): void {
  for (const [table, spanMs] of [['result_rollups_hourly', HOUR_MS], ['result_rollups_daily', DAY_MS]] as const) {
    const expected = expectedRollups(results, spanMs);
    const stored = storedRollups(db, table);
    expect([...stored.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [key, want] of expected) {
      const { row, rollup } = stored.get(key)!;
      expect({ results: row['results'], failures: row['failures'], degraded: row['degraded'], attempts: row['attempts'], rtCount: row['rt_count'] }, key).toEqual({
        results: want.results,
        failures: want.failures,
        degraded: want.degraded,
        attempts: want.attempts,
        rtCount: want.times.length,
      });
      if (want.times.length === 0) continue;
      const totals = totalsOf([rollup]);
      expect(responseTimeWithRollups([], totals, 'avg')).toBeCloseTo(aggregate(want.times, 'avg')!, 9);
      expect(responseTimeWithRollups([], totals, 'min')).toBe(aggregate(want.times, 'min'));
      expect(responseTimeWithRollups([], totals, 'max')).toBe(aggregate(want.times, 'max'));
      for (const p of ['p50', 'p90', 'p95', 'p99'] as const) {
        const exact = aggregate(want.times, p)!;
        const estimate = responseTimeWithRollups([], totals, p)!;
        // Values below 1 ms add an absolute error of up to 0.5 ms to the relative bound.
        const bound = exact * HISTOGRAM_RELATIVE_ERROR + (want.times.some((time) => time < 1) ? 0.5 : 0);
        expect(Math.abs(estimate - exact), `${key} ${p}: ${estimate} against ${exact}`).toBeLessThanOrEqual(bound + 1e-9);
      }
    }
  }
}

describe('rollups kept as results are recorded', () => {
  it('hold, per hour and per day and location, what the FINAL results say: counts and sums exactly, percentiles within the histogram bound', async () => {
    const store = openStore();
    const generated = generatedResults('check-1', 600);
    await sqlitePorts(store).transaction(async (tx) => {
      for (const result of generated) await tx.checkResults.appendKept('acct', result);
    });
    expectRollupsToMatch(store.db, generated);
  });

  it('count a result recorded twice once', async () => {
    const store = openStore();
    const results = sqlitePorts(store).checkResults;
    const [result] = generatedResults('check-1', 2).filter((r) => r.resultType !== 'ATTEMPT');
    expect(await results.appendKept('acct', result!)).toBe(true);
    expect(await results.appendKept('acct', result!)).toBe(false);
    const { results: count } = store.db.prepare('SELECT results FROM result_rollups_daily').get() as { results: number };
    expect(count).toBe(1);
  });

  it('are back-filled by the migration from the raw results of a database that had none', () => {
    const store = openStore({ through: stepNumberOf({ scope: 'readside', version: 5 }) });
    const generated = generatedResults('check-1', 400);
    // The read side as it was before rollups: migrations 1..5, results written in compact rows only.
    const insert = compactResultRow(store.db);
    store.transaction(() => generated.forEach((result) => insert('acct', result)));
    expect(store.db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'result_rollups_hourly'").pluck().get()).toBe(0);

    migrateSqlite(store.db); // the steps after, as the next start runs them
    expectRollupsToMatch(store.db, generated);
  });
});

describe('coverageOf', () => {
  const window = (fromDay: number, toDay: number) => ({ from: T0 + fromDay * DAY_MS, to: T0 + toDay * DAY_MS });
  it.each([
    { name: 'never pruned: raw results only', horizons: {}, want: { raw: window(-90, 0) } },
    { name: 'a window after the raw horizon: raw results only', horizons: { raw: T0 - 30 * DAY_MS }, window: window(-10, 0), want: { raw: window(-10, 0) } },
    {
      name: 'raw from the first hour after the raw horizon, hourly rows before it, daily rows before the hourly horizon',
      horizons: { raw: T0 - 30 * DAY_MS + 90_000, hourly: T0 - 60 * DAY_MS + 90_000 },
      want: {
        raw: { from: T0 - 30 * DAY_MS + HOUR_MS, to: T0 },
        hourly: { from: T0 - 59 * DAY_MS, to: T0 - 30 * DAY_MS + HOUR_MS },
        daily: { from: T0 - 90 * DAY_MS, to: T0 - 59 * DAY_MS },
      },
    },
    {
      name: 'an old window: rollups only',
      horizons: { raw: T0 - 30 * DAY_MS, hourly: T0 - 60 * DAY_MS },
      window: window(-100, -70),
      want: { raw: { from: T0 - 70 * DAY_MS, to: T0 - 70 * DAY_MS }, daily: window(-100, -70) },
    },
    {
      name: 'hourly horizon past the raw one (a rollup retention shorter than the raw one): no row in two parts',
      horizons: { raw: T0 - 30 * DAY_MS, hourly: T0 - 7 * DAY_MS },
      want: { raw: window(-30, 0), daily: window(-90, -30) },
    },
  ])('$name', ({ horizons, window: asked, want }) => {
    expect(coverageOf(asked ?? window(-90, 0), horizons)).toEqual(want);
  });
});
