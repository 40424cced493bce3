/**
 * Analytics read through the storage ports (`readAnalyticsInputs`) on every engine: the same runs
 * appended to SQLite and to PostgreSQL, pruned alike, give the same report numbers, rollup part
 * included. Percentiles of the rollup part come from the same log-scale histogram on both (its buckets
 * are counted by the engine, but chosen by store/formats/rollup-histogram.ts in JavaScript), so they
 * are equal, not merely close; both are within the histogram's bound of the exact value, as the
 * raw part's are exactly it.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HISTOGRAM_RELATIVE_ERROR } from '../store/formats/rollup-histogram.js';
import { enginesUnderTest, twoReplicas } from '../store/contract/engines.js';
import type { CheckResultDocument } from '../store/ports.js';
import { readAnalyticsInputs } from './analytics-rollups.js';
import { computeAnalytics, type AnalyticsComputation, type AnalyticsQuery } from './analytics.js';
import { aggregate } from './stats.js';

const engines = enginesUnderTest();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 10, 20, 12, 30);
/** From midnight 3.5 days before NOW: a window starting there counts every daily row (a row counts when it starts in the window). */
const START = Date.UTC(2026, 10, 17);
/** Runs every 20 minutes from START until NOW, at two locations in turn. */
const RUNS = Array.from({ length: Math.floor((NOW - START) / (20 * 60_000)) }, (_, index) => START + index * 20 * 60_000);
const RETENTION = { rawMs: DAY, hourlyMs: 2 * DAY, dailyMs: 30 * DAY };

function run(at: number, index: number): CheckResultDocument[] {
  const failing = index % 7 === 3;
  // Whole milliseconds: sums and sums of squares are then exact in floating point whatever the order.
  const responseTime = 15 + ((index * 53) % 900);
  const final: CheckResultDocument = {
    id: randomUUID(), checkId: 'chk', name: 'Homepage', hasFailures: failing, hasErrors: false, isDegraded: index % 11 === 0,
    runLocation: index % 2 === 0 ? 'eu-west-1' : 'us-east-1', created_at: new Date(at).toISOString(), startedAt: new Date(at - responseTime).toISOString(),
    resultType: 'FINAL', attempts: failing ? 2 : 1, responseTime,
    apiCheckResult: { response: { status: failing ? 503 : 200, timingPhases: { wait: 1, dns: index % 5, tcp: 3, firstByte: responseTime - 10, download: 2 } }, requestError: null },
  };
  if (!failing) return [final];
  return [{ ...final, id: randomUUID(), resultType: 'ATTEMPT', created_at: new Date(at - 1).toISOString() }, final];
}

const METRICS = [
  'availability', 'retries', 'responseTime', 'responseTime_avg', 'responseTime_min', 'responseTime_max', 'responseTime_sum', 'responseTime_stddev',
  'responseTime_p50', 'responseTime_p90', 'responseTime_p95', 'responseTime_p99', 'responseTime_median', 'dns_avg', 'firstByte_p95',
];
const QUERIES: ReadonlyArray<{ name: string; query: Omit<AnalyticsQuery, 'kind' | 'page' | 'limit'> }> = [
  { name: '3.5 days', query: { metrics: METRICS, window: { from: START, to: NOW } } },
  { name: '3.5 days by location', query: { metrics: METRICS, window: { from: START, to: NOW }, groupBy: 'runLocation' } },
  { name: '3.5 days in 6-hour buckets', query: { metrics: METRICS, window: { from: START, to: NOW }, aggregationInterval: 360 } },
  { name: '3.5 days by status code', query: { metrics: METRICS, window: { from: START, to: NOW }, groupBy: 'statusCode' } },
  { name: 'the last 12 hours, failures only', query: { metrics: METRICS, window: { from: NOW - 12 * HOUR, to: NOW }, filterByStatus: ['failure'] } },
];

/** The reports of every query, per engine, in the order the engines ran. */
const reportsByEngine = new Map<string, AnalyticsComputation[]>();

