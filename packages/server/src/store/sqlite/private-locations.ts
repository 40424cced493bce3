/**
 * The private-location port (agent-ports.ts) in SQLite: locations in `private_locations` (step 26, the
 * collection layout) and their agent keys in `private_location_keys` (step 28). Only a SHA-256 digest
 * of each key is stored: the key is shown once when it is made, and an agent presenting it is found by
 * its digest. The keys are 128 random bits, so a fast digest is enough (nothing to guess).
 */
import type { Statement } from 'better-sqlite3';
import {
  checkDigest,
  checkPrivateLocation,
  checkPrivateLocationKey,
  PrivateLocationSlugTaken,
  type PrivateLocationDocument,
  type PrivateLocationKeyHolder,
  type PrivateLocationKeyRecord,
  type PrivateLocations,
} from '../agent-ports.js';
import type { SqliteDatabase } from '../database.js';
import { privateLocationKeyOf, type PrivateLocationKeyRow } from '../formats/private-location-key-row.js';
import { positive, text } from '../port-rules.js';
import { committed, type BatchedSqlite } from './batched.js';

class PrivateLocationTables {
  readonly slugHeld: Statement;
  readonly insert: Statement;
  readonly get: Statement;
  readonly count: Statement;
  readonly page: Statement;
  readonly replace: Statement;
  readonly remove: Statement;
  readonly removeKeysOf: Statement;
  readonly addKey: Statement;
  readonly keysOf: Statement;
  readonly removeKey: Statement;
  readonly keyHolder: Statement;

  constructor(db: SqliteDatabase) {
    this.slugHeld = db.prepare("SELECT 1 FROM private_locations WHERE account_id = ? AND json_extract(doc, '$.slugName') = ?").pluck();
    this.insert = db.prepare('INSERT INTO private_locations (account_id, id, doc) VALUES (?, ?, ?)');
    this.get = db.prepare('SELECT doc FROM private_locations WHERE account_id = ? AND id = ?').pluck();
    this.count = db.prepare('SELECT COUNT(*) FROM private_locations WHERE account_id = ?').pluck();
    this.page = db.prepare('SELECT doc FROM private_locations WHERE account_id = ? ORDER BY seq LIMIT ? OFFSET ?').pluck();
    this.replace = db.prepare('UPDATE private_locations SET doc = ? WHERE account_id = ? AND id = ?');
    this.remove = db.prepare('DELETE FROM private_locations WHERE account_id = ? AND id = ?');
    this.removeKeysOf = db.prepare('DELETE FROM private_location_keys WHERE account_id = ? AND private_location_id = ? RETURNING id').pluck();
    this.addKey = db.prepare('INSERT INTO private_location_keys (id, account_id, private_location_id, key_digest, masked_key, created_at) VALUES (?, ?, ?, ?, ?, ?)');
    this.keysOf = db.prepare('SELECT id, private_location_id, masked_key, created_at FROM private_location_keys WHERE account_id = ? AND private_location_id = ? ORDER BY seq');
    this.removeKey = db.prepare('DELETE FROM private_location_keys WHERE account_id = ? AND private_location_id = ? AND id = ?');
    this.keyHolder = db.prepare(`
      SELECT key.id AS keyId, key.account_id AS accountId, key.private_location_id AS privateLocationId, json_extract(location.doc, '$.slugName') AS slugName
      FROM private_location_keys AS key
      JOIN private_locations AS location ON location.account_id = key.account_id AND location.id = key.private_location_id
      WHERE key.key_digest = ?`);
  }
}

export class SqlitePrivateLocations implements PrivateLocations {
  readonly #store: BatchedSqlite;
  #tables: PrivateLocationTables | undefined;

  constructor(store: BatchedSqlite) {
    this.#store = store;
  }

  /** Prepared at the first call: a unit's ports are built while its savepoint is open. */
  #statements(): PrivateLocationTables {
    return (this.#tables ??= new PrivateLocationTables(this.#store.db));
  }

  async insert(accountId: string, location: PrivateLocationDocument): Promise<void> {
    checkPrivateLocation(accountId, location);
    await committed(this.#store, () => {
      const tables = this.#statements();
      // In the insert's transaction, which holds SQLite's write lock: no other create can land in between.
      if (tables.slugHeld.get(accountId, location.slugName) !== undefined) throw new PrivateLocationSlugTaken(location.slugName);
      tables.insert.run(accountId, location.id, JSON.stringify(location));
    });
  }

  async get(accountId: string, id: string): Promise<PrivateLocationDocument | undefined> {
    text('accountId', accountId);
    text('privateLocationId', id, 255);
    const doc = this.#statements().get.get(accountId, id) as string | undefined;
    return doc === undefined ? undefined : (JSON.parse(doc) as PrivateLocationDocument);
  }

  async page(accountId: string, paging: { limit: number; page: number }): Promise<{ items: PrivateLocationDocument[]; total: number }> {
    text('accountId', accountId);
    positive('limit', paging.limit);
    positive('page', paging.page);
    const tables = this.#statements();
    const total = tables.count.get(accountId) as number;
    const offset = (paging.page - 1) * paging.limit;
    const docs = offset >= total ? [] : (tables.page.all(accountId, paging.limit, offset) as string[]);
    return { items: docs.map((doc) => JSON.parse(doc) as PrivateLocationDocument), total };
  }

  async replace(accountId: string, location: PrivateLocationDocument): Promise<boolean> {
    checkPrivateLocation(accountId, location);
    return committed(this.#store, () => this.#statements().replace.run(JSON.stringify(location), accountId, location.id).changes > 0);
  }

  async remove(accountId: string, id: string): Promise<string[] | undefined> {
    text('accountId', accountId);
    text('privateLocationId', id, 255);
    return committed(this.#store, () => {
      const tables = this.#statements();
      if (tables.remove.run(accountId, id).changes === 0) return undefined;
      return tables.removeKeysOf.all(accountId, id) as string[];
    });
  }

  async addKey(accountId: string, key: PrivateLocationKeyRecord, digest: Uint8Array): Promise<void> {
    checkPrivateLocationKey(accountId, key, digest);
    await committed(this.#store, () => this.#statements().addKey.run(key.id, accountId, key.privateLocationId, Buffer.from(digest), key.maskedKey, key.createdAt));
  }

  async keysOf(accountId: string, privateLocationId: string): Promise<PrivateLocationKeyRecord[]> {
    text('accountId', accountId);
    text('privateLocationId', privateLocationId, 255);
    return (this.#statements().keysOf.all(accountId, privateLocationId) as PrivateLocationKeyRow[]).map(privateLocationKeyOf);
  }

  async removeKey(accountId: string, privateLocationId: string, keyId: string): Promise<boolean> {
    text('accountId', accountId);
    text('privateLocationId', privateLocationId, 255);
    text('keyId', keyId, 255);
    return committed(this.#store, () => this.#statements().removeKey.run(accountId, privateLocationId, keyId).changes > 0);
  }

  async keyHolder(digest: Uint8Array): Promise<PrivateLocationKeyHolder | undefined> {
    checkDigest(digest);
    const row = this.#statements().keyHolder.get(Buffer.from(digest)) as PrivateLocationKeyHolder | undefined;
    return row && typeof row.slugName === 'string' ? { accountId: row.accountId, privateLocationId: row.privateLocationId, keyId: row.keyId, slugName: row.slugName } : undefined;
  }
}
