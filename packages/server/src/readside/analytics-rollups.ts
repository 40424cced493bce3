/**
 * The part of an analytics report that rollups answer: what a window needs from storage (raw
 * results where they are all still kept, rollup rows before that), and the values of a report row
 * made of raw results and rollup rows together. The rules clients see are documented at the top of
 * analytics.ts.
 */
import type { CheckResults } from '../store/ports.js';
import type { ResultFacts } from './result-facts.js';
import { addToHistogram, bucketOf, histogramPercentile, mergeHistogram, type Histogram } from '../store/formats/rollup-histogram.js';
import { coverageOf, type Horizons, type RollupRow } from './rollups-store.js';
import { aggregate, assertNever, type Aggregation } from './stats.js';
import type { TimeWindow } from './windows.js';

/** A check's stored data for one analytics window: raw facts for the recent part, rollup rows for the older one. */
export interface AnalyticsInputs {
  facts: ResultFacts[];
  rollups: RollupRow[];
}

/** What analytics reads of stored results through the ports: raw facts, rollup rows, and how far back each is complete. */
export type AnalyticsReads = Pick<CheckResults, 'facts' | 'rollups' | 'horizons'>;

/** The store keeps moments from 1970 on, as safe integers; a window reaching past them has nothing stored there. */
const storedMoment = (instant: number) => Math.min(Math.max(instant, 0), Number.MAX_SAFE_INTEGER);

/**
 * What a window needs from storage, read through the ports: the window split by the horizons
 * (`coverageOf`), daily and hourly rows for the older parts and raw facts for the rest. `horizons`: read once by a caller
 * reporting on many checks; read here when absent.
 */
export async function readAnalyticsInputs(results: AnalyticsReads, accountId: string, checkId: string, window: TimeWindow, horizons?: Horizons): Promise<AnalyticsInputs> {
  const coverage = coverageOf(window, horizons ?? (await results.horizons()));
  const rollups: RollupRow[] = [];
  for (const granularity of ['daily', 'hourly'] as const) {
    const part = coverage[granularity];
    if (part) rollups.push(...((await results.rollups(accountId, checkId, granularity, storedMoment(part.from), storedMoment(part.to))) as RollupRow[]));
  }
  const raw = { from: storedMoment(coverage.raw.from), to: storedMoment(coverage.raw.to) };
  const facts = raw.from < raw.to ? await results.facts(accountId, checkId, raw.from, raw.to) : [];
  return { facts, rollups };
}

/** The rollup rows of one report row, added together. */
export interface RollupTotals {
  results: number;
  passing: number;
  attempts: number;
  rtCount: number;
  rtSum: number;
  rtSqSum: number;
  rtMin: number | null;
  rtMax: number | null;
  histogram: Histogram;
}

export function totalsOf(rows: readonly RollupRow[]): RollupTotals {
  const totals: RollupTotals = { results: 0, passing: 0, attempts: 0, rtCount: 0, rtSum: 0, rtSqSum: 0, rtMin: null, rtMax: null, histogram: new Map() };
  for (const row of rows) {
    totals.results += row.results;
    totals.passing += row.results - row.failures;
    totals.attempts += row.attempts;
    totals.rtCount += row.rtCount;
    totals.rtSum += row.rtSum;
    totals.rtSqSum += row.rtSqSum;
    if (row.rtMin !== null) totals.rtMin = totals.rtMin === null ? row.rtMin : Math.min(totals.rtMin, row.rtMin);
    if (row.rtMax !== null) totals.rtMax = totals.rtMax === null ? row.rtMax : Math.max(totals.rtMax, row.rtMax);
    mergeHistogram(totals.histogram, row.histogram);
  }
  return totals;
}

/**
 * One aggregation of the response times of raw results (`values`) and rollup rows together. Count,
 * sum, min and max are exact; avg and stddev are exact up to floating-point rounding (from sums and
 * sums of squares); median and percentiles come from the merged histogram, the raw values added to
 * it, within rollup-histogram.ts's bound.
 */
export function responseTimeWithRollups(values: readonly number[], totals: RollupTotals, aggregation: Aggregation): number | null {
  if (totals.rtCount === 0) return aggregate(values, aggregation);
  const count = totals.rtCount + values.length;
  let sum = totals.rtSum;
  let sqSum = totals.rtSqSum;
  let min = totals.rtMin ?? Number.POSITIVE_INFINITY;
  let max = totals.rtMax ?? Number.NEGATIVE_INFINITY;
  for (const value of values) {
    sum += value;
    sqSum += value * value;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  const percentile = (p: number) => {
    const histogram = new Map(totals.histogram);
    for (const value of values) addToHistogram(histogram, bucketOf(value));
    return histogramPercentile(histogram, p, { min, max });
  };
  switch (aggregation) {
    case 'avg':
      return sum / count;
    case 'sum':
      return sum;
    case 'min':
      return min;
    case 'max':
      return max;
    case 'stddev': {
      const mean = sum / count;
      // Rounding can take E[x²] − mean² a hair below zero for a constant series.
      return Math.sqrt(Math.max(0, sqSum / count - mean * mean));
    }
    case 'median':
    case 'p50':
      return percentile(50);
    case 'p90':
      return percentile(90);
    case 'p95':
      return percentile(95);
    case 'p99':
      return percentile(99);
    default:
      return assertNever(aggregation);
  }
}