describe.each(engines)('analytics through the ports on $name', (engine) => {
  it('answers from raw results and from rollups past the raw retention, with the same numbers on every engine', async () => {
    const [a, b] = await twoReplicas(engine);
    for (const [index, at] of RUNS.entries()) await a.checkResults.appendRun('acct', run(at, index));
    expect(await b.checkResults.prune(NOW, RETENTION)).toEqual({ raw: NOW - DAY, hourly: NOW - 2 * DAY, daily: NOW - 30 * DAY });

    const reports: AnalyticsComputation[] = [];
    for (const { query } of QUERIES) {
      const full: AnalyticsQuery = { kind: 'api-checks', page: 1, limit: 10, ...query };
      const { facts, rollups } = await readAnalyticsInputs(b.checkResults, 'acct', 'chk', full.window);
      reports.push(computeAnalytics(facts, full, rollups));
    }

    // The whole window: exact where rollups keep sums, within the histogram's bound for percentiles.
    const values = RUNS.map((_, index) => run(0, index).at(-1)!.responseTime as number);
    const row = reports[0]!.series[0]!.data[0]!;
    expect(row['availability']).toBeCloseTo((100 * RUNS.filter((_, index) => index % 7 !== 3).length) / RUNS.length, 9);
    expect(row['retries']).toBe(RUNS.reduce((sum, _, index) => sum + (index % 7 === 3 ? 2 : 1), 0));
    expect(row['responseTime_sum']).toBe(aggregate(values, 'sum'));
    expect(row['responseTime_min']).toBe(aggregate(values, 'min'));
    expect(row['responseTime_max']).toBe(aggregate(values, 'max'));
    expect(row['responseTime_avg']).toBeCloseTo(aggregate(values, 'avg')!, 9);
    expect(row['responseTime_stddev']).toBeCloseTo(aggregate(values, 'stddev')!, 6);
    for (const percentile of ['p50', 'p90', 'p95', 'p99'] as const) {
      const exact = aggregate(values, percentile)!;
      expect(Math.abs((row[`responseTime_${percentile}`] as number) - exact)).toBeLessThanOrEqual(exact * HISTOGRAM_RELATIVE_ERROR + 0.5);
    }
    // Phases only from the raw day: the DNS phase is index % 5 of the runs still kept raw.
    const rawDns = RUNS.flatMap((at, index) => (at >= NOW - DAY ? [index % 5] : []));
    expect(row['dns_avg']).toBeCloseTo(aggregate(rawDns, 'avg')!, 9);
    // The rollup part has no status codes, and no outcome per response time for a one-sided filter.
    expect(reports[3]!.series.map((series) => [series.statusCode, series.data.length])).toEqual([[200, 1], [503, 1]]);
    expect(reports[4]!.series[0]!.data[0]!['retries']).toBe(RUNS.filter((at, index) => at >= NOW - 12 * HOUR && index % 7 === 3).length * 2);

    reportsByEngine.set(engine.name, reports);
    const first = reportsByEngine.values().next().value!;
    for (const [index, { name }] of QUERIES.entries()) expect({ name, report: reports[index] }).toEqual({ name, report: first[index] });
  });

  it('reads an empty window and one before 1970 as nothing stored, and another account as none of its checks', async () => {
    const [a] = await twoReplicas(engine);
    await a.checkResults.appendRun('acct', run(NOW - HOUR, 1));
    expect(await readAnalyticsInputs(a.checkResults, 'acct', 'chk', { from: -DAY, to: 0 })).toEqual({ facts: [], rollups: [] });
    expect(await readAnalyticsInputs(a.checkResults, 'other', 'chk', { from: NOW - DAY, to: NOW })).toEqual({ facts: [], rollups: [] });
    expect((await readAnalyticsInputs(a.checkResults, 'acct', 'chk', { from: NOW - DAY, to: Number.MAX_SAFE_INTEGER + 2 })).facts.map((fact) => fact.createdAt)).toEqual([NOW - HOUR]);
  });
});
