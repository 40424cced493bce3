/**
 * Hourly and daily rollups of FINAL check results, kept longer than the raw results so analytics
 * can still answer for ranges the raw retention has pruned (analytics-rollups.ts reads them).
 *
 * One row per (check series, location, hour) and per (check series, location, day), both UTC:
 * count of FINAL results, failures, degraded ones, the sum of their `attempts`, and their response
 * times as count, sum, sum of squares, min, max and a histogram (rollup-histogram.ts). A result
 * updates both rows in the transaction that stores it (ResultsStore.recordResult), with one UPSERT
 * each, so the rollups always say exactly what the raw results said before they were pruned.
 *
 * Coverage: pruning records how far back each kind of row has been deleted (`rollup_horizons`), and
 * `rollupsFor` splits a window by those horizons into a raw part, an hourly part and a daily part,
 * each row counted in exactly one of them (see `coverageOf`).
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../store/index.js';
import { decodeResult } from './result-codec.js';
import { bucketOf, parseHistogram, type Histogram } from './rollup-histogram.js';
import type { TimeWindow } from './windows.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

export type RollupGranularity = 'hourly' | 'daily';
const TABLES: Readonly<Record<RollupGranularity, { table: string; spanMs: number }>> = {
  hourly: { table: 'result_rollups_hourly', spanMs: HOUR_MS },
  daily: { table: 'result_rollups_daily', spanMs: DAY_MS },
};

/** One rollup row as analytics reads it. */
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

/** What one FINAL result adds to its rows. */
export interface RollupFact {
  createdMs: number;
  location: string;
  failed: boolean;
  degraded: boolean;
  attempts: number;
  responseTime: number | null;
}

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

interface StoredRow {
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

const ROW_COLUMNS = 'start_ms, location, results, failures, degraded, attempts, rt_count, rt_sum, rt_sq_sum, rt_min, rt_max, rt_hist';

/** Rows deleted per statement when pruning, as for raw results. */
const PRUNE_BATCH = 500;

export class RollupsStore {
  readonly #seriesOf: Statement;
  readonly #upsert: Record<RollupGranularity, Statement>;
  readonly #rows: Record<RollupGranularity, Statement>;
  readonly #prune: Record<RollupGranularity, Statement>;
  readonly #horizon: Statement;
  readonly #advanceHorizon: Statement;

