import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { computeAnalytics } from '../readside/analytics.js';
import { HISTOGRAM_RELATIVE_ERROR } from '../store/formats/rollup-histogram.js';
import { DAY_MS, HOUR_MS } from '../store/port-rules.js';
import { Store } from '../store/index.js';
import type { CheckResultDocument } from '../store/result-ports.js';
import { sqlitePorts } from '../store/sqlite/index.js';
import { chartData, chartSummary } from './check-analytics.js';

const stores: Store[] = [];
afterEach(() => stores.splice(0).forEach((store) => store.close()));

/** Mid-hour, so the window's alignment to the hour is visible. */
const NOW = Date.parse('2026-10-31T12:34:56.000Z');
const STEP_MS = 20 * 60_000;

function result(at: number, index: number): CheckResultDocument {
  const failing = index % 13 === 5;
  return {
    id: randomUUID(),
    checkId: 'check-1',
    created_at: new Date(at).toISOString(),
    runLocation: index % 2 === 0 ? 'eu-west-1' : 'us-east-1',
    hasFailures: failing,
    attempts: 0,
    responseTime: 30 + ((index * 41) % 500),
    resultType: 'FINAL',
    apiCheckResult: { response: { status: failing ? 503 : 200, timingPhases: { wait: 1, dns: 2 + (index % 3), tcp: 4, firstByte: 9, download: 1 } } },
  };
}

/** A month and a bit of results, one every 20 minutes, up to NOW, stored through the check-results port. */
async function storedMonth(): Promise<{ results: ReturnType<typeof sqlitePorts>['checkResults']; all: CheckResultDocument[] }> {
  const store = new Store(':memory:');
  stores.push(store);
  const ports = sqlitePorts(store);
  const all: CheckResultDocument[] = [];
  for (let at = NOW - 32 * DAY_MS, index = 0; at < NOW; at += STEP_MS, index++) all.push(result(at, index));
  await ports.transaction(async (tx) => {
    for (const each of all) await tx.checkResults.appendKept('acct', each);
  });
  return { results: ports.checkResults, all };
}

describe('the check page chart of a range longer than a day', () => {
  it('reads hourly rollups before the last day: availability exact, percentiles within the histogram bound, phases from the last day', async () => {
    const { results } = await storedMonth();
    const data = await chartData(results, 'acct', 'check-1', 'api-checks', 'last30Days', NOW);
    const from = Math.ceil((NOW - 30 * DAY_MS) / HOUR_MS) * HOUR_MS;
    expect(data.from).toBe(new Date(from).toISOString());
    const rawFrom = Math.floor((NOW - DAY_MS) / HOUR_MS) * HOUR_MS;
    expect(data.phasesFrom).toBe(new Date(rawFrom).toISOString());

    const exact = computeAnalytics(
      await results.facts('acct', 'check-1', from, NOW),
      { kind: 'api-checks', metrics: ['availability', 'responseTime_p95', 'dns_avg'], window: { from, to: NOW }, aggregationInterval: 360, page: 1, limit: 1 },
    ).series[0]!.data;
    expect(data.timestamps).toEqual(exact.map((row) => Date.parse(String(row['timestamp'])) / 1000));
    exact.forEach((row, index) => {
      expect(data.series['availability']![index]).toBeCloseTo(row['availability'] as number, 9);
      const p95 = row['responseTime_p95'] as number;
      expect(Math.abs(data.series['responseTime_p95']![index]! - p95)).toBeLessThanOrEqual(p95 * HISTOGRAM_RELATIVE_ERROR + 1e-9);
      // A bucket ending at or before the raw part has no phases; one reaching into it has the raw results' phases.
      const bucketEnd = data.timestamps[index]! * 1000 + 360 * 60_000;
      expect(data.series['dns_avg']![index] === null).toBe(bucketEnd <= rawFrom);
    });
    expect(data.series['dns_avg']!.at(-1)).toBeCloseTo(exact.at(-1)!['dns_avg'] as number, 9);
  });

  it('gives the page the same summary as the chart data, without buckets', async () => {
    const { results } = await storedMonth();
    const summary = await chartSummary(results, 'acct', 'check-1', 'api-checks', 'last7Days', NOW);
    const data = await chartData(results, 'acct', 'check-1', 'api-checks', 'last7Days', NOW);
    expect(summary).toEqual({ range: data.range, from: data.from, to: data.to, labels: data.labels, summary: data.summary, phasesFrom: data.phasesFrom });
    expect(summary).not.toHaveProperty('timestamps');
  });

  it('counts daily rows where the hourly rows are pruned', async () => {
    const { results, all } = await storedMonth();
    const from = Math.ceil((NOW - 30 * DAY_MS) / HOUR_MS) * HOUR_MS;
    const hourlyCutoff = Date.parse('2026-10-15T00:00:00.000Z');
    // Raw results kept a day, hourly rows back to the cutoff, daily rows all.
    await results.prune(NOW, { rawMs: DAY_MS, hourlyMs: NOW - hourlyCutoff, dailyMs: 400 * DAY_MS });
    const data = await chartData(results, 'acct', 'check-1', 'api-checks', 'last30Days', NOW);
    // Whole days from the first day boundary in the window, hourly rows after the cutoff, raw results after that.
    const counted = all.filter((each) => Date.parse(each.created_at) >= Math.ceil(from / DAY_MS) * DAY_MS);
    const passing = counted.filter((each) => !each.hasFailures).length;
    expect(data.summary['availability']).toBeCloseTo((100 * passing) / counted.length, 9);
  });
});

describe('the check page chart of the last 24 hours', () => {
  it('is the raw results exactly, phases included', async () => {
    const { results } = await storedMonth();
    const data = await chartData(results, 'acct', 'check-1', 'api-checks', 'last24Hours', NOW);
    expect(data.from).toBe(new Date(NOW - DAY_MS).toISOString());
    expect(data.phasesFrom).toBeUndefined();
    const exact = computeAnalytics(await results.facts('acct', 'check-1', NOW - DAY_MS, NOW), {
      kind: 'api-checks',
      metrics: ['availability', 'responseTime_p95', 'dns_avg'],
      window: { from: NOW - DAY_MS, to: NOW },
      page: 1,
      limit: 1,
    }).series[0]!.data[0]!;
    expect(data.summary['responseTime_p95']).toBe(exact['responseTime_p95']);
    expect(data.summary['availability']).toBe(exact['availability']);
    expect(data.summary['dns_avg']).toBe(exact['dns_avg']);
  });
});
