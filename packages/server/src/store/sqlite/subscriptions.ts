import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import { checkChannelSubscriptions, checkSubscriptionOwner } from '../document-rules.js';
import { subscriptionId } from '../formats/subscription-ids.js';
import { positive, text } from '../port-rules.js';
import type { AlertSubscriptionIndex, ChannelSubscriber, ChannelSubscription, SubscriptionOwnerKind } from '../ports.js';
import { committed, type BatchedSqlite } from './batched.js';
import type { PublicId } from './collection.js';

export type { SubscriptionOwnerKind };
export { subscriptionId };

export interface AlertChannelSubscription {
  alertChannelId: number;
  activated: boolean;
}

/** A channel's subscriber, as the index reads it (the port's shape). */
export type Subscriber = ChannelSubscriber;

/** The reverse index channel → subscribers of `alert_subscriptions` (step 2 of sqlite/migrations/). */
export class SubscriptionIndex {
  readonly #clear: Statement;
  readonly #add: Statement;
  readonly #byChannel: Statement;
  readonly #removeChannel: Statement;
  readonly #ofOwners: Statement;

  constructor(db: SqliteDatabase) {
    this.#clear = db.prepare('DELETE FROM alert_subscriptions WHERE account_id = ? AND owner_kind = ? AND owner_id = ?');
    this.#add = db.prepare(
      'INSERT OR REPLACE INTO alert_subscriptions (account_id, channel_id, owner_kind, owner_id, activated) VALUES (?, ?, ?, ?, ?)',
    );
    this.#byChannel = db.prepare(
      'SELECT owner_kind AS ownerKind, owner_id AS ownerId, activated FROM alert_subscriptions WHERE account_id = ? AND channel_id = ? ORDER BY rowid',
    );
    this.#removeChannel = db.prepare('DELETE FROM alert_subscriptions WHERE account_id = ? AND channel_id = ?');
    this.#ofOwners = db.prepare(
      'SELECT owner_id AS ownerId, channel_id AS alertChannelId, activated FROM alert_subscriptions WHERE account_id = ? AND owner_kind = ? AND owner_id IN (SELECT value FROM json_each(?)) ORDER BY rowid',
    );
  }

  /** The subscriptions of many checks or groups at once, in each owner's own order. */
  ofOwners(accountId: string, ownerKind: SubscriptionOwnerKind, ownerIds: readonly string[]): Map<string, AlertChannelSubscription[]> {
    const byOwner = new Map<string, AlertChannelSubscription[]>();
    const rows = this.#ofOwners.all(accountId, ownerKind, JSON.stringify(ownerIds)) as Array<{ ownerId: string; alertChannelId: number; activated: number }>;
    for (const row of rows) {
      const list = byOwner.get(row.ownerId) ?? [];
      list.push({ alertChannelId: row.alertChannelId, activated: row.activated === 1 });
      byOwner.set(row.ownerId, list);
    }
    return byOwner;
  }

  /** Replaces what one check or group is subscribed to. Call inside the transaction that stores it. */
  set(accountId: string, ownerKind: SubscriptionOwnerKind, ownerId: PublicId, subscriptions: readonly AlertChannelSubscription[]): void {
    this.#clear.run(accountId, ownerKind, String(ownerId));
    for (const subscription of subscriptions) {
      this.#add.run(accountId, subscription.alertChannelId, ownerKind, String(ownerId), subscription.activated ? 1 : 0);
    }
  }

  subscribers(accountId: string, channelId: number): Subscriber[] {
    return (this.#byChannel.all(accountId, channelId) as Array<{ id: number; ownerKind: SubscriptionOwnerKind; ownerId: string; activated: number }>).map(
      (row) => ({ id: subscriptionId(row.ownerKind, row.ownerId, channelId), ownerKind: row.ownerKind, ownerId: row.ownerId, activated: row.activated === 1 }),
    );
  }

  /** Resolves to how many subscriptions went. */
  removeChannel(accountId: string, channelId: number): number {
    return this.#removeChannel.run(accountId, channelId).changes;
  }
}

/** The alert-subscription port (ports.ts) on the same index the synchronous routes write. */
export class SqliteAlertSubscriptions implements AlertSubscriptionIndex {
  readonly #store: BatchedSqlite;
  readonly #index: SubscriptionIndex;

  constructor(store: BatchedSqlite, index: SubscriptionIndex) {
    this.#store = store;
    this.#index = index;
  }

  async replace(accountId: string, ownerKind: SubscriptionOwnerKind, ownerId: string, subscriptions: readonly ChannelSubscription[]): Promise<void> {
    checkSubscriptionOwner(accountId, ownerKind, ownerId);
    checkChannelSubscriptions(subscriptions);
    await committed(this.#store, () => this.#index.set(accountId, ownerKind, ownerId, subscriptions));
  }

  async ofOwners(accountId: string, ownerKind: SubscriptionOwnerKind, ownerIds: readonly string[]): Promise<Map<string, ChannelSubscription[]>> {
    ownerIds.forEach((ownerId) => checkSubscriptionOwner(accountId, ownerKind, ownerId));
    return this.#index.ofOwners(accountId, ownerKind, ownerIds);
  }

  async subscribersOf(accountId: string, channelId: number): Promise<ChannelSubscriber[]> {
    text('accountId', accountId);
    positive('channelId', channelId);
    return this.#index.subscribers(accountId, channelId);
  }

  async dropChannel(accountId: string, channelId: number): Promise<number> {
    text('accountId', accountId);
    positive('channelId', channelId);
    return committed(this.#store, () => this.#index.removeChannel(accountId, channelId));
  }
}
