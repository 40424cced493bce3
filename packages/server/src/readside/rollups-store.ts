/**
 * Hourly and daily rollups of FINAL check results, kept longer than the raw results so analytics
 * can still answer for ranges the raw retention has pruned (analytics-rollups.ts reads them).
 *
 * One row per (check series, location, hour) and per (check series, location, day), both UTC:
 * count of FINAL results, failures, degraded ones, the sum of their `attempts`, and their response
 * times as count, sum, sum of squares, min, max and a histogram (store/formats/rollup-histogram.ts). A result
 * updates both rows in the transaction that stores it (ResultsStore.recordResult), with one UPSERT
 * each, so the rollups always say exactly what the raw results said before they were pruned.
 *
 * Coverage: pruning records how far back each kind of row has been deleted (`rollup_horizons`), and
 * `coverageOf` splits a window by those horizons into a raw part, an hourly part and a daily part,
 * each row counted in exactly one of them (analytics-rollups.ts reads each part through the ports). The statements are the engine's
 * (store/sqlite/rollups.ts); this store says which rows answer for a window and what they mean.
 */
import type { SqliteDatabase } from '../store/index.js';
import { rollupRowOf, type RollupRow } from '../store/formats/rollup-row.js';
import { ResultSeriesTable } from '../store/sqlite/check-results.js';
import { DAY_MS, HOUR_MS, RollupTable, spanOf, type RollupFact, type RollupGranularity } from '../store/sqlite/rollups.js';
import type { TimeWindow } from './windows.js';

export { DAY_MS, HOUR_MS, type RollupFact, type RollupGranularity };

/** One rollup row as analytics reads it. */
export type { RollupRow };

/**
 * How far back each kind of data is complete: everything created (raw) or starting (rollup rows) at
 * or after the horizon is still stored. Absent: never pruned, so complete as far back as it goes.
 */
export interface Horizons {
  raw?: number | undefined;
  hourly?: number | undefined;
}

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

export class RollupsStore {
  readonly #series: ResultSeriesTable;
  readonly #table: RollupTable;

  constructor(db: SqliteDatabase) {
    this.#series = new ResultSeriesTable(db);
    this.#table = new RollupTable(db);
  }

  /**
   * Adds a FINAL result to its hourly and daily rows; call in the transaction that stored the
   * result, after its series exists.
   */
  record(accountId: string, checkId: string, fact: RollupFact): void {
    const series = this.#series.find(accountId, checkId);
    if (series === undefined) throw new Error(`this is a bug in vigil: no result series for check ${checkId} while rolling up its result`);
    this.#table.add(series, fact);
  }

  /**
   * Every stored row of one granularity starting in `window`, whatever the coverage: a reader that
   * needs whole days or hours (a status page's uptime bars) picks the granularity itself.
   */
  rowsOf(series: number | undefined, granularity: RollupGranularity, window: TimeWindow): RollupRow[] {
    if (series === undefined) return [];
    const spanMs = spanOf(granularity);
    return this.#table.rows(series, granularity, window.from, window.to).map((row) => rollupRowOf(row, spanMs));
  }

  horizons(): Horizons {
    return { raw: this.#table.horizon('raw'), hourly: this.#table.horizon('hourly') };
  }

  /** Deletes rows starting before `cutoffMs`, a batch per statement; returns how many went. */
  prune(granularity: RollupGranularity, cutoffMs: number): number {
    return this.#table.prune(granularity, cutoffMs);
  }
}

