/**
 * Idempotency keys in SQLite. `IdempotencyStore` is what the HTTP layer calls synchronously inside
 * the group commit that writes the resource (http/route.ts), so the key and the resource commit
 * together; `SqliteIdempotencyKeys` is the same SQL behind the async port.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import type { IdempotencyKeys, Remembered, StoredResponse } from '../ports.js';
import { checkIdempotencyKey, checkStoredResponse, IDEMPOTENCY_TTL_MS } from '../port-rules.js';
import { committed, type BatchedSqlite } from './batched.js';

export { IDEMPOTENCY_TTL_MS };
export type { StoredResponse };

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
    // A live response is never overwritten (the first writer wins, as on PostgreSQL); an expired one is.
    this.#put = db.prepare(
      `INSERT INTO idempotency_keys (account_id, key, fingerprint, status, body, created_at) VALUES (@accountId, @key, @fingerprint, @status, @body, @now)
       ON CONFLICT (account_id, key) DO UPDATE SET
         fingerprint = excluded.fingerprint, status = excluded.status, body = excluded.body, created_at = excluded.created_at
       WHERE idempotency_keys.created_at <= @expired`,
    );
    this.#purge = db.prepare('DELETE FROM idempotency_keys WHERE created_at <= ?');
  }

  find(accountId: string, key: string, now: number): StoredResponse | undefined {
    return this.#get.get(accountId, key, now - IDEMPOTENCY_TTL_MS) as StoredResponse | undefined;
  }

  /** Stores the response unless a live one is stored; whether it did. */
  save(accountId: string, key: string, response: StoredResponse, now: number): boolean {
    const { fingerprint, status, body } = response;
    const saved = this.#put.run({ accountId, key, fingerprint, status, body, now, expired: now - IDEMPOTENCY_TTL_MS }).changes > 0;
    // Expired keys are dropped at most once a minute, piggybacking on writes, so no timer is needed.
    if (now - this.#lastPurge > 60_000) {
      this.#purge.run(now - IDEMPOTENCY_TTL_MS);
      this.#lastPurge = now;
    }
    return saved;
  }
}

export class SqliteIdempotencyKeys implements IdempotencyKeys {
  readonly #store: BatchedSqlite;
  readonly #keys: IdempotencyStore;

  constructor(store: BatchedSqlite, keys: IdempotencyStore) {
    this.#store = store;
    this.#keys = keys;
  }

  async lookup(accountId: string, key: string, now: number): Promise<StoredResponse | undefined> {
    checkIdempotencyKey(accountId, key, now);
    return this.#keys.find(accountId, key, now);
  }

  async remember(accountId: string, key: string, response: StoredResponse, now: number): Promise<Remembered> {
    checkIdempotencyKey(accountId, key, now);
    checkStoredResponse(response);
    return committed(this.#store, (): Remembered => {
      if (this.#keys.save(accountId, key, response, now)) return { stored: true, response };
      const first = this.#keys.find(accountId, key, now);
      if (!first) throw new Error(`idempotency key "${key}" was neither stored nor found; this is a bug in vigil`);
      return { stored: false, response: first };
    });
  }
}
