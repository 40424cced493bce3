/**
 * The CheckStatuses port on SQLite, on the statements the running service's statuses use
 * (statuses.ts): a write tells the same listeners (`GET /metrics` follows status writes), and
 * reads join the checks as they do.
 */
import type { CheckStatus } from '@vigil/schema';
import { checkStateOf, checkStatusWrite, nextCheckStatus } from '../check-status-rules.js';
import { text } from '../port-rules.js';
import type { CheckStatuses, FinalResultFacts } from '../ports.js';
import { committed, type BatchedSqlite } from './batched.js';
import { StatusTable } from './statuses.js';

/**
 * Folds a FINAL result into its check's stored status, synchronously, in whatever transaction the
 * connection has open: the port's write, and what the SQLite engine's own tests use to write a status
 * inside a transaction they then roll back (an async port call cannot run inside one).
 */
export function writeCheckStatus(table: StatusTable, accountId: string, result: FinalResultFacts): CheckStatus {
  const stored = table.stored(accountId, result.checkId);
  const status = nextCheckStatus(stored === undefined ? undefined : (JSON.parse(stored) as CheckStatus), result, new Date().toISOString());
  table.put(accountId, result.checkId, JSON.stringify(status), checkStateOf(status), status);
  return status;
}

export class SqliteCheckStatuses implements CheckStatuses {
  readonly #store: BatchedSqlite;
  readonly #table: StatusTable;

  constructor(store: BatchedSqlite) {
    this.#store = store;
    this.#table = new StatusTable(store.db);
  }

  async record(accountId: string, result: FinalResultFacts): Promise<CheckStatus> {
    checkStatusWrite(accountId, result);
    return committed(this.#store, () => writeCheckStatus(this.#table, accountId, result));
  }

  async list(accountId: string): Promise<CheckStatus[]> {
    text('accountId', accountId);
    return this.#table.list(accountId).map((doc) => JSON.parse(doc) as CheckStatus);
  }

  async find(accountId: string, checkId: string): Promise<CheckStatus | undefined> {
    text('accountId', accountId);
    text('checkId', checkId);
    const doc = this.#table.one(accountId, checkId);
    return doc === undefined ? undefined : (JSON.parse(doc) as CheckStatus);
  }
}
