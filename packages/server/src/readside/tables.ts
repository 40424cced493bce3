/**
 * The read side's own tables, as numbered steps of the `readside` migration scope (append new steps,
 * never rewrite old ones). Every table carries `account_id`, and every query filters on it, so another
 * tenant's id reads as missing. Documents are stored as JSON as the API returns them; the columns
 * next to them exist only for filtering and ordering.
 */
import type { Migration, SqliteDatabase } from '../store/index.js';
import { compactResultRow, COMPACT_RESULTS_SQL, type StoredResult } from './results-store.js';
import { RESULT_REFERENCES_SQL } from './result-rows.js';
import { backfillRollups, ROLLUPS_SQL } from './rollups-store.js';

export const READSIDE_SCOPE = 'readside';

export const READSIDE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'check results, heartbeat events, error groups',
    up: (db) => {
      db.exec(`
        CREATE TABLE check_results (
          account_id TEXT NOT NULL,
          id TEXT NOT NULL,
          check_id TEXT NOT NULL,
          created_ms INTEGER NOT NULL,
          doc TEXT NOT NULL,
          PRIMARY KEY (account_id, id)
        );
        CREATE INDEX check_results_check_time ON check_results (account_id, check_id, created_ms);

        CREATE TABLE heartbeat_events (
          account_id TEXT NOT NULL,
          id TEXT NOT NULL,
          check_id TEXT NOT NULL,
          at_ms INTEGER NOT NULL,
          doc TEXT NOT NULL,
          PRIMARY KEY (account_id, id)
        );
        CREATE INDEX heartbeat_events_check_time ON heartbeat_events (account_id, check_id, at_ms);

        CREATE TABLE error_groups (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          account_id TEXT NOT NULL,
          id TEXT NOT NULL UNIQUE,
          check_id TEXT NOT NULL,
          error_hash TEXT NOT NULL,
          state TEXT NOT NULL,
          UNIQUE (account_id, check_id, error_hash)
        );
        CREATE INDEX error_groups_check ON error_groups (account_id, check_id, seq);
      `);
    },
  },
  {
    version: 2,
    name: 'status pages, subscriptions, incidents',
    up: (db) => {
      db.exec(`
        CREATE TABLE status_pages (
          account_id TEXT NOT NULL,
          id TEXT NOT NULL,
          doc TEXT NOT NULL,
          PRIMARY KEY (account_id, id)
        );

        CREATE TABLE status_page_subscriptions (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          account_id TEXT NOT NULL,
          status_page_id TEXT NOT NULL,
          id TEXT NOT NULL,
          doc TEXT NOT NULL,
          UNIQUE (account_id, id)
        );
        CREATE INDEX status_page_subscriptions_page ON status_page_subscriptions (account_id, status_page_id, seq);

        CREATE TABLE incidents (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          account_id TEXT NOT NULL,
          id TEXT NOT NULL UNIQUE,
          state TEXT NOT NULL
        );
        CREATE INDEX incidents_account ON incidents (account_id, seq);
      `);
    },
  },
  {
    version: 3,
    name: 'account profiles, check-group triggers',
    up: (db) => {
      db.exec(`
        CREATE TABLE account_profiles (
          account_id TEXT PRIMARY KEY,
          doc TEXT NOT NULL
        );

        CREATE TABLE check_group_triggers (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          account_id TEXT NOT NULL,
          group_id INTEGER NOT NULL,
          doc TEXT NOT NULL,
          UNIQUE (account_id, group_id)
        );
      `);
    },
  },
  {
    version: 4,
    name: 'check-group trigger ids counted per account',
    up: (db) => {
      // A trigger's id was its row's, one counter for every tenant; new triggers
      // take per-account ids (store/id-counters.ts) above every id handed out before.
      db.prepare("INSERT INTO id_floors (collection, floor) SELECT 'check_group_triggers', coalesce(max(id), 0) FROM check_group_triggers").run();
    },
  },
  {
    version: 5,
    name: 'check results in compact rows',
    up: (db) => compactCheckResults(db),
  },
  {
    version: 6,
    name: 'hourly and daily rollups of check results',
    up: (db) => {
      db.exec(ROLLUPS_SQL);
      backfillRollups(db);
    },
  },
  {
    version: 7,
    name: 'status pages named by url and custom domain',
    up: (db) => {
      // A page is reached by its url (a subdomain) or custom domain alone, so each names one page of
      // the whole service; the unique indexes hold that even if a route forgot to check first.
      // Pages stored before (from --seed) have neither.
      db.exec(`
        ALTER TABLE status_pages ADD COLUMN url TEXT;
        ALTER TABLE status_pages ADD COLUMN custom_domain TEXT;
        CREATE UNIQUE INDEX status_pages_url ON status_pages (url) WHERE url IS NOT NULL;
        CREATE UNIQUE INDEX status_pages_custom_domain ON status_pages (custom_domain) WHERE custom_domain IS NOT NULL;
      `);
    },
  },
  {
    version: 8,
    name: 'check results as deltas from reference results, derived ids, location keys',
    // Only adds: rows stored before keep ENCODING_V1 and read as they are; the index on every id
    // becomes one on the ids that are not derived (result-rows.ts), built from the rows there are.
    up: (db) => db.exec(RESULT_REFERENCES_SQL),
  },
];

/**
 * Migration 5: results move from one JSON document per row (about 1.5 kB for a passing API run) to
 * the compact rows of result-codec.ts, keyed by a small per-(account, check) series number instead
 * of both ids. Every stored result is carried over as it was (the passing-run reduction applies to
 * results recorded from then on), in the order it was stored.
 */
function compactCheckResults(db: SqliteDatabase): void {
  db.exec(`ALTER TABLE check_results RENAME TO check_results_v1;
    DROP INDEX check_results_check_time;`);
  db.exec(COMPACT_RESULTS_SQL);
  const insert = compactResultRow(db);
  // In batches: a statement cannot write while another on the connection is still reading.
  const batch = db.prepare('SELECT rowid, account_id, doc FROM check_results_v1 WHERE rowid > ? ORDER BY rowid LIMIT 1000');
  for (let rows = batch.all(0) as Array<{ rowid: number; account_id: string; doc: string }>; rows.length > 0; rows = batch.all(rows.at(-1)!.rowid) as typeof rows) {
    for (const row of rows) insert(row.account_id, JSON.parse(row.doc) as StoredResult);
  }
  db.exec('DROP TABLE check_results_v1');
}
