/**
 * Storage of check results, heartbeat events and the error groups derived from results. Recording a
 * result folds its errors into the check's error groups in the same transaction, so the groups are
 * always exactly what the stored results say.
 */
import { randomUUID } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import { PAGE_LIMIT, type SqliteDatabase } from '../store/index.js';
import { recordError, errorMessagesOf, applyArchivePatch, type ArchivePatch, type ErrorGroupState } from './error-groups.js';
import type { HeartbeatEvent } from './heartbeats.js';
import type { RawResult } from './result-facts.js';

/** A stored check result: the wire document (shape in @vigil/schema) with the fields we index. */
export type StoredResult = RawResult & Record<string, unknown>;

export class ResultsStore {
  readonly #db: SqliteDatabase;
  readonly #insertResult: Statement;
  readonly #resultsInRange: Statement;
  readonly #resultsOfCheck: Statement;
  readonly #insertEvent: Statement;
  readonly #eventsOfCheck: Statement;
  readonly #groupByHash: Statement;
  readonly #groupById: Statement;
  readonly #insertGroup: Statement;
  readonly #updateGroup: Statement;
  readonly #groupsOfCheck: Statement;
  readonly #countGroupsOfCheck: Statement;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#insertResult = db.prepare(
      'INSERT OR IGNORE INTO check_results (account_id, id, check_id, created_ms, doc) VALUES (?, ?, ?, ?, ?)',
    );
    this.#resultsInRange = db.prepare(
      'SELECT doc FROM check_results WHERE account_id = ? AND check_id = ? AND created_ms >= ? AND created_ms < ? ORDER BY created_ms, id',
    );
    this.#resultsOfCheck = db.prepare('SELECT doc FROM check_results WHERE account_id = ? AND check_id = ? ORDER BY created_ms, id');
    this.#insertEvent = db.prepare(
      'INSERT OR IGNORE INTO heartbeat_events (account_id, id, check_id, at_ms, doc) VALUES (?, ?, ?, ?, ?)',
    );
    this.#eventsOfCheck = db.prepare('SELECT doc FROM heartbeat_events WHERE account_id = ? AND check_id = ? ORDER BY at_ms, id');
    this.#groupByHash = db.prepare('SELECT state FROM error_groups WHERE account_id = ? AND check_id = ? AND error_hash = ?');
    this.#groupById = db.prepare('SELECT state FROM error_groups WHERE account_id = ? AND id = ?');
    this.#insertGroup = db.prepare('INSERT INTO error_groups (account_id, id, check_id, error_hash, state) VALUES (?, ?, ?, ?, ?)');
    this.#updateGroup = db.prepare('UPDATE error_groups SET state = ? WHERE account_id = ? AND id = ?');
    this.#groupsOfCheck = db.prepare(`SELECT state FROM error_groups WHERE account_id = ? AND check_id = ? ORDER BY seq ${PAGE_LIMIT}`);
    this.#countGroupsOfCheck = db.prepare('SELECT COUNT(*) AS total FROM error_groups WHERE account_id = ? AND check_id = ?');
  }

  /**
   * Stores a result (a result id already stored is left alone, so loading a seed twice is harmless)
   * and folds its error messages into the check's error groups. Returns whether it was new.
   */
  recordResult(accountId: string, result: StoredResult): boolean {
    return this.#db.transaction(() => {
      const createdMs = Date.parse(result.created_at);
      const inserted = this.#insertResult.run(accountId, result.id, result.checkId, createdMs, JSON.stringify(result)).changes > 0;
      if (!inserted) return false;
      for (const message of errorMessagesOf(result)) {
        this.#foldError(accountId, { checkId: result.checkId, message, at: createdMs });
      }
      return true;
    })();
  }

  #foldError(accountId: string, occurrence: { checkId: string; message: string; at: number }): void {
    const fresh = recordError(undefined, occurrence, randomUUID);
    const row = this.#groupByHash.get(accountId, occurrence.checkId, fresh.errorHash) as { state: string } | undefined;
    if (!row) {
      this.#insertGroup.run(accountId, fresh.id, fresh.checkId, fresh.errorHash, JSON.stringify(fresh));
      return;
    }
    const next = recordError(JSON.parse(row.state) as ErrorGroupState, occurrence, randomUUID);
    this.#updateGroup.run(JSON.stringify(next), accountId, next.id);
  }

  /** A check's results created in `[fromMs, toMs)`, oldest first (ties by id). */
  resultsBetween(accountId: string, checkId: string, fromMs: number, toMs: number): StoredResult[] {
    return (this.#resultsInRange.all(accountId, checkId, fromMs, toMs) as Array<{ doc: string }>).map(
      (row) => JSON.parse(row.doc) as StoredResult,
    );
  }

  /** Every stored result of a check, oldest first. */
  resultsOf(accountId: string, checkId: string): StoredResult[] {
    return (this.#resultsOfCheck.all(accountId, checkId) as Array<{ doc: string }>).map((row) => JSON.parse(row.doc) as StoredResult);
  }

  /** Stores a heartbeat ping of a check (an id already stored is left alone); returns whether it was new. */
  recordHeartbeatEvent(accountId: string, checkId: string, event: HeartbeatEvent): boolean {
    return this.#insertEvent.run(accountId, event.id, checkId, Date.parse(event.timestamp), JSON.stringify(event)).changes > 0;
  }

  heartbeatEventsOf(accountId: string, checkId: string): HeartbeatEvent[] {
    return (this.#eventsOfCheck.all(accountId, checkId) as Array<{ doc: string }>).map((row) => JSON.parse(row.doc) as HeartbeatEvent);
  }

  /** One page of a check's error groups, in order of first recording. */
  errorGroupsOf(accountId: string, checkId: string, paging: { page: number; limit: number }): { items: ErrorGroupState[]; total: number } {
    const { total } = this.#countGroupsOfCheck.get(accountId, checkId) as { total: number };
    const offset = (paging.page - 1) * paging.limit;
    const rows = offset >= total ? [] : (this.#groupsOfCheck.all(accountId, checkId, paging.limit, offset) as Array<{ state: string }>);
    return { items: rows.map((row) => JSON.parse(row.state) as ErrorGroupState), total };
  }

  errorGroup(accountId: string, id: string): ErrorGroupState | undefined {
    const row = this.#groupById.get(accountId, id) as { state: string } | undefined;
    return row ? (JSON.parse(row.state) as ErrorGroupState) : undefined;
  }

  /** Applies an archive PATCH; `undefined` when the account has no such group. */
  patchErrorGroup(accountId: string, id: string, patch: ArchivePatch, now: number): ErrorGroupState | undefined {
    const group = this.errorGroup(accountId, id);
    if (!group) return undefined;
    const next = applyArchivePatch(group, patch, now);
    this.#updateGroup.run(JSON.stringify(next), accountId, id);
    return next;
  }
}
