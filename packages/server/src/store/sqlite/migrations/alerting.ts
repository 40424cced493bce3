/**
 * Steps 7-9: the alerting tables (once the `alerting` scope, versions 1-3).
 * `alert_states` holds each check's AlertState; `alert_notifications` is the outbox: a row is written
 * in the transaction that changes the state, and stays PENDING until a delivery attempt settles it,
 * so a restart neither forgets a notification nor sends a settled one again.
 * `check_incidents` is the incident a check's `triggerIncident` has open (at most one per check);
 * `ssl_expiry_alerts` the UTC day each channel last got a check's SSL expiry alert (once a day).
 * Step 9 gives outbox rows a lease (owner, expiry), so that replicas sharing a database each deliver
 * a notification they claimed, and another delivers it once a dead replica's lease has run out.
 */
import type { SqliteStep } from './step.js';

export const ALERTING_STEPS: readonly SqliteStep[] = [
  {
    step: 7,
    was: { scope: 'alerting', version: 1 },
    name: 'alert states, notification outbox',
    up: (db) => {
      db.exec(`
        CREATE TABLE alert_states (
          account_id TEXT NOT NULL,
          check_id TEXT NOT NULL,
          doc TEXT NOT NULL,
          PRIMARY KEY (account_id, check_id)
        );

        CREATE TABLE alert_notifications (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          account_id TEXT NOT NULL,
          id TEXT NOT NULL UNIQUE,
          check_id TEXT NOT NULL,
          alert_channel_id INTEGER NOT NULL,
          channel_type TEXT NOT NULL,
          alert_type TEXT NOT NULL,
          delivery TEXT NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0,
          next_attempt_ms INTEGER,
          created_ms INTEGER NOT NULL,
          settled_ms INTEGER,
          last_error TEXT,
          notification_result TEXT,
          doc TEXT NOT NULL
        );
        CREATE INDEX alert_notifications_pending ON alert_notifications (delivery, next_attempt_ms);
        CREATE INDEX alert_notifications_account ON alert_notifications (account_id, created_ms);
      `);
    },
  },
  {
    step: 8,
    was: { scope: 'alerting', version: 2 },
    name: 'incidents opened by checks, SSL expiry alert days',
    up: (db) => {
      db.exec(`
        CREATE TABLE check_incidents (
          account_id TEXT NOT NULL,
          check_id TEXT NOT NULL,
          incident_id TEXT NOT NULL,
          PRIMARY KEY (account_id, check_id)
        );

        CREATE TABLE ssl_expiry_alerts (
          account_id TEXT NOT NULL,
          check_id TEXT NOT NULL,
          alert_channel_id INTEGER NOT NULL,
          day INTEGER NOT NULL,
          PRIMARY KEY (account_id, check_id, alert_channel_id)
        );
      `);
    },
  },
  {
    step: 9,
    was: { scope: 'alerting', version: 3 },
    name: 'outbox leases',
    up: (db) => {
      db.exec(`
        ALTER TABLE alert_notifications ADD COLUMN lease_owner TEXT;
        ALTER TABLE alert_notifications ADD COLUMN lease_until_ms INTEGER;
      `);
    },
  },
];
