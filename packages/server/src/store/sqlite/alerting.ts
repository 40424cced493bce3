/**
 * Alerting's SQL besides the outbox (outbox.ts, which also lists notifications for
 * `GET /v1/alert-notifications`): each check's alert state and the SSL alerts sent per day (the
 * incident a check's `triggerIncident` has open is the incidents port's, incidents-port.ts).
 *
 * Alerting (alerting/index.ts) moves the state through `SqliteAlertStates`, the versioned
 * compare-and-set of the async port, which queues its notifications with the outbox's own statement;
 * `AlertStateTable` is its SQL.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import type { AlertStates, QueuedNotification, VersionedAlertState } from '../ports.js';
import { checkAlertStateKey, checkAlertTransition, checkSslAlertClaims } from '../port-rules.js';
import { committed, type BatchedSqlite } from './batched.js';
import { OutboxTable } from './outbox.js';

export class AlertStateTable {
  readonly #read: Statement;
  readonly #create: Statement;
  readonly #replace: Statement;
  readonly #sslAlertDue: Statement;

  constructor(db: SqliteDatabase) {
    this.#read = db.prepare('SELECT doc, version FROM alert_states WHERE account_id = ? AND check_id = ?');
    this.#create = db.prepare('INSERT INTO alert_states (account_id, check_id, doc, version) VALUES (?, ?, ?, 1) ON CONFLICT (account_id, check_id) DO NOTHING');
    this.#replace = db.prepare('UPDATE alert_states SET doc = ?, version = version + 1 WHERE account_id = ? AND check_id = ? AND version = ?');
    this.#sslAlertDue = db.prepare(
      `INSERT INTO ssl_expiry_alerts (account_id, check_id, alert_channel_id, day) VALUES (?, ?, ?, ?)
       ON CONFLICT (account_id, check_id, alert_channel_id) DO UPDATE SET day = excluded.day WHERE day < excluded.day`,
    );
  }

  /** The check's stored alert state (JSON) and its version, if it has one. */
  read(accountId: string, checkId: string): VersionedAlertState | undefined {
    const row = this.#read.get(accountId, checkId) as { doc: string; version: number } | undefined;
    return row && { state: row.doc, version: row.version };
  }

  /** Stores the state only if its version is `expectedVersion` (0: no state yet); whether it did. */
  compareAndSet(accountId: string, checkId: string, expectedVersion: number, doc: string): boolean {
    const result = expectedVersion === 0 ? this.#create.run(accountId, checkId, doc) : this.#replace.run(doc, accountId, checkId, expectedVersion);
    return result.changes > 0;
  }

  /** Claims the day's SSL alert of a check for a channel: true only when none was sent that day (or later). */
  claimSslAlert(accountId: string, checkId: string, alertChannelId: unknown, day: number): boolean {
    return this.#sslAlertDue.run(accountId, checkId, alertChannelId, day).changes > 0;
  }
}

export class SqliteAlertStates implements AlertStates {
  readonly #store: BatchedSqlite;
  readonly #states: AlertStateTable;
  readonly #outbox: OutboxTable;

  constructor(store: BatchedSqlite) {
    this.#store = store;
    this.#states = new AlertStateTable(store.db);
    this.#outbox = new OutboxTable(store.db);
  }

  async read(accountId: string, checkId: string): Promise<VersionedAlertState | undefined> {
    checkAlertStateKey(accountId, checkId);
    return this.#states.read(accountId, checkId);
  }

  async transition(
    accountId: string,
    checkId: string,
    expectedVersion: number,
    nextState: string,
    notifications: readonly QueuedNotification[],
    nowMs: number,
  ): Promise<boolean> {
    checkAlertTransition(accountId, checkId, expectedVersion, nextState, notifications, nowMs);
    // The write comes first, so the transaction holds the write lock before it reads anything.
    return committed(this.#store, () => {
      if (!this.#states.compareAndSet(accountId, checkId, expectedVersion, nextState)) return false;
      for (const notification of notifications) this.#outbox.insert(notification, nowMs);
      return true;
    });
  }

  async queueDailySslAlerts(accountId: string, checkId: string, day: number, notifications: readonly QueuedNotification[], nowMs: number): Promise<string[]> {
    checkSslAlertClaims(accountId, checkId, day, notifications, nowMs);
    if (notifications.length === 0) return [];
    return committed(this.#store, () => {
      const queued: string[] = [];
      for (const notification of notifications) {
        if (!this.#states.claimSslAlert(accountId, checkId, notification.alertChannelId, day)) continue;
        this.#outbox.insert(notification, nowMs);
        queued.push(notification.id);
      }
      return queued;
    });
  }
}
