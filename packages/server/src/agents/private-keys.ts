/**
 * Agent keys of private locations, made and revoked through `/v1/private-locations/{id}/keys` by
 * the account that owns the location. A key is `pl_` and 32 random hex digits, shown once when made;
 * the service keeps its SHA-256 digest and the last four characters (`maskedKey`, `...6a1e`) to tell
 * keys apart (the private-location port, store/agent-ports.ts). An agent presenting one runs the runs
 * of that location's checks, of that account only.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { PrivateLocationKey, PrivateLocationKeyCreated } from '@vigil/schema';
import type { PrivateLocationKeyRecord, PrivateLocations } from '../store/agent-ports.js';
import type { AgentIdentity } from './hub.js';
import { privateQueue } from './routing.js';

const KEY_PREFIX = 'pl_';

const digestOf = (key: string) => createHash('sha256').update(key).digest();

const listed = (key: PrivateLocationKeyRecord): PrivateLocationKey => ({ id: key.id, maskedKey: key.maskedKey, created_at: key.createdAt, updated_at: null });

/** A new key of the location, stored through `locations` (a unit's port); its `rawKey` is never shown again. */
export async function createPrivateLocationKey(locations: PrivateLocations, accountId: string, privateLocationId: string, now = new Date()): Promise<PrivateLocationKeyCreated> {
  const rawKey = `${KEY_PREFIX}${randomBytes(16).toString('hex')}`;
  const key: PrivateLocationKeyRecord = { id: randomUUID(), privateLocationId, maskedKey: `...${rawKey.slice(-4)}`, createdAt: now.toISOString() };
  await locations.addKey(accountId, key, digestOf(rawKey));
  return { ...listed(key), rawKey };
}

/** The location's keys, masked, oldest first. */
export async function listPrivateLocationKeys(locations: PrivateLocations, accountId: string, privateLocationId: string): Promise<PrivateLocationKey[]> {
  return (await locations.keysOf(accountId, privateLocationId)).map(listed);
}

/** Who an agent presenting a key is, by the keys stored in the database (any replica's). */
export class PrivateLocationKeys {
  readonly #locations: PrivateLocations;

  constructor(locations: PrivateLocations) {
    this.#locations = locations;
  }

  /**
   * The agent a presented key makes its bearer, or undefined for no such key. Found by the key's
   * digest in an index, so the time taken does not depend on how much of a key was right.
   */
  async identify(presented: string): Promise<AgentIdentity | undefined> {
    if (!presented.startsWith(KEY_PREFIX)) return undefined;
    const holder = await this.#locations.keyHolder(digestOf(presented));
    if (!holder) return undefined;
    return {
      queue: privateQueue(holder.accountId, holder.slugName),
      location: holder.slugName,
      privateLocation: { accountId: holder.accountId, id: holder.privateLocationId, keyId: holder.keyId },
    };
  }
}
