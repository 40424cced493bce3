/**
 * Alerting's SQL besides the outbox (outbox.ts): each check's alert state, the SSL alerts sent per
 * day, the incident a check's `triggerIncident` has open, and the notifications as
 * `GET /v1/alert-notifications` lists them.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import type { NotificationRow } from './outbox.js';

export class AlertStateTable {
  readonly #get: Statement;
  readonly #put: Statement;
  readonly #sslAlertDue: Statement;

  constructor(db: SqliteDatabase) {
    this.#get = db.prepare('SELECT doc FROM alert_states WHERE account_id = ? AND check_id = ?');
    this.#put = db.prepare('INSERT OR REPLACE INTO alert_states (account_id, check_id, doc) VALUES (?, ?, ?)');
    this.#sslAlertDue = db.prepare(
      `INSERT INTO ssl_expiry_alerts (account_id, check_id, alert_channel_id, day) VALUES (?, ?, ?, ?)
       ON CONFLICT (account_id, check_id, alert_channel_id) DO UPDATE SET day = excluded.day WHERE day < excluded.day`,
    );
  }

  /** The check's stored alert state (JSON), if it has one. */
  get(accountId: string, checkId: string): string | undefined {
    return (this.#get.get(accountId, checkId) as { doc: string } | undefined)?.doc;
  }

  put(accountId: string, checkId: string, doc: string): void {
    this.#put.run(accountId, checkId, doc);
  }

  /** Claims the day's SSL alert of a check for a channel: true only when none was sent that day (or later). */
  claimSslAlert(accountId: string, checkId: string, alertChannelId: unknown, day: number): boolean {
    return this.#sslAlertDue.run(accountId, checkId, alertChannelId, day).changes > 0;
  }
}

/** Which incident each check has open (`check_incidents`). */
export class CheckIncidentTable {
  readonly #openOf: Statement;
  readonly #remember: Statement;
  readonly #forget: Statement;

  constructor(db: SqliteDatabase) {
    this.#openOf = db.prepare('SELECT incident_id FROM check_incidents WHERE account_id = ? AND check_id = ?');
    this.#remember = db.prepare('INSERT OR REPLACE INTO check_incidents (account_id, check_id, incident_id) VALUES (?, ?, ?)');
    this.#forget = db.prepare('DELETE FROM check_incidents WHERE account_id = ? AND check_id = ?');
  }

  openIncidentId(accountId: string, checkId: string): string | undefined {
    return (this.#openOf.get(accountId, checkId) as { incident_id: string } | undefined)?.incident_id;
  }

  remember(accountId: string, checkId: string, incidentId: string): void {
    this.#remember.run(accountId, checkId, incidentId);
  }

  forget(accountId: string, checkId: string): void {
    this.#forget.run(accountId, checkId);
  }
}

/** The notifications of one account as the API lists them. */
export class NotificationLogTable {
  readonly #inWindow: Statement;
  readonly #excluded: string;

  /** `excludedChannelType`: outbox rows that are no alert channel's notifications (subscriber e-mails). */
  constructor(db: SqliteDatabase, excludedChannelType: string) {
    this.#inWindow = db.prepare(
      `SELECT * FROM alert_notifications WHERE account_id = ? AND created_ms >= ? AND created_ms < ?
       AND (? IS NULL OR alert_channel_id = ?) AND channel_type <> ? ORDER BY created_ms DESC, seq DESC`,
    );
    this.#excluded = excludedChannelType;
  }

  /** Rows created in `[fromMs, toMs)`, of one channel when given, newest first (ties: the later written first). */
  inWindow(accountId: string, fromMs: number, toMs: number, alertChannelId: number | null): NotificationRow[] {
    return this.#inWindow.all(accountId, fromMs, toMs, alertChannelId, alertChannelId, this.#excluded) as NotificationRow[];
  }
}
