/**
 * Step 31 on: what the storage ports (../../ports.ts) need so that replicas sharing a database act
 * as one service. Step 31 versions each check's alert state, so a transition is a compare-and-set.
 * Rows stored before it start at version 1, the version of a state stored once. Step 32 keeps each
 * heartbeat's deadline in the database (the in-process watch keeps it in memory), so replicas claim
 * missed windows from one table, and records who reported a window. Step 33 records when each
 * periodic job (pruning) last ran, so one replica runs it per period. Step 34 is the documents' change
 * feed (checks, groups, channels, windows, services): each write's position, in commit order, so every
 * replica's scheduler learns what another one changed. Step 35 makes a heartbeat's claimed window a
 * lease until its holder confirms the failing result stored: a holder that died in between leaves a
 * lease that runs out, and the window is claimed again. Windows claimed before it count as confirmed.
 * Step 36 hands pings out to become results by claims, as leases, instead of one cursor every
 * replica moves: each event is pending until its result is confirmed. Events past the cursor (stored
 * while the scheduler was off) stay pending; the cursor's row now only says monitoring has started
 * on this database (without it, the first start skips every stored ping, as the cursor's first
 * position did). Step 39 records runner agents' presence (store/sqlite/agent-presence.ts): what each
 * agent of each queue last said, whichever process on the file it polled, so none records a run as
 * not executed while another's agent of its queue is live. Step 40 keeps slot claims as one row per
 * check and location, the highest slot claimed, instead of a row per slot kept two days.
 */
import type { SqliteStep } from './step.js';

