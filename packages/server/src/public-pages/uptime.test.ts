import { describe, expect, it } from 'vitest';
import type { ResultFacts, RolledUpResults, RollupGranularity } from '../store/ports.js';
import { DAY_MS, HOUR_MS, percent, shareOf, uptimeDays, uptimeOfServices, type Interval, type UptimeSource } from './uptime.js';

const NOW = Date.UTC(2026, 2, 10, 15, 0);
const TODAY = Date.UTC(2026, 2, 10);

type Horizons = { raw?: number; hourly?: number; daily?: number };

/**
 * A store of FINAL results `[createdMs, failed, location?]`, answering as the results port would: a
 * rollup row per span and location.
 */
function sourceOf(results: Array<[number, boolean, string?]>, horizons: Horizons = {}): UptimeSource & { rawReads: number } {
  const rows = (span: number, window: Interval): RolledUpResults[] => {
    const byStart = new Map<string, { startMs: number; location: string; results: number; failures: number }>();
    for (const [at, failed, location = 'eu-west-1'] of results) {
      const start = Math.floor(at / span) * span;
      if (start < window.from || start >= window.to) continue;
      const row = byStart.get(`${start}/${location}`) ?? { startMs: start, location, results: 0, failures: 0 };
      row.results += 1;
      row.failures += failed ? 1 : 0;
      byStart.set(`${start}/${location}`, row);
    }
    return [...byStart.values()].map((row) => ({ ...row, spanMs: span, degraded: 0, attempts: row.results, rtCount: 0, rtSum: 0, rtSqSum: 0, rtMin: null, rtMax: null, histogram: new Map() }));
  };
  const source = {
    rawReads: 0,
    horizons: async () => horizons,
    dailyTotals: async (_account: string, checkIds: readonly string[], fromMs: number, toMs: number) => {
      const totals = new Map<number, { startMs: number; results: number; failures: number }>();
      for (const { startMs, results: count, failures } of rows(DAY_MS, { from: fromMs, to: toMs })) {
        const total = totals.get(startMs) ?? { startMs, results: 0, failures: 0 };
        total.results += count;
        total.failures += failures;
        totals.set(startMs, total);
      }
      return new Map(checkIds.map((checkId) => [checkId, [...totals.values()]]));
    },
    rollups: async (_account: string, _check: string, granularity: RollupGranularity, fromMs: number, toMs: number) => rows(granularity === 'daily' ? DAY_MS : HOUR_MS, { from: fromMs, to: toMs }),
    facts: async (_account: string, checkId: string, from: number, to: number): Promise<ResultFacts[]> => {
      source.rawReads += 1;
      return results
        .filter(([at]) => at >= from && at < to)
        .map(([at, failed, location = 'eu-west-1'], index) => ({ id: String(index), checkId, createdAt: at, resultType: 'FINAL', runLocation: location, hasFailures: failed, attempts: 1, responseTime: 1, statusCode: 200, timingPhases: {} }));
    },
  };
  return source;
}

const day = (days: number, hours = 0, minutes = 0) => TODAY - days * DAY_MS + hours * HOUR_MS + minutes * 60_000;

function bars(source: UptimeSource, maintenance: Interval[] = [], checks = ['c1']) {
  return uptimeDays(source, { accountId: 'a', nowMs: NOW, days: 5, checks: checks.map((checkId) => ({ checkId, maintenance })) });
}

