/**
 * The scheduler's SQL: the stored checks and groups it makes its schedule from, the database's
 * change counter it polls for writes by other connections, and the retention of raw results.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';

/** A stored check (`id` a UUID) or group (`id` a number) as the scheduler reads it. */
export interface ScheduledRow<Id extends string | number> {
  readonly account_id: string;
  readonly id: Id;
  /** The stored JSON. */
  readonly doc: string;
}

export class ScheduleTable {
  readonly #db: SqliteDatabase;
  readonly #pruneResults: Statement;
  readonly #groupRows: Statement;
  readonly #checkRows: Statement;
  readonly #checkDoc: Statement;

  /** `pruneBatch`: the most results one prune statement deletes, so none holds the database for long. */
  constructor(db: SqliteDatabase, pruneBatch: number) {
    this.#db = db;
    this.#pruneResults = db.prepare(`DELETE FROM check_results WHERE rowid IN (SELECT rowid FROM check_results WHERE created_ms < ? LIMIT ${pruneBatch})`);
    this.#groupRows = db.prepare('SELECT account_id, id, doc FROM check_groups');
    this.#checkRows = db.prepare('SELECT account_id, id, doc FROM checks');
    this.#checkDoc = db.prepare('SELECT doc FROM checks WHERE account_id = ? AND id = ?').pluck();
  }

  /** Deletes one batch of results created before `cutoffMs`; returns how many. */
  pruneResultsBatch(cutoffMs: number): number {
    return this.#pruneResults.run(cutoffMs).changes;
  }

  groupRows(): Array<ScheduledRow<number>> {
    return this.#groupRows.all() as Array<ScheduledRow<number>>;
  }

  checkRows(): Array<ScheduledRow<string>> {
    return this.#checkRows.all() as Array<ScheduledRow<string>>;
  }

  /** The stored JSON of one check, or undefined. */
  checkDoc(accountId: string, id: string): string | undefined {
    return this.#checkDoc.get(accountId, id) as string | undefined;
  }

  /** SQLite's counter that changes when another connection commits a write to the database. */
  dataVersion(): number {
    return this.#db.pragma('data_version', { simple: true }) as number;
  }
}
