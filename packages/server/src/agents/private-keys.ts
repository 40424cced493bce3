/**
 * Agent keys of private locations, made and revoked through `/v1/private-locations/{id}/keys` by
 * the account that owns the location. A key is `pl_` and 32 random hex digits, shown once when made;
 * the service keeps its SHA-256 digest and the last four characters (`maskedKey`, `...6a1e`) to tell
 * keys apart. An agent presenting one runs the runs of that location's checks, of that account only.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { PrivateLocationKey, PrivateLocationKeyCreated } from '@vigil/schema';
import { Collection } from '../store/collection.js';
import type { StoredDoc } from '../store/index.js';
import type { SqliteDatabase } from '../store/database.js';
import { PrivateLocationKeyTable, type PrivateLocationKeyRow } from '../store/sqlite/private-location-keys.js';
import type { AgentIdentity } from './hub.js';
import { privateQueue } from './routing.js';

const KEY_PREFIX = 'pl_';

const digestOf = (key: string) => createHash('sha256').update(key).digest();

const listed = (row: PrivateLocationKeyRow): PrivateLocationKey => ({ id: row.id, maskedKey: row.maskedKey, created_at: row.createdAt, updated_at: null });

export class PrivateLocationKeys {
  readonly #table: PrivateLocationKeyTable;
  readonly #locations: Collection<StoredDoc>;

  constructor(db: SqliteDatabase) {
    this.#table = new PrivateLocationKeyTable(db);
    this.#locations = new Collection<StoredDoc>(db, 'private_locations', 'uuid');
  }

  /** A new key of the location; its `rawKey` is never shown again. Call inside a write. */
  create(accountId: string, privateLocationId: string, now = new Date()): PrivateLocationKeyCreated {
    const rawKey = `${KEY_PREFIX}${randomBytes(16).toString('hex')}`;
    const row = { id: randomUUID(), accountId, privateLocationId, maskedKey: `...${rawKey.slice(-4)}`, createdAt: now.toISOString() };
    this.#table.insert({ ...row, digest: digestOf(rawKey) });
    return { ...listed(row), rawKey };
  }

  list(accountId: string, privateLocationId: string): PrivateLocationKey[] {
    return this.#table.ofLocation(accountId, privateLocationId).map(listed);
  }

  /** False when the location has no such key. Call inside a write. */
  revoke(accountId: string, privateLocationId: string, keyId: string): boolean {
    return this.#table.remove(accountId, privateLocationId, keyId);
  }

  /** Removes every key of a location being deleted; the ids of the keys removed. */
  revokeAll(accountId: string, privateLocationId: string): string[] {
    return this.#table.removeOfLocation(accountId, privateLocationId);
  }

  /**
   * The agent a presented key makes its bearer, or undefined for no such key. Found by the key's
   * digest in an index, so the time taken does not depend on how much of a key was right.
   */
  identify(presented: string): AgentIdentity | undefined {
    if (!presented.startsWith(KEY_PREFIX)) return undefined;
    const row = this.#table.byDigest(digestOf(presented));
    if (!row) return undefined;
    const slug = this.#locations.get(row.accountId, row.privateLocationId)?.['slugName'];
    if (typeof slug !== 'string') return undefined;
    return { queue: privateQueue(row.accountId, slug), location: slug, privateLocation: { accountId: row.accountId, id: row.privateLocationId, keyId: row.id } };
  }
}
