/**
 * The part of an analytics report that rollups answer: what a window needs from storage (raw
 * results where they are all still kept, rollup rows before that), and the values of a report row
 * made of raw results and rollup rows together. The rules clients see are documented at the top of
 * analytics.ts.
 *
 * The rollups are kept by the check-results port (store/result-ports.ts): one row per check,
 * location and UTC hour, and per check, location and UTC day, of the FINAL results' counts, sums and
 * response-time histogram, each added to in the transaction that stores the result, and kept longer
 * than raw results. Pruning moves a horizon per kind of data forward (`CheckResults.horizons`);
 * `coverageOf` splits a window by those horizons into a raw part, an hourly part and a daily part,
 * each row counted in exactly one of them.
 */
import type { CheckResults, RolledUpResults } from '../store/ports.js';
import { DAY_MS, HOUR_MS } from '../store/port-rules.js';
import type { ResultFacts } from '../store/formats/result-facts.js';
import { addToHistogram, bucketOf, histogramPercentile, mergeHistogram, type Histogram } from '../store/formats/rollup-histogram.js';
import { aggregate, assertNever, type Aggregation } from './stats.js';
import type { TimeWindow } from './windows.js';

/**
 * How far back each kind of data is complete: everything created (raw) or starting (rollup rows) at
 * or after the horizon is still stored. Absent: never pruned, so complete as far back as it goes.
 */
export type Horizons = Pick<Awaited<ReturnType<CheckResults['horizons']>>, 'raw' | 'hourly'>;

/** The parts of a window answered by daily rows, hourly rows and raw results (each `[from, to)`). */
export interface Coverage {
  daily?: TimeWindow;
  hourly?: TimeWindow;
  raw: TimeWindow;
}

const ceilTo = (instant: number, span: number) => Math.ceil(instant / span) * span;
const floorTo = (instant: number, span: number) => Math.floor(instant / span) * span;

/**
 * Splits a window by the horizons. A window starting at or after the raw horizon is raw results
 * only: they are all still there. Otherwise the raw part starts at the first hour boundary at or
 * after the raw horizon (the hour the horizon cuts is answered by its hourly row, which holds the
 * whole hour), and hourly rows answer back to the first day boundary at or after the hourly
 * horizon, daily rows before that. A rollup row counts when its start lies in its part, so a
 * window starting inside an hour (or day) of the rollup part leaves that hour (day) out.
 */
export function coverageOf(window: TimeWindow, horizons: Horizons): Coverage {
  if (horizons.raw === undefined || window.from >= horizons.raw) return { raw: window };
  const rawFrom = ceilTo(horizons.raw, HOUR_MS);
  // Never past the raw part, so no row is in two parts even when both retentions are close.
  const hourlyFrom = horizons.hourly === undefined ? window.from : Math.min(ceilTo(horizons.hourly, DAY_MS), floorTo(rawFrom, DAY_MS));
  const coverage: Coverage = { raw: { from: Math.min(Math.max(window.from, rawFrom), window.to), to: window.to } };
  if (window.from < hourlyFrom) coverage.daily = { from: window.from, to: Math.min(hourlyFrom, window.to) };
  const hourly = { from: Math.max(window.from, hourlyFrom), to: Math.min(rawFrom, window.to) };
  if (hourly.from < hourly.to) coverage.hourly = hourly;
  return coverage;
}

/** A check's stored data for one analytics window: raw facts for the recent part, rollup rows for the older one. */
export interface AnalyticsInputs {
  facts: ResultFacts[];
  rollups: RolledUpResults[];
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
  const rollups: RolledUpResults[] = [];
  for (const granularity of ['daily', 'hourly'] as const) {
    const part = coverage[granularity];
    if (part) rollups.push(...(await results.rollups(accountId, checkId, granularity, storedMoment(part.from), storedMoment(part.to))));
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

export function totalsOf(rows: readonly RolledUpResults[]): RollupTotals {
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
