/**
 * The notification outbox in PostgreSQL. A claim takes due rows with `FOR UPDATE SKIP LOCKED`: a
 * replica claiming at the same moment skips the rows another is locking instead of waiting for them,
 * so concurrent claims split the backlog between replicas and never hand a row to two. The lease is
 * what survives the claim's transaction: another replica takes the row once it has run out. Same rules
 * as store/sqlite/outbox.ts.
 */
import { sql, type Kysely } from 'kysely';
import { checkNotificationLogQuery, FAILED_DELIVERIES, loggedOf, type LoggedRow } from '../notification-log-rules.js';
import type { ClaimedNotification, LoggedNotification, NotificationLogQuery, NotificationOutbox, QueuedNotification, SettledDelivery } from '../ports.js';
import { checkMoment, checkOutboxClaim, checkOutboxOwner, checkQueuedNotification, claimedOf, SUBSCRIBER_MAIL_CHANNEL_TYPE } from '../port-rules.js';
import type { AlertNotificationsTable, PostgresSchema } from './database.js';

type Row = { [K in keyof AlertNotificationsTable]: AlertNotificationsTable[K] extends import('kysely').Generated<infer T> ? T : AlertNotificationsTable[K] };

/**
 * Queues PENDING notifications due at `nowMs`, on `db` or inside a transaction (an alert state's
 * transition queues its notifications in its own): the one INSERT of the outbox.
 */
export async function insertNotifications(db: Kysely<PostgresSchema>, notifications: readonly QueuedNotification[], nowMs: number): Promise<void> {
  if (notifications.length === 0) return;
  await db
    .insertInto('alert_notifications')
    .values(
      notifications.map((notification) => ({
        account_id: notification.accountId,
        id: notification.id,
        check_id: notification.checkId,
        alert_channel_id: notification.alertChannelId,
        channel_type: notification.channelType,
        alert_type: notification.alertType,
        delivery: 'PENDING',
        next_attempt_ms: nowMs,
        created_ms: nowMs,
        doc: notification.doc,
        settled_ms: null,
        last_error: null,
        notification_result: null,
        lease_owner: null,
        lease_until_ms: null,
      })),
    )
    .execute();
}

export class PostgresNotificationOutbox implements NotificationOutbox {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async enqueue(notification: QueuedNotification, nowMs: number): Promise<void> {
    checkQueuedNotification(notification);
    checkMoment('nowMs', nowMs);
    await insertNotifications(this.#db, [notification], nowMs);
  }

  async claimDue(owner: string, nowMs: number, leaseMs: number, limit: number): Promise<ClaimedNotification[]> {
    checkOutboxClaim(owner, nowMs, leaseMs, limit);
    const { rows } = await sql<Row>`
      UPDATE alert_notifications SET lease_owner = ${owner}, lease_until_ms = ${nowMs + leaseMs}
      WHERE seq IN (
        SELECT seq FROM alert_notifications
        WHERE delivery = 'PENDING' AND next_attempt_ms <= ${nowMs} AND (lease_until_ms IS NULL OR lease_until_ms <= ${nowMs})
        ORDER BY next_attempt_ms, seq
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      )
      RETURNING *`.execute(this.#db);
    return rows.sort((a, b) => (a.next_attempt_ms ?? 0) - (b.next_attempt_ms ?? 0) || a.seq - b.seq).map(claimedOf);
  }

  async settle(owner: string, id: string, outcome: { delivery: SettledDelivery; attempts: number; error: string | null; result: string | null }, nowMs: number): Promise<boolean> {
    checkOutboxOwner(owner, id);
    checkMoment('nowMs', nowMs);
    const result = await this.#db
      .updateTable('alert_notifications')
      .set({
        delivery: outcome.delivery,
        attempts: outcome.attempts,
        settled_ms: nowMs,
        next_attempt_ms: null,
        last_error: outcome.error,
        notification_result: outcome.result,
        lease_owner: null,
        lease_until_ms: null,
      })
      .where('id', '=', id)
      .where('delivery', '=', 'PENDING')
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async defer(owner: string, id: string, retry: { attempts: number; nextAttemptMs: number; error: string }): Promise<boolean> {
    checkOutboxOwner(owner, id);
    checkMoment('nextAttemptMs', retry.nextAttemptMs);
    const result = await this.#db
      .updateTable('alert_notifications')
      .set({ attempts: retry.attempts, next_attempt_ms: retry.nextAttemptMs, last_error: retry.error, lease_owner: null, lease_until_ms: null })
      .where('id', '=', id)
      .where('delivery', '=', 'PENDING')
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async release(owner: string, id: string): Promise<boolean> {
    checkOutboxOwner(owner, id);
    const result = await this.#db
      .updateTable('alert_notifications')
      .set({ lease_owner: null, lease_until_ms: null })
      .where('id', '=', id)
      .where('delivery', '=', 'PENDING')
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async find(id: string) {
    const row = await this.#db.selectFrom('alert_notifications').select(['delivery', 'attempts', 'lease_owner']).where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : { delivery: row.delivery as 'PENDING' | SettledDelivery, attempts: row.attempts, leaseOwner: row.lease_owner };
  }

  async log(accountId: string, query: NotificationLogQuery): Promise<{ items: LoggedNotification[]; total: number }> {
    checkNotificationLogQuery(accountId, query);
    const conditions = [
      sql`account_id = ${accountId}`,
      sql`created_ms >= ${query.fromMs}::bigint`,
      sql`created_ms < ${query.toMs}::bigint`,
      sql`channel_type <> ${SUBSCRIBER_MAIL_CHANNEL_TYPE}`,
    ];
    if (query.alertChannelId !== undefined) conditions.push(sql`alert_channel_id = ${query.alertChannelId}`);
    if (query.checkId !== undefined) conditions.push(sql`check_id = ${query.checkId}`);
    if (query.failed !== undefined) conditions.push(sql`(delivery = ANY(${[...FAILED_DELIVERIES]}::text[])) = ${query.failed}`);
    const where = sql.join(conditions, sql` AND `);
    // One statement, so the page and its count are of one snapshot (as documents.ts's pages).
    const { rows } = await sql<LoggedRow & { total: number; seq: string | null }>`
      SELECT page.*, counted.total FROM (SELECT count(*)::int AS total FROM alert_notifications WHERE ${where}) AS counted
      LEFT JOIN LATERAL (
        SELECT * FROM alert_notifications WHERE ${where} ORDER BY created_ms DESC, seq DESC LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}
      ) AS page ON true
      ORDER BY page.created_ms DESC, page.seq DESC`.execute(this.#db);
    // Past the last page the count still comes back, on one row without a notification.
    return { items: rows.filter((row) => row.id !== null).map(loggedOf), total: rows[0]?.total ?? 0 };
  }
}
