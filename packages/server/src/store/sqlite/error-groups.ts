/**
 * Error groups' SQL (`error_groups`): one row per (check, error hash) holding the group's state as
 * JSON, which the read side's results store folds each result's errors into
 * (readside/error-groups.ts), in the transaction that stores the result.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import { PAGE_LIMIT } from './collection.js';

export class ErrorGroupTable {
  readonly #byHash: Statement;
  readonly #byId: Statement;
  readonly #insert: Statement;
  readonly #update: Statement;
  readonly #ofCheck: Statement;
  readonly #countOfCheck: Statement;

  constructor(db: SqliteDatabase) {
    this.#byHash = db.prepare('SELECT state FROM error_groups WHERE account_id = ? AND check_id = ? AND error_hash = ?');
    this.#byId = db.prepare('SELECT state FROM error_groups WHERE account_id = ? AND id = ?');
    this.#insert = db.prepare('INSERT INTO error_groups (account_id, id, check_id, error_hash, state) VALUES (?, ?, ?, ?, ?)');
    this.#update = db.prepare('UPDATE error_groups SET state = ? WHERE account_id = ? AND id = ?');
    this.#ofCheck = db.prepare(`SELECT state FROM error_groups WHERE account_id = ? AND check_id = ? ORDER BY seq ${PAGE_LIMIT}`);
    this.#countOfCheck = db.prepare('SELECT COUNT(*) AS total FROM error_groups WHERE account_id = ? AND check_id = ?');
  }

  /** The state (JSON) of the check's group of one error hash. */
  byHash(accountId: string, checkId: string, errorHash: string): string | undefined {
    return (this.#byHash.get(accountId, checkId, errorHash) as { state: string } | undefined)?.state;
  }

  /** The state (JSON) of the account's group `id`. */
  byId(accountId: string, id: string): string | undefined {
    return (this.#byId.get(accountId, id) as { state: string } | undefined)?.state;
  }

  insert(accountId: string, id: string, checkId: string, errorHash: string, state: string): void {
    this.#insert.run(accountId, id, checkId, errorHash, state);
  }

  replace(accountId: string, id: string, state: string): void {
    this.#update.run(state, accountId, id);
  }

  countOfCheck(accountId: string, checkId: string): number {
    return (this.#countOfCheck.get(accountId, checkId) as { total: number }).total;
  }

  /** A page of the check's groups (JSON), in order of first recording. */
  ofCheck(accountId: string, checkId: string, limit: number, offset: number): string[] {
    return (this.#ofCheck.all(accountId, checkId, limit, offset) as Array<{ state: string }>).map((row) => row.state);
  }
}
