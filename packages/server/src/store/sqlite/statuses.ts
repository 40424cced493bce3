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

/**
 * Told of every status written through a connection: which row to read again, not what it says;
 * and, when a group commit failed and was rolled back, that rows read since may have reverted.
 */
export interface StatusWriteListener {
  written(accountId: string, checkId: string): void;
  undone(): void;
}

/**
 * Per connection, who follows its status writes: `GET /metrics` keeps each check's lines between
 * scrapes and reads again only the rows written since, instead of all of them per scrape. Keyed by
 * the connection, as every StatusTable on it writes the same table. A write that is rolled back at
 * once is told as a write: the listener reads the row again and finds it as it was. A group commit
 * (Store.writeBatched) stays open until the next turn of the event loop, so its rows can be read
 * before a failed COMMIT reverts them: that is told by `statusWritesUndone`. Writes by other
 * connections are not told: watch the database's `data_version` for those.
 */
const writeListeners = new WeakMap<SqliteDatabase, Set<StatusWriteListener>>();

function listenersOf(db: SqliteDatabase): Set<StatusWriteListener> {
  let listeners = writeListeners.get(db);
  if (!listeners) {
    listeners = new Set();
    writeListeners.set(db, listeners);
  }
  return listeners;
}

/** Tells `listener` of each status written through `db`; returns the way to stop. */
export function onStatusWrite(db: SqliteDatabase, listener: StatusWriteListener): () => void {
  const listeners = listenersOf(db);
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells the listeners of `db` that writes they were told of may have been rolled back. */
export function statusWritesUndone(db: SqliteDatabase): void {
  for (const listener of writeListeners.get(db) ?? []) listener.undone();
}

export class StatusTable {
  readonly #listeners: Set<StatusWriteListener>;
  readonly #get: Statement;
  readonly #put: Statement;
  readonly #list: Statement;
  readonly #one: Statement;

  constructor(db: SqliteDatabase) {
    this.#listeners = listenersOf(db);
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
    for (const listener of this.#listeners) listener.written(accountId, checkId);
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
