/**
 * Check statuses: one row per check, rewritten by each FINAL result the scheduler stores, so a
 * check's status is one indexed read however many results it has. The API reads them through the
 * check-statuses port; this synchronous store serves the public pages' reads of one check's status.
 */
import type { CheckStatus } from '@vigil/schema';
import type { Store } from '../store/index.js';
import { checkStateOf, nextCheckStatus } from '../store/check-status-rules.js';
import type { FinalResultFacts } from '../store/ports.js';
import { StatusTable } from '../store/sqlite/statuses.js';

export type { FinalResultFacts } from '../store/ports.js';

export class StatusStore {
  readonly #table: StatusTable;

  constructor(store: Store) {
    this.#table = new StatusTable(store.db);
  }

  /** Folds a FINAL result into its check's status. */
  record(accountId: string, result: FinalResultFacts): CheckStatus {
    const stored = this.#table.stored(accountId, result.checkId);
    const previous = stored === undefined ? undefined : (JSON.parse(stored) as CheckStatus);
    const status = nextCheckStatus(previous, result, new Date().toISOString());
    this.#table.put(accountId, result.checkId, JSON.stringify(status), checkStateOf(status), status);
    return status;
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
