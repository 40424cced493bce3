/**
 * The notification outbox in SQLite (`alert_notifications`, created by steps 7 and 9 of migrations/alerting.ts).
 * Alerting queues with `OutboxTable.insert` synchronously inside the alert state's transaction; the
 * delivery worker (alerting/outbox.ts) claims, settles and defers through `SqliteNotificationOutbox`,
 * the same SQL behind the async port.
 *
 * Settling and deferring name the lease owner (`lease_owner IS ?`): a process that claimed a row can
 * settle it only while it still holds the lease, so one whose lease ran out cannot overwrite the
 * outcome recorded by the one that took over.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import { checkNotificationLogQuery, FAILED_DELIVERIES, loggedOf, type LoggedRow } from '../notification-log-rules.js';
import type { ClaimedNotification, LoggedNotification, NotificationLogQuery, NotificationOutbox, QueuedNotification, SettledDelivery } from '../ports.js';
import { checkMoment, checkOutboxClaim, checkOutboxOwner, checkQueuedNotification, claimedOf, SUBSCRIBER_MAIL_CHANNEL_TYPE } from '../port-rules.js';
import { committed, type BatchedSqlite } from './batched.js';

/** An outbox row as stored. */
export interface NotificationRow {
  seq: number;
  account_id: string;
  id: string;
  check_id: string;
  alert_channel_id: number;
  channel_type: string;
  alert_type: string;
  delivery: 'PENDING' | SettledDelivery;
  attempts: number;
  next_attempt_ms: number | null;
  created_ms: number;
  settled_ms: number | null;
  last_error: string | null;
  notification_result: string | null;
  doc: string;
  lease_owner: string | null;
  lease_until_ms: number | null;
}

export class OutboxTable {
  readonly #insert: Statement;
  readonly #claim: Statement;
  readonly #settle: Statement;
  readonly #defer: Statement;
  readonly #release: Statement;
  readonly #find: Statement;

  constructor(db: SqliteDatabase) {
    this.#insert = db.prepare(
      `INSERT INTO alert_notifications (account_id, id, check_id, alert_channel_id, channel_type, alert_type, delivery, next_attempt_ms, created_ms, doc)
       VALUES (?, ?, ?, ?, ?, ?, 'PENDING', ?, ?, ?)`,
    );
    // One statement: SQLite runs it under the write lock, so no other connection claims the same rows.
    this.#claim = db.prepare(
      `UPDATE alert_notifications SET lease_owner = ?, lease_until_ms = ?
       WHERE seq IN (SELECT seq FROM alert_notifications
                     WHERE delivery = 'PENDING' AND next_attempt_ms <= ? AND (lease_until_ms IS NULL OR lease_until_ms <= ?)
                     ORDER BY next_attempt_ms, seq LIMIT ?)
       RETURNING *`,
    );
    this.#settle = db.prepare(
      `UPDATE alert_notifications SET delivery = ?, attempts = ?, settled_ms = ?, next_attempt_ms = NULL, last_error = ?, notification_result = ?,
         lease_owner = NULL, lease_until_ms = NULL
       WHERE id = ? AND delivery = 'PENDING' AND lease_owner IS ?`,
    );
    this.#defer = db.prepare(
      `UPDATE alert_notifications SET attempts = ?, next_attempt_ms = ?, last_error = ?, lease_owner = NULL, lease_until_ms = NULL
       WHERE id = ? AND delivery = 'PENDING' AND lease_owner IS ?`,
    );
    this.#release = db.prepare("UPDATE alert_notifications SET lease_owner = NULL, lease_until_ms = NULL WHERE id = ? AND delivery = 'PENDING' AND lease_owner = ?");
    this.#find = db.prepare('SELECT delivery, attempts, lease_owner FROM alert_notifications WHERE id = ?');
  }

  insert(notification: QueuedNotification, nowMs: number): void {
    const { accountId, id, checkId, alertChannelId, channelType, alertType, doc } = notification;
    this.#insert.run(accountId, id, checkId, alertChannelId, channelType, alertType, nowMs, nowMs, doc);
  }

  claim(owner: string, nowMs: number, leaseMs: number, limit: number): NotificationRow[] {
    const rows = this.#claim.all(owner, nowMs + leaseMs, nowMs, nowMs, limit) as NotificationRow[];
    // RETURNING gives no order; claims are handed out oldest first.
    return rows.sort((a, b) => (a.next_attempt_ms ?? 0) - (b.next_attempt_ms ?? 0) || a.seq - b.seq);
  }

  settle(owner: string, id: string, outcome: { delivery: SettledDelivery; attempts: number; error: string | null; result: string | null }, nowMs: number): boolean {
    return this.#settle.run(outcome.delivery, outcome.attempts, nowMs, outcome.error, outcome.result, id, owner).changes > 0;
  }

  defer(owner: string, id: string, retry: { attempts: number; nextAttemptMs: number; error: string }): boolean {
    return this.#defer.run(retry.attempts, retry.nextAttemptMs, retry.error, id, owner).changes > 0;
  }

  release(owner: string, id: string): boolean {
    return this.#release.run(id, owner).changes > 0;
  }

  find(id: string): { delivery: string; attempts: number; lease_owner: string | null } | undefined {
    return this.#find.get(id) as { delivery: string; attempts: number; lease_owner: string | null } | undefined;
  }
}

