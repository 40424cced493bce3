/**
 * Check statuses' SQL: one row per check (`check_statuses`) with its state in a column of its own
 * (indexed per account: the checks list's state filter reads it, check-filters.ts); lists join the
 * checks, so a deleted check's row is never listed.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';

export type CheckState = 'passing' | 'failing' | 'degraded';

/** A status's state: failing with failures or errors, else degraded when degraded, else passing (step 30 backfills by the same rule). */
export function checkStateOf(status: { hasFailures: boolean; hasErrors: boolean; isDegraded: boolean }): CheckState {
  if (status.hasFailures || status.hasErrors) return 'failing';
  return status.isDegraded ? 'degraded' : 'passing';
}

export class StatusTable {
  readonly #get: Statement;
  readonly #put: Statement;
  readonly #list: Statement;
  readonly #one: Statement;

  constructor(db: SqliteDatabase) {
    this.#get = db.prepare('SELECT doc FROM check_statuses WHERE account_id = ? AND check_id = ?');
    this.#put = db.prepare('INSERT OR REPLACE INTO check_statuses (account_id, check_id, doc, state) VALUES (?, ?, ?, ?)');
    this.#list = db.prepare(
      'SELECT s.doc FROM check_statuses s JOIN checks c ON c.account_id = s.account_id AND c.id = s.check_id WHERE s.account_id = ? ORDER BY c.seq',
    );
    this.#one = db.prepare(
      'SELECT s.doc FROM check_statuses s JOIN checks c ON c.account_id = s.account_id AND c.id = s.check_id WHERE s.account_id = ? AND s.check_id = ?',
    );
  }

  /** The stored status (JSON), whether or not its check still exists. */
  stored(accountId: string, checkId: string): string | undefined {
    return (this.#get.get(accountId, checkId) as { doc: string } | undefined)?.doc;
  }

  put(accountId: string, checkId: string, doc: string, state: CheckState): void {
    this.#put.run(accountId, checkId, doc, state);
  }

  /** The statuses (JSON) of the account's existing checks, in the checks' order. */
  list(accountId: string): string[] {
    return (this.#list.all(accountId) as Array<{ doc: string }>).map((row) => row.doc);
  }

  /** The status (JSON) of an existing check. */
  one(accountId: string, checkId: string): string | undefined {
    return (this.#one.get(accountId, checkId) as { doc: string } | undefined)?.doc;
  }
}