describe('uptime bars', () => {
  it('gives one bar per UTC day ending today, each the share of passing FINAL results, no data where none', async () => {
    const days = await bars(sourceOf([[day(1, 1), false], [day(1, 2), true], [day(0, 1), false]]));
    expect(days.map((each) => [each.day, each.results, each.passed])).toEqual([
      ['2026-03-06', 0, 0], ['2026-03-07', 0, 0], ['2026-03-08', 0, 0], ['2026-03-09', 2, 1], ['2026-03-10', 1, 1],
    ]);
  });

  it('adds up every linked check of the service', async () => {
    const days = await bars(sourceOf([[day(1, 1), false], [day(1, 2), true]]), [], ['c1', 'c2']);
    expect(days[3]).toMatchObject({ results: 4, passed: 2 });
  });

  it('leaves out a whole hour a window covers, without reading raw results', async () => {
    const source = sourceOf([[day(1, 1), false], [day(1, 2, 30), true], [day(1, 3), false]]);
    const days = await bars(source, [{ from: day(1, 2), to: day(1, 3) }]);
    expect(days[3]).toMatchObject({ results: 2, passed: 2, maintenance: true });
    expect(source.rawReads).toBe(0);
  });

  it('in an hour a window touches in part, counts the raw results outside it', async () => {
    const days = await bars(sourceOf([[day(1, 2, 10), true], [day(1, 2, 40), true], [day(1, 2, 50), false]]), [{ from: day(1, 2, 30), to: day(1, 2, 45) }]);
    expect(days[3]).toMatchObject({ results: 2, passed: 1, maintenance: true });
  });

  it('leaves out that part hour once its raw results are pruned, and the whole day once its hourly rows are', async () => {
    const results: Array<[number, boolean]> = [[day(1, 2, 10), true], [day(1, 5), false], [day(3, 2, 10), true], [day(3, 5), false]];
    const maintenance = [{ from: day(1, 2, 30), to: day(1, 2, 45) }, { from: day(3, 2, 30), to: day(3, 2, 45) }];
    const days = await bars(sourceOf(results, { raw: day(0), hourly: day(2) }), maintenance);
    expect(days[3]).toMatchObject({ results: 1, passed: 1, maintenance: true });
    expect(days[1]).toMatchObject({ results: 0, passed: 0, maintenance: true });
  });

  it("reads an hour touched in part once however many locations ran in it, counting each result once", async () => {
    const source = sourceOf([[day(1, 2, 10), true, 'eu-west-1'], [day(1, 2, 15), false, 'us-east-1'], [day(1, 2, 40), true, 'us-east-1'], [day(1, 5), true, 'us-east-1']]);
    const days = await bars(source, [{ from: day(1, 2, 30), to: day(1, 2, 45) }]);
    expect(days[3]).toMatchObject({ results: 3, passed: 1, maintenance: true });
    expect(source.rawReads).toBe(1);
  });

  it('joins overlapping windows, so two halves cover an hour whole', async () => {
    const source = sourceOf([[day(1, 2, 30), true]]);
    const days = await bars(source, [{ from: day(1, 2), to: day(1, 2, 30) }, { from: day(1, 2, 20), to: day(1, 3) }]);
    expect(days[3]).toMatchObject({ results: 0, maintenance: true });
    expect(source.rawReads).toBe(0);
  });
});

describe("a page's uptime bars", () => {
  it('reads the daily totals of every service once, and gives each service its own checks', async () => {
    const source = sourceOf([[day(1, 1), false], [day(1, 2), true]]);
    const asked: string[][] = [];
    const dailyTotals = source.dailyTotals;
    source.dailyTotals = (account, checkIds, fromMs, toMs) => {
      asked.push([...checkIds]);
      return dailyTotals(account, checkIds, fromMs, toMs);
    };
    const services = new Map([
      ['s1', [{ checkId: 'c1', maintenance: [] }]],
      ['s2', [{ checkId: 'c1', maintenance: [] }, { checkId: 'c2', maintenance: [] }]],
    ]);
    const bars = await uptimeOfServices(source, { accountId: 'a', nowMs: NOW, days: 5, services });
    expect(asked).toEqual([['c1', 'c2']]);
    expect(bars.get('s1')![3]).toMatchObject({ results: 2, passed: 1 });
    expect(bars.get('s2')![3]).toMatchObject({ results: 4, passed: 2 });
  });
});

describe('percent', () => {
  it('never rounds a failure up to 100 %', () => {
    expect(percent(0.99996)).toBe('99.99 %');
    expect(percent(1)).toBe('100.00 %');
    expect(shareOf([{ results: 0, passed: 0 }])).toBeUndefined();
  });
});
