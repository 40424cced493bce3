/**
 * Check statuses: one row per check, rewritten by each FINAL result the scheduler stores, so
 * `GET /v1/check-statuses` is one indexed read however many results a check has. Only checks that
 * still exist are listed (the join drops a deleted check's row).
 */
import type { CheckStatus } from '@vigil/schema';
import type { Store } from '../store/index.js';
import { checkStateOf, StatusTable } from '../store/sqlite/statuses.js';

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
  readonly #table: StatusTable;

  constructor(store: Store) {
    this.#table = new StatusTable(store.db);
  }

  /** Folds a FINAL result into its check's status. */
  record(accountId: string, result: FinalResultFacts): CheckStatus {
    const stored = this.#table.stored(accountId, result.checkId);
    const previous = stored === undefined ? undefined : (JSON.parse(stored) as CheckStatus);
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
    this.#table.put(accountId, result.checkId, JSON.stringify(status), checkStateOf(status), status);
    return status;
  }

  list(accountId: string): CheckStatus[] {
    return this.#table.list(accountId).map((doc) => JSON.parse(doc) as CheckStatus);
  }

  get(accountId: string, checkId: string): CheckStatus | undefined {
    const doc = this.#table.one(accountId, checkId);
    return doc === undefined ? undefined : (JSON.parse(doc) as CheckStatus);
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
