/**
 * A subscription's public id, derived from what it joins. It was the index row's rowid: one counter
 * for every tenant, so its jumps showed how much other tenants wrote, and it changed whenever the
 * owner was saved. Nothing is looked up by it; it only has to be stable and positive, and the same
 * on every engine.
 */
import { createHash } from 'node:crypto';
import type { SubscriptionOwnerKind } from '../ports.js';

export function subscriptionId(ownerKind: SubscriptionOwnerKind, ownerId: string, channelId: number): number {
  return (createHash('sha256').update(`${ownerKind}\u0000${ownerId}\u0000${channelId}`).digest().readUInt32BE(0) & 0x7fffffff) + 1;
}
