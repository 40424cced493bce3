/**
 * A `--seed` file names its checks' and services' ids, which the collections never let a caller
 * choose: the seed loader creates each one as the API would and then gives it the seed's id here.
 */
import type { SqliteDatabase } from '../database.js';

/** Gives a check created by the seed loader the seed's id, in its document and its subscriptions. */
export function renameSeededCheck(db: SqliteDatabase, accountId: string, allocatedId: string, seedId: string): void {
  db.prepare("UPDATE checks SET id = ?, doc = json_set(doc, '$.id', ?) WHERE account_id = ? AND id = ?").run(seedId, seedId, accountId, allocatedId);
  db.prepare("UPDATE alert_subscriptions SET owner_id = ? WHERE account_id = ? AND owner_kind = 'check' AND owner_id = ?").run(seedId, accountId, allocatedId);
}

/** Gives a status-page service created by the seed loader the seed's id. */
export function renameSeededService(db: SqliteDatabase, accountId: string, allocatedId: string, seedId: string): void {
  db.prepare("UPDATE services SET id = ?, doc = json_set(doc, '$.id', ?) WHERE account_id = ? AND id = ?").run(seedId, seedId, accountId, allocatedId);
}
