/**
 * Steps 10-17: the read side's tables (once the `readside` scope, versions 1-8). Every table carries
 * `account_id` (or a series standing for one account's check), and every query filters on it, so
 * another tenant's id reads as missing. Documents are stored as JSON as the API returns them; the
 * columns next to them exist only for filtering and ordering.
 */
import type { SqliteDatabase } from '../../database.js';
import { compactResultRow, type ResultDocument } from '../check-results.js';
import { backfillRollups } from '../rollups.js';
import type { SqliteStep } from './step.js';

/**
 * The compact results table (step 14). `series` stands for one (account, check) pair
 * of `result_series`, so the rows and both indexes carry a small integer instead of two ids, and a
 * query by series is a query within one tenant's check.
 */
const COMPACT_RESULTS_SQL = `
  CREATE TABLE IF NOT EXISTS result_series (
    key INTEGER PRIMARY KEY,
    account_id TEXT NOT NULL,
    check_id TEXT NOT NULL,
    UNIQUE (account_id, check_id)
  );
  CREATE TABLE check_results (
    series INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    id NOT NULL,
    final INTEGER NOT NULL,
    has_failures INTEGER NOT NULL,
    run_location TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    response_time REAL,
    status_code INTEGER,
    phases TEXT,
    encoding INTEGER NOT NULL,
    body BLOB NOT NULL
  );
  CREATE UNIQUE INDEX check_results_series_id ON check_results (series, id);
  CREATE INDEX check_results_series_time ON check_results (series, created_ms);
`;

/** The rollup tables (step 15). Not named check_results_*: the stored-size benchmark sums those. */
const ROLLUPS_SQL = [
  ...['result_rollups_hourly', 'result_rollups_daily'].map((table) => `
    CREATE TABLE ${table} (
      series INTEGER NOT NULL,
      start_ms INTEGER NOT NULL,
      location TEXT NOT NULL,
      results INTEGER NOT NULL,
      failures INTEGER NOT NULL,
      degraded INTEGER NOT NULL,
      attempts INTEGER NOT NULL,
      rt_count INTEGER NOT NULL,
      rt_sum REAL NOT NULL,
      rt_sq_sum REAL NOT NULL,
      rt_min REAL,
      rt_max REAL,
      rt_hist TEXT NOT NULL,
      UNIQUE (series, start_ms, location)
    );
    CREATE INDEX ${table}_start ON ${table} (start_ms);`),
  `CREATE TABLE rollup_horizons (
    name TEXT PRIMARY KEY,
    before_ms INTEGER NOT NULL
  );`,
].join('\n');

/** What step 17 adds to the compact results table of step 14. */
const RESULT_REFERENCES_SQL = `
  ALTER TABLE check_results ADD COLUMN ref INTEGER;
  CREATE TABLE check_results_references (
    key INTEGER PRIMARY KEY,
    series INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    current INTEGER NOT NULL,
    uses INTEGER NOT NULL,
    doc BLOB NOT NULL
  );
  CREATE UNIQUE INDEX check_results_references_current ON check_results_references (series) WHERE current = 1;
  CREATE TABLE check_results_locations (
    key INTEGER PRIMARY KEY,
    name TEXT NOT NULL
  );
  CREATE UNIQUE INDEX check_results_locations_name ON check_results_locations (name);
  CREATE UNIQUE INDEX check_results_explicit_id ON check_results (series, id) WHERE typeof(id) <> 'integer';
  DROP INDEX check_results_series_id;
  CREATE TRIGGER check_results_release_reference AFTER DELETE ON check_results WHEN old.ref IS NOT NULL BEGIN
    UPDATE check_results_references SET uses = uses - 1 WHERE key = old.ref;
    DELETE FROM check_results_references WHERE key = old.ref AND uses <= 0 AND current = 0;
  END;
`;

export const READSIDE_STEPS: readonly SqliteStep[] = [
  {
    step: 10,
    was: { scope: 'readside', version: 1 },
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
    step: 11,
    was: { scope: 'readside', version: 2 },
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
    step: 12,
    was: { scope: 'readside', version: 3 },
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
    step: 13,
    was: { scope: 'readside', version: 4 },
    name: 'check-group trigger ids counted per account',
    up: (db) => {
      // A trigger's id was its row's, one counter for every tenant; new triggers
      // take per-account ids (store/sqlite/id-counters.ts) above every id handed out before.
      db.prepare("INSERT INTO id_floors (collection, floor) SELECT 'check_group_triggers', coalesce(max(id), 0) FROM check_group_triggers").run();
    },
  },
  {
    step: 14,
    was: { scope: 'readside', version: 5 },
    name: 'check results in compact rows',
    up: (db) => compactCheckResults(db),
  },
  {
    step: 15,
    was: { scope: 'readside', version: 6 },
    name: 'hourly and daily rollups of check results',
    up: (db) => {
      db.exec(ROLLUPS_SQL);
      backfillRollups(db);
    },
  },
  {
    step: 16,
    was: { scope: 'readside', version: 7 },
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
    step: 17,
    was: { scope: 'readside', version: 8 },
    name: 'check results as deltas from reference results, derived ids, location keys',
    // Only adds: rows stored before keep ENCODING_V1 and read as they are; the index on every id
    // becomes one on the ids that are not derived (result-rows.ts), built from the rows there are.
    up: (db) => db.exec(RESULT_REFERENCES_SQL),
  },
];

/**
 * Step 14: results move from one JSON document per row (about 1.5 kB for a passing API run) to
 * the compact rows of store/formats/result-codec.ts, keyed by a small per-(account, check) series number instead
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
    for (const row of rows) insert(row.account_id, JSON.parse(row.doc) as ResultDocument);
  }
  db.exec('DROP TABLE check_results_v1');
}
