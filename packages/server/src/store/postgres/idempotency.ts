/** Idempotency keys in PostgreSQL: the same rules as store/sqlite/idempotency.ts, shared by replicas. */
import type { Kysely } from 'kysely';
import type { IdempotencyKeys, Remembered, StoredResponse } from '../ports.js';
import { checkIdempotencyKey, checkStoredResponse, IDEMPOTENCY_TTL_MS } from '../port-rules.js';
import type { PostgresSchema } from './database.js';

/** How often this replica deletes expired keys (piggybacking on a write; no timer). */
const PURGE_EVERY_MS = 60_000;

/** When this replica last deleted expired keys; shared by its pool's port and its units' ports. */
export interface PurgeClock {
  lastPurge: number;
}

/** On the pool, or on a unit of work's transaction (the response then commits with the unit's writes). */
export class PostgresIdempotencyKeys implements IdempotencyKeys {
  readonly #db: Kysely<PostgresSchema>;
  readonly #purged: PurgeClock;

  constructor(db: Kysely<PostgresSchema>, purged: PurgeClock = { lastPurge: 0 }) {
    this.#db = db;
    this.#purged = purged;
  }

  async lookup(accountId: string, key: string, now: number): Promise<StoredResponse | undefined> {
    checkIdempotencyKey(accountId, key, now);
    return this.#find(accountId, key, now);
  }

  async remember(accountId: string, key: string, response: StoredResponse, now: number): Promise<Remembered> {
    checkIdempotencyKey(accountId, key, now);
    checkStoredResponse(response);
    const expired = now - IDEMPOTENCY_TTL_MS;
    if (now - this.#purged.lastPurge > PURGE_EVERY_MS) {
      this.#purged.lastPurge = now;
      await this.#db.deleteFrom('idempotency_keys').where('created_at', '<=', expired).execute();
    }
    // A concurrent insert of the same key waits here for the other's commit and then, finding a live
    // row, updates nothing: the first writer's response stays. Only a live row that expires or is
    // purged between the insert and the read sends this round again, so two rounds settle it.
    for (let round = 0; round < 2; round += 1) {
      const inserted = await this.#db
        .insertInto('idempotency_keys')
        .values({ account_id: accountId, key, fingerprint: response.fingerprint, status: response.status, body: response.body, created_at: now })
        .onConflict((conflict) =>
          conflict
            .columns(['account_id', 'key'])
            .doUpdateSet((row) => ({
              fingerprint: row.ref('excluded.fingerprint'),
              status: row.ref('excluded.status'),
              body: row.ref('excluded.body'),
              created_at: row.ref('excluded.created_at'),
            }))
            .where('idempotency_keys.created_at', '<=', expired),
        )
        .returning('key')
        .executeTakeFirst();
      if (inserted) return { stored: true, response };
      const first = await this.#find(accountId, key, now);
      if (first) return { stored: false, response: first };
    }
    throw new Error(`idempotency key "${key}" was neither stored nor found twice in a row; this is a bug in vigil`);
  }

  #find(accountId: string, key: string, now: number): Promise<StoredResponse | undefined> {
    return this.#db
      .selectFrom('idempotency_keys')
      .select(['fingerprint', 'status', 'body'])
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .where('created_at', '>', now - IDEMPOTENCY_TTL_MS)
      .executeTakeFirst();
  }
}
