/**
 * Steps 1-6: the resource collections, the alert-subscription index, idempotency keys and per-account
 * integer ids (once the `core` scope, versions 1-6).
 */
import { collectionTableSql } from '../../collection.js';
import type { SqliteDatabase } from '../../database.js';
import type { SqliteStep } from './step.js';

/** The collections whose public ids are integers (step 6 makes them per account). */
export const INTEGER_ID_TABLES = ['check_groups', 'maintenance_windows', 'alert_channels'] as const;

/**
 * Step 6 on one table: `id` unique per account instead of across the service, and the ids the
 * table has handed out so far remembered as its floor, so no account is ever given an id that an
 * older vigil already used (and may have deleted) in that table.
 */
function perAccountIds(db: SqliteDatabase, table: string): void {
  const highWater = (db.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').get(table) as { seq: number } | undefined)?.seq ?? 0;
  db.exec(`CREATE TABLE ${table}__new (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id TEXT NOT NULL,
    id TEXT NOT NULL,
    doc TEXT NOT NULL,
    UNIQUE (account_id, id)
  );
  INSERT INTO ${table}__new (seq, account_id, id, doc) SELECT seq, account_id, id, doc FROM ${table};
  DROP TABLE ${table};
  ALTER TABLE ${table}__new RENAME TO ${table};
  CREATE INDEX ${table}_account_seq ON ${table} (account_id, seq);`);
  // Row order (`seq`) must not restart either: keep the old high-water mark.
  db.prepare('DELETE FROM sqlite_sequence WHERE name = ?').run(table);
  if (highWater > 0) db.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(table, highWater);
  db.prepare('INSERT INTO id_floors (collection, floor) VALUES (?, ?)').run(table, highWater);
}

export const CORE_STEPS: readonly SqliteStep[] = [
  {
    step: 1,
    was: { scope: 'core', version: 1 },
    name: 'resource collections',
    up: (db) => {
      for (const table of ['checks', 'check_groups', 'maintenance_windows', 'services', 'alert_channels']) {
        db.exec(collectionTableSql(table));
      }
      // Look-ups the conventions need: list filter by type, "which checks still use this group /
      // service" for 409s and the service's `checks`.
      db.exec(`
        CREATE INDEX checks_account_type ON checks (account_id, json_extract(doc, '$.checkType'));
        CREATE INDEX checks_account_group ON checks (account_id, json_extract(doc, '$.groupId'));
        CREATE INDEX checks_account_service ON checks (account_id, json_extract(doc, '$.triggerIncident.serviceId'));
      `);
    },
  },
  {
    step: 2,
    was: { scope: 'core', version: 2 },
    name: 'alert channel subscriptions',
    up: (db) => {
      // The check or group documents hold their subscriptions; this table is the reverse index, kept
      // in the same transaction, so a channel can list its subscribers without scanning every check.
      db.exec(`CREATE TABLE alert_subscriptions (
        account_id TEXT NOT NULL,
        channel_id INTEGER NOT NULL,
        owner_kind TEXT NOT NULL CHECK (owner_kind IN ('check', 'group')),
        owner_id TEXT NOT NULL,
        activated INTEGER NOT NULL,
        PRIMARY KEY (account_id, owner_kind, owner_id, channel_id)
      );
      CREATE INDEX alert_subscriptions_channel ON alert_subscriptions (account_id, channel_id);`);
    },
  },
  {
    step: 3,
    was: { scope: 'core', version: 3 },
    name: 'idempotency keys',
    up: (db) => {
      db.exec(`CREATE TABLE idempotency_keys (
        account_id TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status INTEGER NOT NULL,
        body TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (account_id, key)
      );
      CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);`);
    },
  },
  {
    step: 4,
    was: { scope: 'core', version: 4 },
    name: 'plain columns instead of JSON expression indexes on checks',
    up: (db) => {
      // Expression indexes made SQLite parse every check document three times per write; the
      // collection now copies these values into columns (see IndexedColumn).
      db.exec(`
        DROP INDEX checks_account_type;
        DROP INDEX checks_account_group;
        DROP INDEX checks_account_service;
        ALTER TABLE checks ADD COLUMN check_type TEXT;
        ALTER TABLE checks ADD COLUMN group_id INTEGER;
        ALTER TABLE checks ADD COLUMN service_id TEXT;
        UPDATE checks SET
          check_type = json_extract(doc, '$.checkType'),
          group_id = json_extract(doc, '$.groupId'),
          service_id = json_extract(doc, '$.triggerIncident.serviceId');
        CREATE INDEX checks_account_type ON checks (account_id, check_type);
        CREATE INDEX checks_account_group ON checks (account_id, group_id) WHERE group_id IS NOT NULL;
        CREATE INDEX checks_account_service ON checks (account_id, service_id) WHERE service_id IS NOT NULL;
      `);
    },
  },
  {
    step: 5,
    was: { scope: 'core', version: 5 },
    name: 'secret flag column on checks',
    up: (db) => {
      // Whether a check holds a secret environment variable (its value is hidden on the way out), so a
      // list can tell from a column which pages SQLite may serialise as stored and which need JS.
      // The predicate matches hideSecretValues: an array element whose `secret` is JSON true.
      db.exec(`
        ALTER TABLE checks ADD COLUMN has_secret INTEGER NOT NULL DEFAULT 0;
        UPDATE checks SET has_secret = 1
          WHERE json_type(doc, '$.environmentVariables') = 'array'
            AND EXISTS (SELECT 1 FROM json_each(doc, '$.environmentVariables') WHERE json_type(value, '$.secret') = 'true');
      `);
    },
  },
  {
    step: 6,
    was: { scope: 'core', version: 6 },
    name: 'integer ids counted per account',
    up: (db) => {
      // Integer ids came from one counter shared by every tenant, so the id of a new group told a
      // tenant how many groups every other tenant had created since. Each account
      // now counts its own; ids of deleted resources are still never handed out again.
      db.exec(`CREATE TABLE id_counters (
        collection TEXT NOT NULL,
        account_id TEXT NOT NULL,
        last_id INTEGER NOT NULL,
        PRIMARY KEY (collection, account_id)
      );
      CREATE TABLE id_floors (collection TEXT PRIMARY KEY, floor INTEGER NOT NULL);`);
      for (const table of INTEGER_ID_TABLES) perAccountIds(db, table);
    },
  },
];
