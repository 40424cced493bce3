/**
 * A stored rollup row read into what analytics and the results port answer with. Both engines keep
 * the same columns (`rt_hist` the histogram's JSON text), so one decoder serves them and the read side.
 */
import { parseHistogram, type Histogram } from './rollup-histogram.js';

/** A rollup row as the engines store it. */
export interface StoredRollupColumns {
  start_ms: number;
  location: string;
  results: number;
  failures: number;
  degraded: number;
  attempts: number;
  rt_count: number;
  rt_sum: number;
  rt_sq_sum: number;
  rt_min: number | null;
  rt_max: number | null;
  rt_hist: string;
}

/** One rollup row, decoded: an hour or a day (`spanMs`) of one check's FINAL results at one location. */
export interface RollupRow {
  startMs: number;
  spanMs: number;
  location: string;
  results: number;
  failures: number;
  degraded: number;
  attempts: number;
  /** Response times: how many results had one, and their sum, sum of squares, min and max. */
  rtCount: number;
  rtSum: number;
  rtSqSum: number;
  rtMin: number | null;
  rtMax: number | null;
  histogram: Histogram;
}

export function rollupRowOf(row: StoredRollupColumns, spanMs: number): RollupRow {
  return {
    startMs: row.start_ms,
    spanMs,
    location: row.location,
    results: row.results,
    failures: row.failures,
    degraded: row.degraded,
    attempts: row.attempts,
    rtCount: row.rt_count,
    rtSum: row.rt_sum,
    rtSqSum: row.rt_sq_sum,
    rtMin: row.rt_min,
    rtMax: row.rt_max,
    histogram: parseHistogram(row.rt_hist),
  };
}
