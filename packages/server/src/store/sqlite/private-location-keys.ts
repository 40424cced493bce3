/**
 * Agent keys of private locations, per account. Only a SHA-256 digest of each key is stored: the
 * key is shown once when it is made, and an agent presenting it is found by its digest. The keys
 * are 128 random bits, so a fast digest is enough (no password hashing: there is nothing to guess).
 * The table is step 28 of the schema (migrations/agents.ts).
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';

export interface PrivateLocationKeyRow {
  readonly id: string;
  readonly accountId: string;
  readonly privateLocationId: string;
  readonly maskedKey: string;
  readonly createdAt: string;
}

interface Row {
  id: string;
  account_id: string;
  private_location_id: string;
  masked_key: string;
  created_at: string;
}

const rowOf = (row: Row): PrivateLocationKeyRow => ({ id: row.id, accountId: row.account_id, privateLocationId: row.private_location_id, maskedKey: row.masked_key, createdAt: row.created_at });

export class PrivateLocationKeyTable {
  readonly #insert: Statement;
  readonly #ofLocation: Statement;
  readonly #byDigest: Statement;
  readonly #remove: Statement;
  readonly #removeOfLocation: Statement;

  constructor(db: SqliteDatabase) {
    this.#insert = db.prepare('INSERT INTO private_location_keys (id, account_id, private_location_id, key_digest, masked_key, created_at) VALUES (?, ?, ?, ?, ?, ?)');
    this.#ofLocation = db.prepare('SELECT id, account_id, private_location_id, masked_key, created_at FROM private_location_keys WHERE account_id = ? AND private_location_id = ? ORDER BY seq');
    this.#byDigest = db.prepare('SELECT id, account_id, private_location_id, masked_key, created_at FROM private_location_keys WHERE key_digest = ?');
    this.#remove = db.prepare('DELETE FROM private_location_keys WHERE account_id = ? AND private_location_id = ? AND id = ?');
    this.#removeOfLocation = db.prepare('DELETE FROM private_location_keys WHERE account_id = ? AND private_location_id = ? RETURNING id').pluck();
  }

  insert(key: PrivateLocationKeyRow & { digest: Buffer }): void {
    this.#insert.run(key.id, key.accountId, key.privateLocationId, key.digest, key.maskedKey, key.createdAt);
  }

  ofLocation(accountId: string, privateLocationId: string): PrivateLocationKeyRow[] {
    return (this.#ofLocation.all(accountId, privateLocationId) as Row[]).map(rowOf);
  }

  byDigest(digest: Buffer): PrivateLocationKeyRow | undefined {
    const row = this.#byDigest.get(digest) as Row | undefined;
    return row && rowOf(row);
  }

  /** False when the location has no such key. */
  remove(accountId: string, privateLocationId: string, id: string): boolean {
    return this.#remove.run(accountId, privateLocationId, id).changes > 0;
  }

  /** Removes every key of a location (it is being deleted); the ids removed. */
  removeOfLocation(accountId: string, privateLocationId: string): string[] {
    return this.#removeOfLocation.all(accountId, privateLocationId) as string[];
  }
}
