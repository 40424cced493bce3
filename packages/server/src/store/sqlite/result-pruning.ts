/**
 * The SQL of raw results' retention on SQLite: results created before a cutoff, deleted a batch per
 * statement so that no delete holds the database's write lock for long (the rollups' own batches are
 * rollups.ts's). PostgreSQL drops whole days instead (postgres/check-results.ts).
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';

export class ResultPruningTable {
  readonly #pruneResults: Statement;

  /** `batch`: the most results one statement deletes. */
  constructor(db: SqliteDatabase, batch: number) {
    // Results are kept by (series, created_ms, id) and have no rowid (migrations/results.ts): each check's
    // oldest rows start its range of the key, so the batch is found check by check (CROSS JOIN keeps
    // the series outer), never by a scan of every row.
    this.#pruneResults = db.prepare(`DELETE FROM check_results WHERE (series, created_ms, id) IN (
      SELECT r.series, r.created_ms, r.id FROM result_series s CROSS JOIN check_results r WHERE r.series = s.key AND r.created_ms < ? LIMIT ${batch})`);
  }

  /** Deletes one batch of results created before `cutoffMs`; returns how many. */
  pruneResultsBatch(cutoffMs: number): number {
    return this.#pruneResults.run(cutoffMs).changes;
  }
}
