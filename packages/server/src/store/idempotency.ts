import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';

/** How long a stored response answers a repeated `Idempotency-Key` (24 hours). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface StoredResponse {
  /** Hash of method, path and body of the first request; a repeat with another fingerprint is refused. */
  readonly fingerprint: string;
  readonly status: number;
  readonly body: string;
}

/** Responses of successful POSTs by (account, key), stored in the transaction that made the resource. */
export class IdempotencyStore {
  readonly #get: Statement;
  readonly #put: Statement;
  readonly #purge: Statement;
  #lastPurge = 0;

  constructor(db: SqliteDatabase) {
    this.#get = db.prepare(
      'SELECT fingerprint, status, body FROM idempotency_keys WHERE account_id = ? AND key = ? AND created_at > ?',
    );
    this.#put = db.prepare(
      'INSERT OR REPLACE INTO idempotency_keys (account_id, key, fingerprint, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.#purge = db.prepare('DELETE FROM idempotency_keys WHERE created_at <= ?');
  }

  find(accountId: string, key: string, now: number): StoredResponse | undefined {
    return this.#get.get(accountId, key, now - IDEMPOTENCY_TTL_MS) as StoredResponse | undefined;
  }

  save(accountId: string, key: string, response: StoredResponse, now: number): void {
    this.#put.run(accountId, key, response.fingerprint, response.status, response.body, now);
    // Expired keys are dropped at most once a minute, piggybacking on writes, so no timer is needed.
    if (now - this.#lastPurge > 60_000) {
      this.#purge.run(now - IDEMPOTENCY_TTL_MS);
      this.#lastPurge = now;
    }
  }
}