  constructor(db: SqliteDatabase) {
    this.#seriesOf = db.prepare('SELECT key FROM result_series WHERE account_id = ? AND check_id = ?').pluck();
    const upsert = (table: string) =>
      db.prepare(`
        INSERT INTO ${table} (series, start_ms, location, results, failures, degraded, attempts, rt_count, rt_sum, rt_sq_sum, rt_min, rt_max, rt_hist)
        VALUES (@series, @start, @location, 1, @failed, @degraded, @attempts, @rtCount, @rtSum, @rtSqSum, @rt, @rt, @hist)
        ON CONFLICT (series, start_ms, location) DO UPDATE SET
          results = results + 1,
          failures = failures + excluded.failures,
          degraded = degraded + excluded.degraded,
          attempts = attempts + excluded.attempts,
          rt_count = rt_count + excluded.rt_count,
          rt_sum = rt_sum + excluded.rt_sum,
          rt_sq_sum = rt_sq_sum + excluded.rt_sq_sum,
          rt_min = min(coalesce(rt_min, excluded.rt_min), coalesce(excluded.rt_min, rt_min)),
          rt_max = max(coalesce(rt_max, excluded.rt_max), coalesce(excluded.rt_max, rt_max)),
          rt_hist = CASE WHEN @bucket IS NULL THEN rt_hist ELSE json_set(rt_hist, @bucket, coalesce(json_extract(rt_hist, @bucket), 0) + 1) END`);
    const rows = (table: string) => db.prepare(`SELECT ${ROW_COLUMNS} FROM ${table} WHERE series = ? AND start_ms >= ? AND start_ms < ? ORDER BY start_ms, location`);
    const prune = (table: string) => db.prepare(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE start_ms < ? LIMIT ${PRUNE_BATCH})`);
    this.#upsert = { hourly: upsert(TABLES.hourly.table), daily: upsert(TABLES.daily.table) };
    this.#rows = { hourly: rows(TABLES.hourly.table), daily: rows(TABLES.daily.table) };
    this.#prune = { hourly: prune(TABLES.hourly.table), daily: prune(TABLES.daily.table) };
    this.#horizon = db.prepare('SELECT before_ms FROM rollup_horizons WHERE name = ?').pluck();
    // Only ever forward: after a longer retention is configured, what was deleted stays deleted.
    this.#advanceHorizon = db.prepare(
      'INSERT INTO rollup_horizons (name, before_ms) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET before_ms = max(before_ms, excluded.before_ms)',
    );
  }

  /**
   * Adds a FINAL result to its hourly and daily rows; call in the transaction that stored the
   * result, after its series exists.
   */
  record(accountId: string, checkId: string, fact: RollupFact): void {
    const series = this.#seriesOf.get(accountId, checkId) as number | undefined;
    if (series === undefined) throw new Error(`this is a bug in vigil: no result series for check ${checkId} while rolling up its result`);
    this.recordInSeries(series, fact);
  }

  /** `record` for a known series (the back-fill reads it with the raw row). */
  recordInSeries(series: number, fact: RollupFact): void {
    const rt = fact.responseTime;
    const bucket = rt === null ? null : bucketOf(rt);
    const parameters = {
      series,
      location: fact.location,
      failed: fact.failed ? 1 : 0,
      degraded: fact.degraded ? 1 : 0,
      attempts: fact.attempts,
      rtCount: rt === null ? 0 : 1,
      rtSum: rt ?? 0,
      rtSqSum: rt === null ? 0 : rt * rt,
      rt,
      hist: bucket === null ? '{}' : `{"${bucket}":1}`,
      bucket: bucket === null ? null : `$."${bucket}"`,
    };
    for (const granularity of ['hourly', 'daily'] as const) {
      this.#upsert[granularity].run({ ...parameters, start: floorTo(fact.createdMs, TABLES[granularity].spanMs) });
    }
  }

  /**
   * The rollup rows that answer for `window` and the part of it left to raw results, split as
   * `coverageOf` says; `series` undefined means the check has no results at all.
   */
  rollupsFor(series: number | undefined, window: TimeWindow): { raw: TimeWindow; rows: RollupRow[] } {
    const coverage = coverageOf(window, this.horizons());
    const rows: RollupRow[] = [];
    if (series !== undefined) {
      for (const granularity of ['daily', 'hourly'] as const) {
        const part = coverage[granularity];
        if (!part) continue;
        for (const row of this.#rows[granularity].all(series, part.from, part.to) as StoredRow[]) rows.push(rowOf(row, TABLES[granularity].spanMs));
      }
    }
    return { raw: coverage.raw, rows };
  }

  /**
   * Every stored row of one granularity starting in `window`, whatever the coverage: a reader that
   * needs whole days or hours (a status page's uptime bars) picks the granularity itself.
   */
  rowsOf(series: number | undefined, granularity: RollupGranularity, window: TimeWindow): RollupRow[] {
    if (series === undefined) return [];
    return (this.#rows[granularity].all(series, window.from, window.to) as StoredRow[]).map((row) => rowOf(row, TABLES[granularity].spanMs));
  }

  horizons(): Horizons {
    return { raw: this.#horizon.get('raw') as number | undefined, hourly: this.#horizon.get('hourly') as number | undefined };
  }

  /** Records that raw results created before `cutoffMs` have been deleted. */
  rawPrunedBefore(cutoffMs: number): void {
    this.#advanceHorizon.run('raw', cutoffMs);
  }

  /** Deletes rows starting before `cutoffMs`, a batch per statement; returns how many went. */
  prune(granularity: RollupGranularity, cutoffMs: number): number {
    let removed = 0;
    for (let batch = this.#prune[granularity].run(cutoffMs).changes; batch > 0; batch = this.#prune[granularity].run(cutoffMs).changes) removed += batch;
    this.#advanceHorizon.run(granularity, cutoffMs);
    return removed;
  }
}

function rowOf(row: StoredRow, spanMs: number): RollupRow {
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

/**
 * Step 15 (store/sqlite/migrations/readside.ts): the rollups of the FINAL results a database already holds, read in batches of
 * rows (a statement cannot write while another on the connection is still reading). Whether a
 * result was degraded is only in its document, so each one is decoded once here.
 */
export function backfillRollups(db: SqliteDatabase): void {
  const rollups = new RollupsStore(db);
  const batch = db.prepare(
    'SELECT rowid, series, created_ms, has_failures, run_location, attempts, response_time, encoding, body FROM check_results WHERE final = 1 AND rowid > ? ORDER BY rowid LIMIT 1000',
  );
  type Row = { rowid: number; series: number; created_ms: number; has_failures: number; run_location: string; attempts: number; response_time: number | null; encoding: number; body: Buffer };
  for (let rows = batch.all(0) as Row[]; rows.length > 0; rows = batch.all(rows.at(-1)!.rowid) as Row[]) {
    for (const row of rows) {
      const document = decodeResult(row.body, row.encoding, { id: '', checkId: '', createdMs: row.created_ms, phases: null });
      rollups.recordInSeries(row.series, {
        createdMs: row.created_ms,
        location: row.run_location,
        failed: row.has_failures === 1,
        degraded: document['isDegraded'] === true,
        attempts: row.attempts,
        responseTime: row.response_time,
      });
    }
  }
}
