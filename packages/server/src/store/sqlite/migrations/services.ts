/**
 * Steps 18-26: the tables each module once created under its own scope, in the order a server
 * started them: check statuses, heartbeats, rate-limit windows, slot claims, state documents, the
 * public subscription form, dashboards, the service's identity, private locations. Step 19 indexes
 * `checks.check_type` (step 4), which is why every step of this file comes after the core ones.
 */
import { randomUUID } from 'node:crypto';
import { collectionTableSql } from '../../collection.js';
import type { SqliteStep } from './step.js';

const DASHBOARDS_SQL = `CREATE TABLE dashboards (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id TEXT NOT NULL,
    id TEXT NOT NULL,
    doc TEXT NOT NULL,
    dashboard_id TEXT NOT NULL UNIQUE,
    custom_url TEXT,
    custom_domain TEXT,
    UNIQUE (account_id, id)
  );
  CREATE INDEX dashboards_account_seq ON dashboards (account_id, seq);
  CREATE UNIQUE INDEX dashboards_custom_url ON dashboards (custom_url) WHERE custom_url IS NOT NULL;
  CREATE UNIQUE INDEX dashboards_custom_domain ON dashboards (custom_domain) WHERE custom_domain IS NOT NULL;`;

export const SERVICE_STEPS: readonly SqliteStep[] = [
  {
    step: 18,
    was: { scope: 'check-statuses', version: 1 },
    name: 'check statuses',
    up: (db) => {
      db.exec(`
        CREATE TABLE check_statuses (
          account_id TEXT NOT NULL,
          check_id TEXT NOT NULL,
          doc TEXT NOT NULL,
          PRIMARY KEY (account_id, check_id)
        );
      `);
    },
  },
  {
    step: 19,
    was: { scope: 'heartbeats', version: 1 },
    name: 'ping-token look-up, reported deadlines, processed pings',
    up: (db) => {
      db.exec(`
        -- Partial: only heartbeat rows pay for the expression, so writes of other checks do not.
        CREATE INDEX checks_heartbeat_ping_token ON checks (json_extract(doc, '$.heartbeat.pingToken')) WHERE check_type = 'HEARTBEAT';

        -- The last missed window reported per check (deadlines.ts): a window is reported once, also
        -- across restarts.
        CREATE TABLE heartbeat_deadlines (
          account_id TEXT NOT NULL,
          check_id TEXT NOT NULL,
          reported_due_ms INTEGER NOT NULL,
          PRIMARY KEY (account_id, check_id)
        );

        -- How far the pings in heartbeat_events have become results and alerts (a rowid).
        CREATE TABLE heartbeat_ping_cursor (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          event_rowid INTEGER NOT NULL
        );
      `);
    },
  },
  {
    step: 20,
    was: { scope: 'rate-limits', version: 1 },
    name: 'rate-limit windows',
    up: (db) => {
      // expires_ms is when the window ended as of its start: what the purge looks at.
      db.exec(`CREATE TABLE rate_windows (
        id TEXT PRIMARY KEY,
        started_ms INTEGER NOT NULL,
        hits INTEGER NOT NULL,
        expires_ms INTEGER NOT NULL
      );
      CREATE INDEX rate_windows_expiry ON rate_windows (expires_ms);`);
    },
  },
  {
    step: 21,
    // The scheduler created this table before slot claims became a port.
    was: { scope: 'scheduler', version: 1 },
    name: 'claimed slots',
    up: (db) => {
      db.exec(`
        CREATE TABLE scheduled_runs (
          account_id TEXT NOT NULL,
          slot_key TEXT NOT NULL,
          check_id TEXT NOT NULL,
          due_ms INTEGER NOT NULL,
          location TEXT NOT NULL,
          claimed_ms INTEGER NOT NULL,
          finished_ms INTEGER,
          PRIMARY KEY (account_id, slot_key)
        );
        CREATE INDEX scheduled_runs_due ON scheduled_runs (due_ms);
      `);
    },
  },
  {
    step: 22,
    was: { scope: 'state-documents', version: 1 },
    name: 'state documents and their locks',
    up: (db) => {
      db.exec(`
        CREATE TABLE state_documents (
          account_id TEXT NOT NULL,
          project TEXT NOT NULL,
          lineage TEXT NOT NULL,
          serial INTEGER NOT NULL,
          doc TEXT NOT NULL,
          updated_ms INTEGER NOT NULL,
          PRIMARY KEY (account_id, project)
        );
        CREATE TABLE state_locks (
          account_id TEXT NOT NULL,
          project TEXT NOT NULL,
          lock_id TEXT NOT NULL,
          info TEXT NOT NULL,
          created_ms INTEGER NOT NULL,
          PRIMARY KEY (account_id, project)
        );
      `);
    },
  },
  {
    step: 23,
    was: { scope: 'public-subscriptions', version: 1 },
    name: 'link secret, subscribe requests',
    up: (db) =>
      db.exec(`
            CREATE TABLE service_secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);
            CREATE TABLE subscribe_requests (
              seq INTEGER PRIMARY KEY AUTOINCREMENT,
              at_ms INTEGER NOT NULL,
              page_key TEXT NOT NULL,
              address_key TEXT NOT NULL,
              client_key TEXT NOT NULL,
              mailed INTEGER NOT NULL
            );
            CREATE INDEX subscribe_requests_address ON subscribe_requests (address_key, at_ms);
            CREATE INDEX subscribe_requests_client ON subscribe_requests (client_key, at_ms);
            CREATE INDEX subscribe_requests_page ON subscribe_requests (page_key, at_ms);
          `),
  },
  {
    step: 24,
    was: { scope: 'dashboards', version: 1 },
    name: 'dashboards',
    // The collection layout (collection.ts) plus the columns naming a dashboard across the service.
    up: (db) => db.exec(DASHBOARDS_SQL),
  },
  {
    step: 25,
    was: { scope: 'service-identity', version: 1 },
    name: 'service id',
    up: (db) => {
      db.exec('CREATE TABLE service_identity (id TEXT NOT NULL)');
      db.prepare('INSERT INTO service_identity (id) VALUES (?)').run(randomUUID());
    },
  },
  {
    step: 26,
    was: { scope: 'private-locations', version: 1 },
    name: 'private locations',
    up: (db) => db.exec(collectionTableSql('private_locations')),
  },
];
