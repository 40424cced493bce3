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
    this.#pruneResults = db.prepare(`DELETE FROM check_results WHERE rowid IN (SELECT rowid FROM check_results WHERE created_ms < ? LIMIT ${batch})`);
  }

  /** Deletes one batch of results created before `cutoffMs`; returns how many. */
  pruneResultsBatch(cutoffMs: number): number {
    return this.#pruneResults.run(cutoffMs).changes;
  }
}
