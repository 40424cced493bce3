/**
 * The alert-subscription index in PostgreSQL (migrations.ts, step 12), as store/sqlite/subscriptions.ts
 * keeps it: one row per owner and channel, in the order written (`seq`).
 */
import { sql, type Kysely } from 'kysely';
import { checkChannelSubscriptions, checkSubscriptionOwner } from '../document-rules.js';
import { subscriptionId } from '../formats/subscription-ids.js';
import { positive, text } from '../port-rules.js';
import type { AlertSubscriptionIndex, ChannelSubscriber, ChannelSubscription, SubscriptionOwnerKind } from '../ports.js';
import type { PostgresSchema } from './database.js';
import { withinTransaction } from './documents.js';

/** On the pool, or on a unit of work's transaction. */
export class PostgresAlertSubscriptions implements AlertSubscriptionIndex {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async replace(accountId: string, ownerKind: SubscriptionOwnerKind, ownerId: string, subscriptions: readonly ChannelSubscription[]): Promise<void> {
    checkSubscriptionOwner(accountId, ownerKind, ownerId);
    checkChannelSubscriptions(subscriptions);
    // A channel listed twice keeps its last entry, at the last one's place, as SQLite's INSERT OR
    // REPLACE leaves it; one INSERT may not write the same row twice, so the list is folded first.
    const byChannel = new Map<number, boolean>();
    for (const { alertChannelId, activated } of subscriptions) {
      byChannel.delete(alertChannelId);
      byChannel.set(alertChannelId, activated);
    }
    await withinTransaction(this.#db, async (tx) => {
      await sql`DELETE FROM alert_subscriptions WHERE account_id = ${accountId} AND owner_kind = ${ownerKind} AND owner_id = ${ownerId}`.execute(tx);
      if (byChannel.size === 0) return;
      const rows = [...byChannel].map(([channelId, activated]) => sql`(${accountId}, ${channelId}, ${ownerKind}, ${ownerId}, ${activated})`);
      await sql`INSERT INTO alert_subscriptions (account_id, channel_id, owner_kind, owner_id, activated) VALUES ${sql.join(rows)}`.execute(tx);
    });
  }

  async ofOwners(accountId: string, ownerKind: SubscriptionOwnerKind, ownerIds: readonly string[]): Promise<Map<string, ChannelSubscription[]>> {
    ownerIds.forEach((ownerId) => checkSubscriptionOwner(accountId, ownerKind, ownerId));
    const byOwner = new Map<string, ChannelSubscription[]>();
    if (ownerIds.length === 0) return byOwner;
    const { rows } = await sql<{ ownerId: string; alertChannelId: number; activated: boolean }>`
      SELECT owner_id AS "ownerId", channel_id AS "alertChannelId", activated FROM alert_subscriptions
      WHERE account_id = ${accountId} AND owner_kind = ${ownerKind} AND owner_id = ANY(${[...ownerIds]}::text[])
      ORDER BY seq`.execute(this.#db);
    for (const row of rows) {
      const list = byOwner.get(row.ownerId) ?? [];
      list.push({ alertChannelId: row.alertChannelId, activated: row.activated });
      byOwner.set(row.ownerId, list);
    }
    return byOwner;
  }

  async subscribersOf(accountId: string, channelId: number): Promise<ChannelSubscriber[]> {
    text('accountId', accountId);
    positive('channelId', channelId);
    const { rows } = await sql<{ ownerKind: SubscriptionOwnerKind; ownerId: string; activated: boolean }>`
      SELECT owner_kind AS "ownerKind", owner_id AS "ownerId", activated FROM alert_subscriptions
      WHERE account_id = ${accountId} AND channel_id = ${channelId} ORDER BY seq`.execute(this.#db);
    return rows.map((row) => ({ id: subscriptionId(row.ownerKind, row.ownerId, channelId), ...row }));
  }

  async dropChannel(accountId: string, channelId: number): Promise<number> {
    text('accountId', accountId);
    positive('channelId', channelId);
    const result = await sql`DELETE FROM alert_subscriptions WHERE account_id = ${accountId} AND channel_id = ${channelId}`.execute(this.#db);
    return Number(result.numAffectedRows ?? 0);
  }
}