/** What the log's two statements match: an account's notifications to alert channels, narrowed by what the query gives. */
const LOG_MATCH = `account_id = @accountId AND created_ms >= @fromMs AND created_ms < @toMs AND channel_type <> '${SUBSCRIBER_MAIL_CHANNEL_TYPE}'
  AND (@alertChannelId IS NULL OR alert_channel_id = @alertChannelId) AND (@checkId IS NULL OR check_id = @checkId)
  AND (@failed IS NULL OR (delivery IN (${FAILED_DELIVERIES.map((delivery) => `'${delivery}'`).join(', ')})) = @failed)`;

export class SqliteNotificationOutbox implements NotificationOutbox {
  readonly #store: BatchedSqlite;
  readonly #table: OutboxTable;
  readonly #logPage: Statement;
  readonly #logCount: Statement;

  constructor(store: BatchedSqlite) {
    this.#store = store;
    this.#table = new OutboxTable(store.db);
    this.#logPage = store.db.prepare(`SELECT * FROM alert_notifications WHERE ${LOG_MATCH} ORDER BY created_ms DESC, seq DESC LIMIT @limit OFFSET @offset`);
    this.#logCount = store.db.prepare(`SELECT count(*) AS total FROM alert_notifications WHERE ${LOG_MATCH}`);
  }

  async enqueue(notification: QueuedNotification, nowMs: number): Promise<void> {
    checkQueuedNotification(notification);
    checkMoment('nowMs', nowMs);
    await committed(this.#store, () => this.#table.insert(notification, nowMs));
  }

  async claimDue(owner: string, nowMs: number, leaseMs: number, limit: number): Promise<ClaimedNotification[]> {
    checkOutboxClaim(owner, nowMs, leaseMs, limit);
    return (await committed(this.#store, () => this.#table.claim(owner, nowMs, leaseMs, limit))).map(claimedOf);
  }

  async settle(owner: string, id: string, outcome: { delivery: SettledDelivery; attempts: number; error: string | null; result: string | null }, nowMs: number): Promise<boolean> {
    checkOutboxOwner(owner, id);
    checkMoment('nowMs', nowMs);
    return committed(this.#store, () => this.#table.settle(owner, id, outcome, nowMs));
  }

  async defer(owner: string, id: string, retry: { attempts: number; nextAttemptMs: number; error: string }): Promise<boolean> {
    checkOutboxOwner(owner, id);
    checkMoment('nextAttemptMs', retry.nextAttemptMs);
    return committed(this.#store, () => this.#table.defer(owner, id, retry));
  }

  async release(owner: string, id: string): Promise<boolean> {
    checkOutboxOwner(owner, id);
    return committed(this.#store, () => this.#table.release(owner, id));
  }

  async find(id: string) {
    const row = this.#table.find(id);
    return row === undefined ? undefined : { delivery: row.delivery as 'PENDING' | SettledDelivery, attempts: row.attempts, leaseOwner: row.lease_owner };
  }

  async log(accountId: string, query: NotificationLogQuery): Promise<{ items: LoggedNotification[]; total: number }> {
    checkNotificationLogQuery(accountId, query);
    const match = {
      accountId,
      fromMs: query.fromMs,
      toMs: query.toMs,
      alertChannelId: query.alertChannelId ?? null,
      checkId: query.checkId ?? null,
      failed: query.failed === undefined ? null : query.failed ? 1 : 0,
    };
    // Both read in this turn, so no write comes between the page and its count.
    const rows = this.#logPage.all({ ...match, limit: query.limit, offset: (query.page - 1) * query.limit }) as LoggedRow[];
    const { total } = this.#logCount.get(match) as { total: number };
    return { items: rows.map(loggedOf), total };
  }
}
