/**
 * Error groups' SQL (`error_groups`): one row per (check, error hash) holding the group's state as
 * JSON, which each result's errors are folded into (store/error-group-rules.ts), in the transaction
 * that stores the result; and the ErrorGroups port on SQLite over it.
 */
import { randomUUID } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import { applyArchivePatch, recordError, type ArchivePatch, type ErrorGroupState } from '../error-group-rules.js';
import { checkErrorGroupPage, checkErrorOccurrences, text } from '../port-rules.js';
import type { ErrorGroups, ErrorOccurrence } from '../ports.js';
import { committed, type BatchedSqlite } from './batched.js';
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

/** Folds one error into its check's group (or starts the group), by the one rule every engine follows. */
export function foldError(table: ErrorGroupTable, accountId: string, occurrence: ErrorOccurrence): void {
  const fresh = recordError(undefined, occurrence, randomUUID);
  const stored = table.byHash(accountId, occurrence.checkId, fresh.errorHash);
  if (stored === undefined) {
    table.insert(accountId, fresh.id, fresh.checkId, fresh.errorHash, JSON.stringify(fresh));
    return;
  }
  const next = recordError(JSON.parse(stored) as ErrorGroupState, occurrence, randomUUID);
  table.replace(accountId, next.id, JSON.stringify(next));
}

export class SqliteErrorGroups implements ErrorGroups {
  readonly #store: BatchedSqlite;
  readonly #table: ErrorGroupTable;

  constructor(store: BatchedSqlite) {
    this.#store = store;
    this.#table = new ErrorGroupTable(store.db);
  }

  async fold(accountId: string, occurrences: readonly ErrorOccurrence[]): Promise<void> {
    checkErrorOccurrences(accountId, occurrences);
    if (occurrences.length === 0) return;
    await committed(this.#store, () => {
      for (const occurrence of occurrences) foldError(this.#table, accountId, occurrence);
    });
  }

  async ofCheck(accountId: string, checkId: string, paging: { readonly page: number; readonly limit: number }): Promise<{ items: ErrorGroupState[]; total: number }> {
    checkErrorGroupPage(accountId, checkId, paging);
    const total = this.#table.countOfCheck(accountId, checkId);
    const offset = (paging.page - 1) * paging.limit;
    const states = offset >= total ? [] : this.#table.ofCheck(accountId, checkId, paging.limit, offset);
    return { items: states.map((state) => JSON.parse(state) as ErrorGroupState), total };
  }

  async find(accountId: string, id: string): Promise<ErrorGroupState | undefined> {
    text('accountId', accountId);
    text('id', id);
    const state = this.#table.byId(accountId, id);
    return state === undefined ? undefined : (JSON.parse(state) as ErrorGroupState);
  }

  async archive(accountId: string, id: string, patch: ArchivePatch, nowMs: number): Promise<ErrorGroupState | undefined> {
    text('accountId', accountId);
    text('id', id);
    return committed(this.#store, () => {
      const state = this.#table.byId(accountId, id);
      if (state === undefined) return undefined;
      const next = applyArchivePatch(JSON.parse(state) as ErrorGroupState, patch, nowMs);
      this.#table.replace(accountId, id, JSON.stringify(next));
      return next;
    });
  }
}
