/**
 * Check statuses: one row per check, rewritten by each FINAL result the scheduler stores, so
 * `GET /v1/check-statuses` is one indexed read however many results a check has. Only checks that
 * still exist are listed (the join drops a deleted check's row).
 */
import type { CheckStatus } from '@vigil/schema';
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase, Store } from '../store/index.js';

/** The fields of a FINAL result a status is made from. */
export interface FinalResultFacts {
  name: string;
  checkId: string;
  hasFailures: boolean;
  hasErrors: boolean;
  isDegraded: boolean | null;
  responseTime: number | null;
  runLocation: string;
  checkRunId: number | string | null;
  stoppedAt: string | null;
  sslDaysRemaining?: number | null;
}

export class StatusStore {
  readonly #get: Statement;
  readonly #put: Statement;
  readonly #list: Statement;
  readonly #one: Statement;

  constructor(store: Store) {
    const db = store.db;
    this.#get = db.prepare('SELECT doc FROM check_statuses WHERE account_id = ? AND check_id = ?');
    this.#put = db.prepare('INSERT OR REPLACE INTO check_statuses (account_id, check_id, doc) VALUES (?, ?, ?)');
    this.#list = db.prepare(
      'SELECT s.doc FROM check_statuses s JOIN checks c ON c.account_id = s.account_id AND c.id = s.check_id WHERE s.account_id = ? ORDER BY c.seq',
    );
    this.#one = db.prepare(
      'SELECT s.doc FROM check_statuses s JOIN checks c ON c.account_id = s.account_id AND c.id = s.check_id WHERE s.account_id = ? AND s.check_id = ?',
    );
  }

  /** Folds a FINAL result into its check's status. */
  record(accountId: string, result: FinalResultFacts): CheckStatus {
    const row = this.#get.get(accountId, result.checkId) as { doc: string } | undefined;
    const previous = row ? (JSON.parse(row.doc) as CheckStatus) : undefined;
    const time = result.responseTime;
    const now = result.stoppedAt ?? new Date().toISOString();
    const status: CheckStatus = {
      name: result.name,
      checkId: result.checkId,
      hasFailures: result.hasFailures,
      hasErrors: result.hasErrors,
      isDegraded: result.isDegraded === true,
      longestRun: maxOf(previous?.longestRun ?? null, time),
      shortestRun: minOf(previous?.shortestRun ?? null, time),
      lastRunLocation: result.runLocation,
      lastCheckRunId: result.checkRunId === null ? null : String(result.checkRunId),
      sslDaysRemaining: result.sslDaysRemaining ?? previous?.sslDaysRemaining ?? null,
      created_at: previous?.created_at ?? now,
      updated_at: now,
    };
    this.#put.run(accountId, result.checkId, JSON.stringify(status));
    return status;
  }

  list(accountId: string): CheckStatus[] {
    return (this.#list.all(accountId) as Array<{ doc: string }>).map((row) => JSON.parse(row.doc) as CheckStatus);
  }

  /** The ids of the account's checks whose last run was passing, failing (failures or errors) or degraded. */
  idsWith(accountId: string, wanted: 'passing' | 'failing' | 'degraded'): string[] {
    return this.list(accountId)
      .filter((status) => {
        const failing = status.hasFailures || status.hasErrors;
        const state = failing ? 'failing' : status.isDegraded ? 'degraded' : 'passing';
        return state === wanted;
      })
      .map((status) => status.checkId);
  }

  get(accountId: string, checkId: string): CheckStatus | undefined {
    const row = this.#one.get(accountId, checkId) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as CheckStatus) : undefined;
  }
}

/**
 * COMPATIBILITY for metrics/ only, which calls it to make sure the statuses table exists (every
 * migrated database has it): a fresh, unshared StatusStore. Everything else uses
 * `Repositories.statuses`.
 */
export function statusesOf(store: Store): StatusStore {
  return new StatusStore(store);
}

function maxOf(previous: number | null, value: number | null): number | null {
  if (value === null) return previous;
  return previous === null ? value : Math.max(previous, value);
}

function minOf(previous: number | null, value: number | null): number | null {
  if (value === null) return previous;
  return previous === null ? value : Math.min(previous, value);
}
