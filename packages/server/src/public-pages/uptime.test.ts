import { describe, expect, it } from 'vitest';
import type { ResultFacts } from '../readside/result-facts.js';
import type { Horizons, RollupGranularity, RollupRow } from '../readside/rollups-store.js';
import { DAY_MS, HOUR_MS, percent, shareOf, uptimeDays, uptimeOfServices, type Interval, type UptimeSource } from './uptime.js';

const NOW = Date.UTC(2026, 2, 10, 15, 0);
const TODAY = Date.UTC(2026, 2, 10);

/** A store of FINAL results `[createdMs, failed]`, answering as the rollups and results would. */
function sourceOf(results: Array<[number, boolean]>, horizons: Horizons = {}): UptimeSource & { rawReads: number } {
  const rows = (span: number, window: Interval): RollupRow[] => {
    const byStart = new Map<number, { results: number; failures: number }>();
    for (const [at, failed] of results) {
      const start = Math.floor(at / span) * span;
      if (start < window.from || start >= window.to) continue;
      const row = byStart.get(start) ?? { results: 0, failures: 0 };
      row.results += 1;
      row.failures += failed ? 1 : 0;
      byStart.set(start, row);
    }
    return [...byStart].map(([startMs, row]) => ({ startMs, spanMs: span, location: 'eu-west-1', ...row, degraded: 0, attempts: row.results, rtCount: 0, rtSum: 0, rtSqSum: 0, rtMin: null, rtMax: null, histogram: new Map() }));
  };
  const source = {
    rawReads: 0,
    horizons: () => horizons,
    dailyTotals: (_account: string, checkIds: readonly string[], window: Interval) =>
      new Map(checkIds.map((checkId) => [checkId, rows(DAY_MS, window).map(({ startMs, results: count, failures }) => ({ startMs, results: count, failures }))])),
    rollupRowsOf: (_account: string, _check: string, granularity: RollupGranularity, window: Interval) => rows(granularity === 'daily' ? DAY_MS : HOUR_MS, window),
    factsBetween: (_account: string, checkId: string, from: number, to: number): ResultFacts[] => {
      source.rawReads += 1;
      return results
        .filter(([at]) => at >= from && at < to)
        .map(([at, failed], index) => ({ id: String(index), checkId, createdAt: at, resultType: 'FINAL', runLocation: 'eu-west-1', hasFailures: failed, attempts: 1, responseTime: 1, statusCode: 200, timingPhases: {} }));
    },
  };
  return source;
}

const day = (days: number, hours = 0, minutes = 0) => TODAY - days * DAY_MS + hours * HOUR_MS + minutes * 60_000;

function bars(source: UptimeSource, maintenance: Interval[] = [], checks = ['c1']) {
  return uptimeDays(source, { accountId: 'a', nowMs: NOW, days: 5, checks: checks.map((checkId) => ({ checkId, maintenance })) });
}

describe('uptime bars', () => {
  it('gives one bar per UTC day ending today, each the share of passing FINAL results, no data where none', () => {
    const days = bars(sourceOf([[day(1, 1), false], [day(1, 2), true], [day(0, 1), false]]));
    expect(days.map((each) => [each.day, each.results, each.passed])).toEqual([
      ['2026-03-06', 0, 0], ['2026-03-07', 0, 0], ['2026-03-08', 0, 0], ['2026-03-09', 2, 1], ['2026-03-10', 1, 1],
    ]);
  });

  it('adds up every linked check of the service', () => {
    const days = bars(sourceOf([[day(1, 1), false], [day(1, 2), true]]), [], ['c1', 'c2']);
    expect(days[3]).toMatchObject({ results: 4, passed: 2 });
  });

  it('leaves out a whole hour a window covers, without reading raw results', () => {
    const source = sourceOf([[day(1, 1), false], [day(1, 2, 30), true], [day(1, 3), false]]);
    const days = bars(source, [{ from: day(1, 2), to: day(1, 3) }]);
    expect(days[3]).toMatchObject({ results: 2, passed: 2, maintenance: true });
    expect(source.rawReads).toBe(0);
  });

  it('in an hour a window touches in part, counts the raw results outside it', () => {
    const days = bars(sourceOf([[day(1, 2, 10), true], [day(1, 2, 40), true], [day(1, 2, 50), false]]), [{ from: day(1, 2, 30), to: day(1, 2, 45) }]);
    expect(days[3]).toMatchObject({ results: 2, passed: 1, maintenance: true });
  });

  it('leaves out that part hour once its raw results are pruned, and the whole day once its hourly rows are', () => {
    const results: Array<[number, boolean]> = [[day(1, 2, 10), true], [day(1, 5), false], [day(3, 2, 10), true], [day(3, 5), false]];
    const maintenance = [{ from: day(1, 2, 30), to: day(1, 2, 45) }, { from: day(3, 2, 30), to: day(3, 2, 45) }];
    const days = bars(sourceOf(results, { raw: day(0), hourly: day(2) }), maintenance);
    expect(days[3]).toMatchObject({ results: 1, passed: 1, maintenance: true });
    expect(days[1]).toMatchObject({ results: 0, passed: 0, maintenance: true });
  });

  it('joins overlapping windows, so two halves cover an hour whole', () => {
    const source = sourceOf([[day(1, 2, 30), true]]);
    const days = bars(source, [{ from: day(1, 2), to: day(1, 2, 30) }, { from: day(1, 2, 20), to: day(1, 3) }]);
    expect(days[3]).toMatchObject({ results: 0, maintenance: true });
    expect(source.rawReads).toBe(0);
  });
});

describe("a page's uptime bars", () => {
  it('reads the daily totals of every service once, and gives each service its own checks', () => {
    const source = sourceOf([[day(1, 1), false], [day(1, 2), true]]);
    const asked: string[][] = [];
    const dailyTotals = source.dailyTotals;
    source.dailyTotals = (account, checkIds, window) => {
      asked.push([...checkIds]);
      return dailyTotals(account, checkIds, window);
    };
    const services = new Map([
      ['s1', [{ checkId: 'c1', maintenance: [] }]],
      ['s2', [{ checkId: 'c1', maintenance: [] }, { checkId: 'c2', maintenance: [] }]],
    ]);
    const bars = uptimeOfServices(source, { accountId: 'a', nowMs: NOW, days: 5, services });
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