export const REPLICA_STEPS: readonly SqliteStep[] = [
  {
    step: 31,
    name: 'alert states are versioned',
    up: (db) => {
      db.exec('ALTER TABLE alert_states ADD COLUMN version INTEGER NOT NULL DEFAULT 1');
    },
  },
  {
    step: 32,
    name: 'heartbeat deadlines in the database, who reported a window',
    up: (db) => {
      db.exec(`
        ALTER TABLE heartbeat_deadlines ADD COLUMN reported_by TEXT;
        -- next_due_ms: the next window's deadline not yet looked at, what a claim looks up.
        CREATE TABLE heartbeat_timings (
          account_id TEXT NOT NULL,
          check_id TEXT NOT NULL,
          period_ms INTEGER NOT NULL,
          grace_ms INTEGER NOT NULL,
          anchor_ms INTEGER NOT NULL,
          next_due_ms INTEGER NOT NULL,
          PRIMARY KEY (account_id, check_id)
        );
        CREATE INDEX heartbeat_timings_due ON heartbeat_timings (next_due_ms);
      `);
    },
  },
  {
    step: 33,
    name: 'periodic jobs',
    up: (db) => {
      db.exec(`CREATE TABLE periodic_jobs (
        name TEXT PRIMARY KEY,
        last_run_ms INTEGER NOT NULL,
        last_owner TEXT NOT NULL
      )`);
    },
  },
  {
    step: 34,
    name: 'documents change feed',
    up: (db) => {
      db.exec(`
        CREATE TABLE document_changes (
          position INTEGER PRIMARY KEY AUTOINCREMENT,
          kind TEXT NOT NULL,
          account_id TEXT NOT NULL,
          id TEXT NOT NULL,
          changed_ms INTEGER NOT NULL
        );
        CREATE INDEX document_changes_changed ON document_changes (changed_ms);
        -- The highest position pruned: a reader behind it has missed changes.
        CREATE TABLE document_changes_pruned (
          only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
          through_position INTEGER NOT NULL
        );
      `);
    },
  },
  {
    step: 35,
    name: 'heartbeat window claims are leases until confirmed',
    up: (db) => {
      db.exec(`
        -- lease_until_ms: null once the window is reported for good; claimed_anchor_ms: what a claim
        -- that hands the window out again returns as its anchor.
        ALTER TABLE heartbeat_deadlines ADD COLUMN lease_until_ms INTEGER;
        ALTER TABLE heartbeat_deadlines ADD COLUMN claimed_anchor_ms INTEGER;
        -- Partial: only windows in flight are in it, so the look-up for run-out leases stays small.
        CREATE INDEX heartbeat_deadlines_leased ON heartbeat_deadlines (lease_until_ms) WHERE lease_until_ms IS NOT NULL;
      `);
    },
  },
  {
    step: 36,
    name: 'heartbeat pings are claimed as leases until their results are confirmed',
    up: (db) => {
      db.exec(`
        -- The default reads every event stored so far as processed without rewriting a row; new
        -- events are inserted pending (store/sqlite/heartbeats.ts).
        ALTER TABLE heartbeat_events ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE heartbeat_events ADD COLUMN lease_owner TEXT;
        ALTER TABLE heartbeat_events ADD COLUMN lease_until_ms INTEGER;
        -- Without a cursor nothing is left pending: no watch ever started, and its first start would skip them.
        UPDATE heartbeat_events SET pending = 1 WHERE rowid > (SELECT event_rowid FROM heartbeat_ping_cursor WHERE id = 1);
        -- Partial: only pings on their way to a result are in it, so a claim's look-ups stay small. With
        -- the lease in it, whether a check has a live lease is one seek, not a read of each of its rows.
        CREATE INDEX heartbeat_events_pending ON heartbeat_events (account_id, check_id, lease_until_ms) WHERE pending = 1;
      `);
    },
  },
  {
    step: 37,
    name: 'status pages have a revision every write moves',
    up: (db) => {
      db.exec(`
        -- Rendered public pages are kept under this number (public-pages/page-cache.ts): moved by the
        -- triggers in the writing transaction, whoever writes (the API's units, --seed, another
        -- process on the file), so a page is rendered again after any committed write. Its one row
        -- is made by the first write (no row reads as 0), as document_changes_pruned's is.
        CREATE TABLE status_page_revision (
          only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
          revision INTEGER NOT NULL
        );
        CREATE TRIGGER status_pages_revision_insert AFTER INSERT ON status_pages BEGIN
          INSERT INTO status_page_revision (only_row, revision) VALUES (1, 1) ON CONFLICT (only_row) DO UPDATE SET revision = revision + 1;
        END;
        CREATE TRIGGER status_pages_revision_update AFTER UPDATE ON status_pages BEGIN
          INSERT INTO status_page_revision (only_row, revision) VALUES (1, 1) ON CONFLICT (only_row) DO UPDATE SET revision = revision + 1;
        END;
        CREATE TRIGGER status_pages_revision_delete AFTER DELETE ON status_pages BEGIN
          INSERT INTO status_page_revision (only_row, revision) VALUES (1, 1) ON CONFLICT (only_row) DO UPDATE SET revision = revision + 1;
        END;
      `);
    },
  },
  {
    step: 38,
    name: 'incident writes move the status pages revision',
    up: (db) => {
      db.exec(`
        -- Public pages show incidents: a rendered page is stale after any committed incident write,
        -- whoever made it (the API's units, a check's alerting, another process on the file).
        CREATE TRIGGER incidents_revision_insert AFTER INSERT ON incidents BEGIN
          INSERT INTO status_page_revision (only_row, revision) VALUES (1, 1) ON CONFLICT (only_row) DO UPDATE SET revision = revision + 1;
        END;
        CREATE TRIGGER incidents_revision_update AFTER UPDATE ON incidents BEGIN
          INSERT INTO status_page_revision (only_row, revision) VALUES (1, 1) ON CONFLICT (only_row) DO UPDATE SET revision = revision + 1;
        END;
        CREATE TRIGGER incidents_revision_delete AFTER DELETE ON incidents BEGIN
          INSERT INTO status_page_revision (only_row, revision) VALUES (1, 1) ON CONFLICT (only_row) DO UPDATE SET revision = revision + 1;
        END;
      `);
    },
  },
  {
    step: 39,
    name: "runner agents' presence",
    up: (db) => {
      db.exec(`
        -- account_id, private_location_id, key_id: set for a private location's agent (key_id: the key it polled with).
        CREATE TABLE agent_presence (
          queue TEXT NOT NULL,
          agent_id TEXT NOT NULL,
          location TEXT NOT NULL,
          account_id TEXT,
          private_location_id TEXT,
          key_id TEXT,
          agent_version TEXT NOT NULL,
          wire_version INTEGER NOT NULL,
          runs_in_flight INTEGER NOT NULL,
          last_seen_ms INTEGER NOT NULL,
          PRIMARY KEY (queue, agent_id)
        );
        CREATE INDEX agent_presence_seen ON agent_presence (last_seen_ms);
        CREATE INDEX agent_presence_key ON agent_presence (key_id) WHERE key_id IS NOT NULL;
      `);
    },
  },
  {
    step: 40,
    name: 'slot claims as one mark per check and location',
    up: (db) => {
      db.exec(`
        -- A row per check and location: the highest slot claimed (due_ms) and the highest finished,
        -- so the table does not grow with runs (store/sqlite/slot-claims.ts). prior_due_ms: the mark
        -- the last claim replaced, which that claim's RETURNING reads.
        CREATE TABLE slot_claims (
          account_id TEXT NOT NULL,
          check_id TEXT NOT NULL,
          location TEXT NOT NULL,
          due_ms INTEGER NOT NULL,
          claimed_ms INTEGER NOT NULL,
          prior_due_ms INTEGER,
          finished_due_ms INTEGER,
          finished_ms INTEGER,
          PRIMARY KEY (account_id, check_id, location)
        );
        -- The slots claimed before stay claimed: each check and location keeps its highest.
        INSERT INTO slot_claims (account_id, check_id, location, due_ms, claimed_ms, finished_due_ms, finished_ms)
        SELECT claimed.account_id, claimed.check_id, claimed.location, claimed.due_ms, claimed.claimed_ms, finished.due_ms, finished.finished_ms
        FROM (SELECT account_id, check_id, location, due_ms, claimed_ms,
                     row_number() OVER (PARTITION BY account_id, check_id, location ORDER BY due_ms DESC) AS rank
              FROM scheduled_runs) AS claimed
        LEFT JOIN (SELECT account_id, check_id, location, due_ms, finished_ms,
                          row_number() OVER (PARTITION BY account_id, check_id, location ORDER BY due_ms DESC) AS rank
                   FROM scheduled_runs WHERE finished_ms IS NOT NULL) AS finished
          ON finished.account_id = claimed.account_id AND finished.check_id = claimed.check_id AND finished.location = claimed.location AND finished.rank = 1
        WHERE claimed.rank = 1;
        DROP TABLE scheduled_runs;
      `);
    },
  },
];
