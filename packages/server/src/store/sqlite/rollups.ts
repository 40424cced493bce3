/**
 * The SQL of the results' hourly and daily rollups (step 15 of migrations/): one row per (check
 * series, location, hour) in `result_rollups_hourly` and per (series, location, day) in
 * `result_rollups_daily`, both UTC, and how far back pruning has deleted each kind of data
 * (`rollup_horizons`). A FINAL result adds itself to its two rows with one UPSERT each; its response
 * time goes into the row's histogram by the buckets of store/formats/rollup-histogram.ts. What the
 * rows mean, and which answer for a window, is the read side's (readside/analytics-rollups.ts).
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import { decodeResult } from '../formats/result-codec.js';
import { bucketOf } from '../formats/rollup-histogram.js';
import type { StoredRollupColumns } from '../formats/rollup-row.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

export type RollupGranularity = 'hourly' | 'daily';
const TABLES: Readonly<Record<RollupGranularity, { table: string; spanMs: number }>> = {
  hourly: { table: 'result_rollups_hourly', spanMs: HOUR_MS },
  daily: { table: 'result_rollups_daily', spanMs: DAY_MS },
};

/** How long a row of each granularity spans. */
export function spanOf(granularity: RollupGranularity): number {
  return TABLES[granularity].spanMs;
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

/** A rollup row as stored (`rt_hist`: the histogram's JSON). */
export type StoredRollupRow = StoredRollupColumns;

const ROW_COLUMNS = 'start_ms, location, results, failures, degraded, attempts, rt_count, rt_sum, rt_sq_sum, rt_min, rt_max, rt_hist';

/** Rows deleted per statement when pruning, as for raw results. */
const PRUNE_BATCH = 500;

const floorTo = (instant: number, span: number) => Math.floor(instant / span) * span;

export class RollupTable {
  readonly #upsert: Record<RollupGranularity, Statement>;
  readonly #rows: Record<RollupGranularity, Statement>;
  readonly #prune: Record<RollupGranularity, Statement>;
  readonly #horizon: Statement;
  readonly #advanceHorizon: Statement;

  constructor(db: SqliteDatabase) {
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

  /** Adds a FINAL result to its hourly and daily rows of `series`. */
  add(series: number, fact: RollupFact): void {
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

  /** The series' rows of one granularity starting in `[fromMs, toMs)`, by start then location. */
  rows(series: number, granularity: RollupGranularity, fromMs: number, toMs: number): StoredRollupRow[] {
    return this.#rows[granularity].all(series, fromMs, toMs) as StoredRollupRow[];
  }

  /** Where pruning has deleted `name` (raw, hourly or daily) up to; undefined when never pruned. */
  horizon(name: 'raw' | RollupGranularity): number | undefined {
    return this.#horizon.get(name) as number | undefined;
  }

  /** Records that `name`'s data before `cutoffMs` has been deleted (a horizon never moves back). */
  advanceHorizon(name: 'raw' | RollupGranularity, cutoffMs: number): void {
    this.#advanceHorizon.run(name, cutoffMs);
  }

  /** Deletes one batch of rows starting before `cutoffMs`; returns how many (the horizon is the caller's to advance). */
  pruneBatch(granularity: RollupGranularity, cutoffMs: number): number {
    return this.#prune[granularity].run(cutoffMs).changes;
  }

  /** Deletes rows starting before `cutoffMs`, a batch per statement, and advances the horizon; returns how many went. */
  prune(granularity: RollupGranularity, cutoffMs: number): number {
    let removed = 0;
    for (let batch = this.pruneBatch(granularity, cutoffMs); batch > 0; batch = this.pruneBatch(granularity, cutoffMs)) removed += batch;
    this.#advanceHorizon.run(granularity, cutoffMs);
    return removed;
  }
}

/**
 * Step 15 (migrations/readside.ts): the rollups of the FINAL results a database already holds, read
 * in batches of rows (a statement cannot write while another on the connection is still reading).
 * Whether a result was degraded is only in its document, so each one is decoded once here; rows of
 * that time are all ENCODING_V1 (step 17 comes later).
 */
export function backfillRollups(db: SqliteDatabase): void {
  const rollups = new RollupTable(db);
  const batch = db.prepare(
    'SELECT rowid, series, created_ms, has_failures, run_location, attempts, response_time, encoding, body FROM check_results WHERE final = 1 AND rowid > ? ORDER BY rowid LIMIT 1000',
  );
  type Row = { rowid: number; series: number; created_ms: number; has_failures: number; run_location: string; attempts: number; response_time: number | null; encoding: number; body: Buffer };
  for (let rows = batch.all(0) as Row[]; rows.length > 0; rows = batch.all(rows.at(-1)!.rowid) as Row[]) {
    for (const row of rows) {
      const document = decodeResult(row.body, row.encoding, { id: '', checkId: '', createdMs: row.created_ms, phases: null });
      rollups.add(row.series, {
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
