/**
 * Integer public ids counted per account (step 6 of sqlite/migrations/): one tenant's ids must say nothing about
 * what other tenants create. A counter never steps back, so an id of a deleted
 * resource is not handed out again; it starts above `id_floors.floor`, the ids a table handed out
 * service-wide before counting became per account.
 */
import type { SqliteDatabase } from '../database.js';

/** The next id of `collection` for `accountId`; call inside the transaction that stores the row. */
export type NextId = (collection: string, accountId: string) => number;

export function idCounter(db: SqliteDatabase): NextId {
  const next = db
    .prepare(
      `INSERT INTO id_counters (collection, account_id, last_id)
       VALUES (?, ?, coalesce((SELECT floor FROM id_floors WHERE collection = ?), 0) + 1)
       ON CONFLICT (collection, account_id) DO UPDATE SET last_id = last_id + 1
       RETURNING last_id`,
    )
    .pluck();
  return (collection, accountId) => next.get(collection, accountId, collection) as number;
}
