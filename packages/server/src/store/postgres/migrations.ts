/**
 * The PostgreSQL schema, as one numbered list of steps, and the runner that applies them.
 *
 * The runner takes a transaction-scoped advisory lock before it reads what is applied: replicas that
 * start at once queue on the lock, the first applies the missing steps, and the others then find them
 * applied and do nothing. PostgreSQL's DDL is transactional, so every step and its `vigil_migrations`
 * row commit together with the rest or not at all: a crash mid-migration leaves the schema as it was.
 *
 * Append steps; never edit one once committed, because databases have already run it. A database
 * migrated by a newer vigil has versions this list does not know: they are left alone, so an older
 * replica keeps running during a rolling upgrade.
 */
import { sql, type Kysely, type QueryExecutorProvider } from 'kysely';
import { narrowResultRows } from './narrow-result-rows.js';

export interface PostgresMigration {
  readonly version: number;
  readonly name: string;
  /** Runs inside the runner's transaction; statements are written as SQL text (`sql.raw`). */
  readonly up: (tx: QueryExecutorProvider) => Promise<void>;
}

/** Runs statements written as SQL text, one after the other (pg runs one statement per query here). */
function statements(...texts: string[]): (tx: QueryExecutorProvider) => Promise<void> {
  return async (tx) => {
    for (const text of texts) await sql.raw(text).execute(tx);
  };
}

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'idempotency keys',
    up: statements(
      `CREATE TABLE idempotency_keys (
        account_id TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status INTEGER NOT NULL,
        body TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (account_id, key)
      )`,
      'CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at)',
    ),
  },
  {
    version: 2,
    name: 'rate-limit windows',
    // UNLOGGED: every API request writes here, and a window is worth less than its WAL record. A
    // crash (or a failover to a standby) empties the table, which only restarts every window.
    up: statements(
      `CREATE UNLOGGED TABLE rate_windows (
        id TEXT PRIMARY KEY,
        started_ms BIGINT NOT NULL,
        hits BIGINT NOT NULL,
        expires_ms BIGINT NOT NULL
      )`,
      'CREATE INDEX rate_windows_expiry ON rate_windows (expires_ms)',
    ),
  },
  {
    version: 3,
    name: 'claimed slots',
    up: statements(
      `CREATE TABLE scheduled_runs (
        account_id TEXT NOT NULL,
        slot_key TEXT NOT NULL,
        check_id TEXT NOT NULL,
        due_ms BIGINT NOT NULL,
        location TEXT NOT NULL,
        claimed_ms BIGINT NOT NULL,
        finished_ms BIGINT,
        PRIMARY KEY (account_id, slot_key)
      )`,
      'CREATE INDEX scheduled_runs_due ON scheduled_runs (due_ms)',
    ),
  },
  {
    version: 4,
    name: 'notification outbox with leases',
    up: statements(
      `CREATE TABLE alert_notifications (
        seq BIGSERIAL PRIMARY KEY,
        account_id TEXT NOT NULL,
        id TEXT NOT NULL UNIQUE,
        check_id TEXT NOT NULL,
        alert_channel_id BIGINT NOT NULL,
        channel_type TEXT NOT NULL,
        alert_type TEXT NOT NULL,
        delivery TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_ms BIGINT,
        created_ms BIGINT NOT NULL,
        settled_ms BIGINT,
        last_error TEXT,
        notification_result TEXT,
        doc TEXT NOT NULL,
        lease_owner TEXT,
        lease_until_ms BIGINT
      )`,
      // Only PENDING rows are ever claimed: the index stays the size of the backlog, not the history.
      "CREATE INDEX alert_notifications_due ON alert_notifications (next_attempt_ms, seq) WHERE delivery = 'PENDING'",
      'CREATE INDEX alert_notifications_account ON alert_notifications (account_id, created_ms)',
    ),
  },
  {
    version: 5,
    name: 'versioned alert states',
    up: statements(
      `CREATE TABLE alert_states (
        account_id TEXT NOT NULL,
        check_id TEXT NOT NULL,
        doc TEXT NOT NULL,
        version BIGINT NOT NULL,
        PRIMARY KEY (account_id, check_id)
      )`,
    ),
  },
  {
    version: 6,
    name: 'heartbeat deadlines and reported windows',
    up: statements(
      `CREATE TABLE heartbeat_timings (
        account_id TEXT NOT NULL,
        check_id TEXT NOT NULL,
        period_ms BIGINT NOT NULL,
        grace_ms BIGINT NOT NULL,
        anchor_ms BIGINT NOT NULL,
        next_due_ms BIGINT NOT NULL,
        PRIMARY KEY (account_id, check_id)
      )`,
      'CREATE INDEX heartbeat_timings_due ON heartbeat_timings (next_due_ms)',
      `CREATE TABLE heartbeat_deadlines (
        account_id TEXT NOT NULL,
        check_id TEXT NOT NULL,
        reported_due_ms BIGINT NOT NULL,
        reported_by TEXT,
        PRIMARY KEY (account_id, check_id)
      )`,
    ),
  },
  {
    version: 7,
    name: 'periodic jobs',
    up: statements(
      `CREATE TABLE periodic_jobs (
        name TEXT PRIMARY KEY,
        last_run_ms BIGINT NOT NULL,
        last_owner TEXT NOT NULL
      )`,
    ),
  },
  {
    version: 8,
    name: 'check results by day, their references and rollups',
    // The rows are store/formats/result-row-codec.ts's, as SQLite keeps them, with two differences of
    // type only: `id_key` is the SQLite `id` column as bytes that sort the same way (a tag byte: 0 a
    // derived id's discriminator, 1 a text id, 2 a UUID's bytes), and packed phases and JSON phases
    // have a column each. Partitions (one per UTC day) are made by the engine (postgres/check-results.ts).
    up: statements(
      `CREATE TABLE result_series (
        key BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id TEXT NOT NULL,
        check_id TEXT NOT NULL,
        UNIQUE (account_id, check_id)
      )`,
      `CREATE TABLE check_results_locations (
        key BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name TEXT NOT NULL UNIQUE
      )`,
      // last_used_ms: the latest created_ms of a row using the reference, so that once the days up to
      // it are dropped a replaced reference is known to be unused (dropping a partition fires no trigger).
      `CREATE TABLE check_results_references (
        key BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        series BIGINT NOT NULL,
        created_ms BIGINT NOT NULL,
        current BOOLEAN NOT NULL,
        uses BIGINT NOT NULL,
        last_used_ms BIGINT NOT NULL,
        doc BYTEA NOT NULL
      )`,
      'CREATE UNIQUE INDEX check_results_references_current ON check_results_references (series) WHERE current',
      'CREATE INDEX check_results_references_retired ON check_results_references (last_used_ms) WHERE NOT current',
      `CREATE TABLE check_results (
        series BIGINT NOT NULL,
        created_ms BIGINT NOT NULL,
        id_key BYTEA NOT NULL,
        final SMALLINT NOT NULL,
        has_failures SMALLINT NOT NULL,
        run_location TEXT NOT NULL,
        attempts DOUBLE PRECISION NOT NULL,
        response_time DOUBLE PRECISION,
        status_code DOUBLE PRECISION,
        phases BYTEA,
        phases_json TEXT,
        encoding SMALLINT NOT NULL,
        body BYTEA NOT NULL,
        ref BIGINT,
        PRIMARY KEY (series, created_ms, id_key)
      ) PARTITION BY RANGE (created_ms)`,
      'CREATE INDEX check_results_explicit_id ON check_results (series, id_key) WHERE get_byte(id_key, 0) <> 0',
      ...['result_rollups_hourly', 'result_rollups_daily'].flatMap((table) => [
        `CREATE TABLE ${table} (
          series BIGINT NOT NULL,
          start_ms BIGINT NOT NULL,
          location TEXT NOT NULL,
          results BIGINT NOT NULL,
          failures BIGINT NOT NULL,
          degraded BIGINT NOT NULL,
          attempts DOUBLE PRECISION NOT NULL,
          rt_count BIGINT NOT NULL,
          rt_sum DOUBLE PRECISION NOT NULL,
          rt_sq_sum DOUBLE PRECISION NOT NULL,
          rt_min DOUBLE PRECISION,
          rt_max DOUBLE PRECISION,
          rt_hist JSONB NOT NULL,
          PRIMARY KEY (series, start_ms, location)
        )`,
        `CREATE INDEX ${table}_start ON ${table} (start_ms)`,
      ]),
      `CREATE TABLE rollup_horizons (
        name TEXT PRIMARY KEY,
        before_ms BIGINT NOT NULL
      )`,
    ),
  },
  {
    version: 9,
    name: 'documents and their change feed',
    // A table per kind, as SQLite keeps them (`seq` for insertion order, ids unique per account), with
    // `doc` as the text written, so responses keep their key order. What the list filters match is
    // copied into columns at every write (the name and an API check's URL folded as SQLite's `lower`
    // folds them, the tags as JSONB), so a filter never parses documents.
    up: statements(
      // Spelled out rather than taken from DOCUMENT_KINDS: a step never changes once databases ran it.
      ...['checks', 'check_groups', 'alert_channels', 'maintenance_windows', 'services'].flatMap((kind) => [
        `CREATE TABLE ${kind} (
          seq BIGSERIAL PRIMARY KEY,
          account_id TEXT NOT NULL,
          id TEXT NOT NULL,
          doc TEXT NOT NULL,
          name_folded TEXT,
          tags JSONB NOT NULL DEFAULT '[]'${
            kind === 'checks'
              ? `,
          check_type TEXT,
          api_url_folded TEXT,
          group_id BIGINT,
          service_id TEXT,
          has_secret SMALLINT NOT NULL DEFAULT 0`
              : ''
          },
          UNIQUE (account_id, id)
        )`,
        `CREATE INDEX ${kind}_account_seq ON ${kind} (account_id, seq)`,
      ]),
      `CREATE TABLE document_id_counters (
        kind TEXT NOT NULL,
        account_id TEXT NOT NULL,
        last_id BIGINT NOT NULL,
        PRIMARY KEY (kind, account_id)
      )`,
      `CREATE TABLE document_changes (
        position BIGSERIAL PRIMARY KEY,
        kind TEXT NOT NULL,
        account_id TEXT NOT NULL,
        id TEXT NOT NULL,
        changed_ms BIGINT NOT NULL
      )`,
      'CREATE INDEX document_changes_changed ON document_changes (changed_ms)',
      `CREATE TABLE document_changes_pruned (
        only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
        through_position BIGINT NOT NULL
      )`,
    ),
  },
  {
    version: 10,
    name: 'heartbeat window claims are leases until confirmed',
    // lease_until_ms null: reported for good (windows claimed before this step count as confirmed).
    // claimed_anchor_ms: what a claim that hands the window out again returns as its anchor.
    up: statements(
      'ALTER TABLE heartbeat_deadlines ADD COLUMN lease_until_ms BIGINT',
      'ALTER TABLE heartbeat_deadlines ADD COLUMN claimed_anchor_ms BIGINT',
      'CREATE INDEX heartbeat_deadlines_leased ON heartbeat_deadlines (lease_until_ms) WHERE lease_until_ms IS NOT NULL',
    ),
  },
  {
    version: 11,
    name: 'document changes are numbered once committed',
    // Writers add entries without a position and without a lock; `entry` orders them as written, and
    // whoever reads the feed gives the committed ones their positions (postgres/documents.ts). Entries
    // from before this step keep the positions they have.
    up: statements(
      'ALTER TABLE document_changes DROP CONSTRAINT document_changes_pkey',
      'ALTER TABLE document_changes ALTER COLUMN position DROP DEFAULT',
      'ALTER TABLE document_changes ALTER COLUMN position DROP NOT NULL',
      'DROP SEQUENCE document_changes_position_seq',
      'ALTER TABLE document_changes ADD COLUMN entry BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
      'CREATE UNIQUE INDEX document_changes_position ON document_changes (position)',
      'CREATE INDEX document_changes_unnumbered ON document_changes (entry) WHERE position IS NULL',
    ),
  },
  {
    version: 12,
    name: 'alert-channel subscriptions index',
    // The reverse index channel → checks and groups subscribed, rewritten with its owner's document
    // (SQLite's step 2); `seq` keeps each owner's subscriptions in the order written.
    up: statements(
      `CREATE TABLE alert_subscriptions (
        seq BIGSERIAL PRIMARY KEY,
        account_id TEXT NOT NULL,
        channel_id BIGINT NOT NULL,
        owner_kind TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        activated BOOLEAN NOT NULL,
        UNIQUE (account_id, owner_kind, owner_id, channel_id)
      )`,
      'CREATE INDEX alert_subscriptions_channel ON alert_subscriptions (account_id, channel_id)',
    ),
  },
  {
    version: 13,
    name: 'heartbeat pings claimed as leases until their results are confirmed',
    // The pings themselves, as SQLite's heartbeat_events keeps them with its step 36: pending until
    // the result is confirmed, leased while a holder turns them into results. `seq` is the order
    // stored (store/postgres/heartbeat-pings.ts says why it is also the order committed).
    // heartbeat_ping_start's one row says monitoring has started on this database.
    up: statements(
      `CREATE TABLE heartbeat_events (
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        account_id TEXT NOT NULL,
        id TEXT NOT NULL,
        check_id TEXT NOT NULL,
        at_ms BIGINT NOT NULL,
        doc TEXT NOT NULL,
        pending BOOLEAN NOT NULL DEFAULT true,
        lease_owner TEXT,
        lease_until_ms BIGINT,
        PRIMARY KEY (account_id, id)
      )`,
      'CREATE INDEX heartbeat_events_check_time ON heartbeat_events (account_id, check_id, at_ms)',
      // Partial: only pings on their way to a result are in them, so a claim's look-ups stay small.
      'CREATE INDEX heartbeat_events_pending ON heartbeat_events (seq) WHERE pending',
      'CREATE INDEX heartbeat_events_pending_check ON heartbeat_events (account_id, check_id, lease_until_ms) WHERE pending',
      `CREATE TABLE heartbeat_ping_start (
        only_row SMALLINT PRIMARY KEY CHECK (only_row = 1),
        last_seq BIGINT NOT NULL
      )`,
    ),
  },
  {
    version: 14,
    name: 'status pages',
    // The pages as SQLite's status_pages keeps them (its step 16 added the names): the document's
    // text, its url and custom domain (lower case), which no two pages of the whole service share, and
    // the services its cards show, so "which pages show this service" is one index look-up. `seq` is
    // the order created, which an upsert keeps.
    up: statements(
      `CREATE TABLE status_pages (
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        account_id TEXT NOT NULL,
        id TEXT NOT NULL,
        doc TEXT NOT NULL,
        url TEXT,
        custom_domain TEXT,
        shown_services TEXT[] NOT NULL,
        PRIMARY KEY (account_id, id)
      )`,
      'CREATE UNIQUE INDEX status_pages_url ON status_pages (url) WHERE url IS NOT NULL',
      'CREATE UNIQUE INDEX status_pages_custom_domain ON status_pages (custom_domain) WHERE custom_domain IS NOT NULL',
      'CREATE INDEX status_pages_shown_services ON status_pages USING GIN (shown_services)',
    ),
  },
  {
    version: 15,
    name: 'status pages: revision and subscriptions',
    // The revision rendered public pages are kept under, moved by a trigger in the writing
    // transaction whoever writes (SQLite's step 37), so a replica sees it move only with the write
    // committed. The pages' e-mail subscriptions as SQLite keeps them, deleted with their page.
    up: statements(
      `CREATE TABLE status_page_revision (
        only_row SMALLINT PRIMARY KEY CHECK (only_row = 1),
        revision BIGINT NOT NULL
      )`,
      'INSERT INTO status_page_revision (only_row, revision) VALUES (1, 0)',
      `CREATE FUNCTION status_pages_move_revision() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          UPDATE status_page_revision SET revision = revision + 1 WHERE only_row = 1;
          RETURN NULL;
        END $$`,
      `CREATE TRIGGER status_pages_revision AFTER INSERT OR UPDATE OR DELETE ON status_pages
        FOR EACH STATEMENT EXECUTE FUNCTION status_pages_move_revision()`,
      `CREATE TABLE status_page_subscriptions (
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        account_id TEXT NOT NULL,
        status_page_id TEXT NOT NULL,
        id TEXT NOT NULL,
        doc TEXT NOT NULL,
        PRIMARY KEY (account_id, status_page_id, id)
      )`,
      'CREATE INDEX status_page_subscriptions_page ON status_page_subscriptions (account_id, status_page_id, seq)',
    ),
  },
  {
    version: 16,
    name: 'check statuses and error groups',
    // As SQLite keeps them: a check's status as the document served, with its state in a column of
    // its own (the checks list filters by it); an error group's state as JSON, one per (check, hash of
    // the cleaned message), `seq` the order groups were started, which pages follow.
    up: statements(
      `CREATE TABLE check_statuses (
        account_id TEXT NOT NULL,
        check_id TEXT NOT NULL,
        doc TEXT NOT NULL,
        state TEXT NOT NULL,
        PRIMARY KEY (account_id, check_id)
      )`,
      'CREATE INDEX check_statuses_state ON check_statuses (account_id, state)',
      `CREATE TABLE error_groups (
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        account_id TEXT NOT NULL,
        id TEXT NOT NULL,
        check_id TEXT NOT NULL,
        error_hash TEXT NOT NULL,
        state TEXT NOT NULL,
        PRIMARY KEY (account_id, id),
        UNIQUE (account_id, check_id, error_hash)
      )`,
      'CREATE INDEX error_groups_check ON error_groups (account_id, check_id, seq)',
    ),
  },
  {
    version: 17,
    name: 'certificate-expiry alerts claimed per day',
    // SQLite's ssl_expiry_alerts: the last UTC day a check's certificate alert went to a channel.
    up: statements(
      `CREATE TABLE ssl_expiry_alerts (
        account_id TEXT NOT NULL,
        check_id TEXT NOT NULL,
        alert_channel_id BIGINT NOT NULL,
        day INTEGER NOT NULL,
        PRIMARY KEY (account_id, check_id, alert_channel_id)
      )`,
    ),
  },
  {
    version: 18,
    name: 'status-page incidents and the incident each check has open',
    // As SQLite keeps them (its steps 11 and 6): an incident is one document with its updates inside,
    // `seq` the order the list pages by newest first; `last_status` is the document's lastUpdateStatus,
    // which says whether the incident a check opened is still open. Every write moves the status pages'
    // revision in the writing transaction (SQLite's step 38), since public pages show incidents.
    up: statements(
      `CREATE TABLE incidents (
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        account_id TEXT NOT NULL,
        id TEXT NOT NULL,
        state TEXT NOT NULL,
        last_status TEXT NOT NULL,
        PRIMARY KEY (account_id, id)
      )`,
      'CREATE INDEX incidents_account ON incidents (account_id, seq)',
      `CREATE TRIGGER incidents_revision AFTER INSERT OR UPDATE OR DELETE ON incidents
        FOR EACH STATEMENT EXECUTE FUNCTION status_pages_move_revision()`,
      `CREATE TABLE check_incidents (
        account_id TEXT NOT NULL,
        check_id TEXT NOT NULL,
        incident_id TEXT NOT NULL,
        PRIMARY KEY (account_id, check_id)
      )`,
    ),
  },
  {
    version: 19,
    name: 'runs queued for agents and their leases',
    // As SQLite keeps them (its step 27): a run waits in its queue (`location`: a location, or a private
    // location's `slug@account`) until an agent leases it; finished rows stay a day for late reports.
    up: statements(
      `CREATE TABLE agent_runs (
        account_id TEXT NOT NULL,
        slot_key TEXT NOT NULL,
        check_id TEXT NOT NULL,
        location TEXT NOT NULL,
        due_ms BIGINT NOT NULL,
        job TEXT NOT NULL,
        queued_ms BIGINT NOT NULL,
        lease_id TEXT UNIQUE,
        agent_id TEXT,
        lease_expires_ms BIGINT,
        handouts INTEGER NOT NULL DEFAULT 0,
        finished_ms BIGINT,
        outcome TEXT CHECK (outcome IN ('reported', 'not-executed', 'superseded')),
        PRIMARY KEY (account_id, slot_key)
      )`,
      'CREATE INDEX agent_runs_open ON agent_runs (location, due_ms) WHERE finished_ms IS NULL',
      'CREATE INDEX agent_runs_finished ON agent_runs (finished_ms) WHERE finished_ms IS NOT NULL',
    ),
  },
  {
    version: 20,
    name: 'dashboards, project states and their locks, account profiles',
    // As SQLite keeps them (its steps 24, 22 and 29, and the read side's profiles). A dashboard's
    // dashboardId and names (lower case) are unique across the service; its integer id is counted in
    // document_id_counters under the kind 'dashboards'.
    up: statements(
      `CREATE TABLE dashboards (
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        account_id TEXT NOT NULL,
        id BIGINT NOT NULL,
        doc TEXT NOT NULL,
        dashboard_id TEXT NOT NULL,
        custom_url TEXT,
        custom_domain TEXT,
        PRIMARY KEY (account_id, id)
      )`,
      'CREATE UNIQUE INDEX dashboards_dashboard_id ON dashboards (dashboard_id)',
      'CREATE INDEX dashboards_account ON dashboards (account_id, seq)',
      'CREATE UNIQUE INDEX dashboards_custom_url ON dashboards (custom_url) WHERE custom_url IS NOT NULL',
      'CREATE UNIQUE INDEX dashboards_custom_domain ON dashboards (custom_domain) WHERE custom_domain IS NOT NULL',
      `CREATE TABLE state_documents (
        account_id TEXT NOT NULL,
        project TEXT NOT NULL,
        lineage TEXT NOT NULL,
        serial BIGINT NOT NULL,
        doc TEXT NOT NULL,
        updated_ms BIGINT NOT NULL,
        PRIMARY KEY (account_id, project)
      )`,
      `CREATE TABLE state_locks (
        account_id TEXT NOT NULL,
        project TEXT NOT NULL,
        lock_id TEXT NOT NULL,
        info TEXT NOT NULL,
        created_ms BIGINT NOT NULL,
        expires_ms BIGINT,
        PRIMARY KEY (account_id, project)
      )`,
      `CREATE TABLE account_profiles (
        account_id TEXT PRIMARY KEY,
        doc TEXT NOT NULL
      )`,
    ),
  },
  {
    version: 21,
    name: 'private locations and their agent keys',
    // As SQLite keeps them (its steps 26 and 28), with the slug beside the document so the database
    // refuses a second location of one slug in an account, and each key only as its SHA-256 digest.
    up: statements(
      `CREATE TABLE private_locations (
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        account_id TEXT NOT NULL,
        id TEXT NOT NULL,
        slug_name TEXT NOT NULL,
        doc TEXT NOT NULL,
        PRIMARY KEY (account_id, id),
        CONSTRAINT private_locations_slug UNIQUE (account_id, slug_name)
      )`,
      'CREATE INDEX private_locations_account ON private_locations (account_id, seq)',
      `CREATE TABLE private_location_keys (
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        id TEXT NOT NULL UNIQUE,
        account_id TEXT NOT NULL,
        private_location_id TEXT NOT NULL,
        key_digest BYTEA NOT NULL UNIQUE,
        masked_key TEXT NOT NULL,
        created_at TEXT NOT NULL
      )`,
      'CREATE INDEX private_location_keys_location ON private_location_keys (account_id, private_location_id, seq)',
    ),
  },
  {
    version: 22,
    name: 'the subscription form: the secret signing its links, and its accepted submissions',
    // As SQLite keeps them (its step 23): the key that signs subscription links, made once per database
    // so replicas sign alike, and one row per accepted form submission for a day, to count the form's
    // rate limits across replicas (addresses and client addresses only as keyed hashes).
    up: statements(
      'CREATE TABLE service_secrets (name TEXT PRIMARY KEY, value BYTEA NOT NULL)',
      `CREATE TABLE subscribe_requests (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at_ms BIGINT NOT NULL,
        page_key TEXT NOT NULL,
        address_key TEXT NOT NULL,
        client_key TEXT NOT NULL,
        mailed BOOLEAN NOT NULL
      )`,
      'CREATE INDEX subscribe_requests_address ON subscribe_requests (address_key, at_ms)',
      'CREATE INDEX subscribe_requests_client ON subscribe_requests (client_key, at_ms)',
      'CREATE INDEX subscribe_requests_page ON subscribe_requests (page_key, at_ms)',
      'CREATE INDEX subscribe_requests_age ON subscribe_requests (at_ms)',
    ),
  },
  {
    version: 23,
    name: "the service's identity, and check groups' triggers",
    // The service id as SQLite's step 25 keeps it, at most one row (its key can only be TRUE), stored by
    // the first replica that asks; and the deprecated group triggers as SQLite's step 12 keeps them,
    // one per group, their public ids counted in document_id_counters.
    up: statements(
      'CREATE TABLE service_identity (singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton), id TEXT NOT NULL)',
      `CREATE TABLE check_group_triggers (
        account_id TEXT NOT NULL,
        group_id BIGINT NOT NULL,
        doc TEXT NOT NULL,
        PRIMARY KEY (account_id, group_id)
      )`,
    ),
  },
  {
    version: 24,
    name: "check statuses' writing transaction, which GET /metrics follows",
    // Each status row names the transaction that last wrote it, so a replica's metrics read only the
    // rows written since their last read (postgres/metrics-reads.ts). A transaction id rather than a
    // sequence: a sequence value is taken before commit, and a reader could pass one still in flight.
    up: statements(
      'ALTER TABLE check_statuses ADD COLUMN written_xid xid8 NOT NULL DEFAULT pg_current_xact_id()',
      'CREATE INDEX check_statuses_written ON check_statuses (account_id, written_xid)',
    ),
  },
  {
    version: 25,
    name: 'heartbeat monitors by ping token',
    // The ping route finds a monitor by its token, in any account, as SQLite's step 19 index does: the
    // token lives in the document (text), so the index is on the expression the look-up names
    // (postgres/heartbeat-pings.ts), over heartbeat checks only. The watch's read of every heartbeat
    // monitor walks the same partial index.
    up: statements(`CREATE INDEX checks_heartbeat_ping_token ON checks ((doc::jsonb -> 'heartbeat' ->> 'pingToken')) WHERE check_type = 'HEARTBEAT'`),
  },
  {
    version: 26,
    name: "runner agents' presence",
    // As SQLite keeps it (its step 39): what each agent of each queue last said, through any replica,
    // so a replica asks whether a queue has a live agent anywhere before it records a run not executed.
    up: statements(
      `CREATE TABLE agent_presence (
        queue TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        location TEXT NOT NULL,
        account_id TEXT,
        private_location_id TEXT,
        key_id TEXT,
        agent_version TEXT NOT NULL,
        wire_version INTEGER NOT NULL,
        runs_in_flight INTEGER NOT NULL,
        last_seen_ms BIGINT NOT NULL,
        PRIMARY KEY (queue, agent_id)
      )`,
      'CREATE INDEX agent_presence_seen ON agent_presence (last_seen_ms)',
      'CREATE INDEX agent_presence_key ON agent_presence (key_id) WHERE key_id IS NOT NULL',
    ),
  },
  {
    version: 27,
    name: 'narrower result rows; rollups and references updated in place',
    // Converts every stored result (postgres/narrow-result-rows.ts says what changes and why).
    up: narrowResultRows,
  },
  {
    version: 28,
    name: 'slot claims as one mark per check and location',
    // A row per claimed slot, kept two days, was most of the database's growth under load; a row per
    // check and location holding the highest slot claimed (postgres/slot-claims.ts) does not grow with
    // runs. Each check and location keeps its highest claimed slot and its highest finished one: the
    // slots claimed before the upgrade stay claimed.
    // fillfactor 50: every claim and finish updates its row in place, and HOT keeps the new versions
    // on the same page only while the page has room for them.
    up: statements(
      `CREATE TABLE slot_claims (
        account_id TEXT NOT NULL,
        check_id TEXT NOT NULL,
        location TEXT NOT NULL,
        due_ms BIGINT NOT NULL,
        claimed_ms BIGINT NOT NULL,
        prior_due_ms BIGINT,
        finished_due_ms BIGINT,
        finished_ms BIGINT,
        PRIMARY KEY (account_id, check_id, location)
      ) WITH (fillfactor = 50)`,
      `INSERT INTO slot_claims (account_id, check_id, location, due_ms, claimed_ms, finished_due_ms, finished_ms)
       SELECT claimed.account_id, claimed.check_id, claimed.location, claimed.due_ms, claimed.claimed_ms, finished.due_ms, finished.finished_ms
       FROM (SELECT DISTINCT ON (account_id, check_id, location) account_id, check_id, location, due_ms, claimed_ms
             FROM scheduled_runs ORDER BY account_id, check_id, location, due_ms DESC) AS claimed
       LEFT JOIN (SELECT DISTINCT ON (account_id, check_id, location) account_id, check_id, location, due_ms, finished_ms
                  FROM scheduled_runs WHERE finished_ms IS NOT NULL ORDER BY account_id, check_id, location, due_ms DESC) AS finished
         USING (account_id, check_id, location)`,
      'DROP TABLE scheduled_runs',
    ),
  },
  {
    version: 29,
    name: 'check results packed a five-minute block a row',
    // postgres/packed-results.ts says what a block's row holds and why. The results stored with derived
    // ids in the blocks before the current one are packed here, as the engine packs them; from then on
    // each check's first append in a new block packs its rows of the blocks before.
    up: statements(
      `CREATE TABLE check_results_packed (
        start_ms BIGINT NOT NULL,
        series INTEGER NOT NULL,
        created_ms BIGINT[] NOT NULL,
        id_key BYTEA[] NOT NULL,
        run_location TEXT[] NOT NULL,
        flags SMALLINT[] NOT NULL,
        packed BYTEA[] NOT NULL,
        ref INTEGER[] NOT NULL
      ) WITH (toast_tuple_target = 128)`,
      // MAIN: compressed in the row, moved out of line only when a block would not fit in a page.
      ...['created_ms', 'id_key', 'run_location', 'flags', 'packed', 'ref'].map((column) => `ALTER TABLE check_results_packed ALTER COLUMN ${column} SET STORAGE MAIN`),
      'CREATE INDEX check_results_packed_series_start ON check_results_packed (series, start_ms)',
      `WITH moved AS (
         DELETE FROM check_results WHERE id_key < '\\x01'::bytea AND created_ms < (floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint / 300000) * 300000
         RETURNING series, created_ms, id_key, run_location, flags, packed, ref)
       INSERT INTO check_results_packed (series, start_ms, created_ms, id_key, run_location, flags, packed, ref)
       SELECT series, created_ms - created_ms % 300000, array_agg(created_ms ORDER BY created_ms, id_key), array_agg(id_key ORDER BY created_ms, id_key),
              array_agg(run_location ORDER BY created_ms, id_key), array_agg(flags ORDER BY created_ms, id_key), array_agg(packed ORDER BY created_ms, id_key),
              array_agg(ref ORDER BY created_ms, id_key)
         FROM moved GROUP BY series, created_ms - created_ms % 300000`,
    ),
  },
  {
    version: 30,
    name: 'packed blocks small uncompressed: time offsets, one element where a block agrees',
    // postgres/packed-results.ts says why: a block's row stays under the size PostgreSQL compresses
    // rows past, so its repeated values cost their full size. The table is made anew (a column's type
    // cannot change by an expression that reads the row's other arrays) and keeps its name.
    up: statements(
      // A block's column as packing stores it: one element when every element is the same, else as given.
      `CREATE FUNCTION vigil_block_column(elements anyarray) RETURNS anyarray LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
         SELECT CASE WHEN cardinality(elements) > 1 AND NOT EXISTS (SELECT 1 FROM unnest(elements) AS e WHERE e IS DISTINCT FROM elements[1])
                     THEN elements[1:1] ELSE elements END
       $$`,
      `CREATE TABLE check_results_blocks (
        start_ms BIGINT NOT NULL,
        series INTEGER NOT NULL,
        offset_ms INTEGER[] NOT NULL,
        id_key BYTEA[] NOT NULL,
        run_location TEXT[] NOT NULL,
        flags SMALLINT[] NOT NULL,
        packed BYTEA[] NOT NULL,
        ref INTEGER[] NOT NULL
      ) WITH (toast_tuple_target = 128)`,
      // MAIN: compressed in the row, moved out of line only when a block would not fit in a page.
      ...['offset_ms', 'id_key', 'run_location', 'flags', 'packed', 'ref'].map((column) => `ALTER TABLE check_results_blocks ALTER COLUMN ${column} SET STORAGE MAIN`),
      `INSERT INTO check_results_blocks (start_ms, series, offset_ms, id_key, run_location, flags, packed, ref)
       SELECT start_ms, series, ARRAY(SELECT (c - start_ms)::integer FROM unnest(created_ms) WITH ORDINALITY AS u(c, position) ORDER BY position),
              vigil_block_column(id_key), vigil_block_column(run_location), vigil_block_column(flags), vigil_block_column(packed), vigil_block_column(ref)
         FROM check_results_packed`,
      'DROP TABLE check_results_packed',
      'ALTER TABLE check_results_blocks RENAME TO check_results_packed',
      'CREATE INDEX check_results_packed_series_start ON check_results_packed (series, start_ms)',
    ),
  },
  {
    version: 31,
    name: 'rollup histograms as integer arrays subscripted by bucket',
    // A jsonb histogram of an hour's 70-odd buckets took about 1.3 kB (a key, a count and two entry
    // headers a bucket), most of a rollup row and, at fillfactor 50, about 15 bytes a result. An
    // integer[] whose subscripts are the buckets (from the lowest bucket counted, NULL where a bucket
    // between is empty) takes 4 bytes a bucket counted and a bit a bucket spanned, some 0.3 kB, and an
    // append counts a bucket with one subscripted assignment (PostgreSQL extends a one-dimensional
    // array assigned past its ends). postgres/check-results.ts writes and reads it.
    up: statements(
      `CREATE FUNCTION vigil_histogram_of_json(buckets jsonb) RETURNS integer[] LANGUAGE plpgsql IMMUTABLE AS $$
         DECLARE
           histogram integer[] := '{}';
           entry record;
         BEGIN
           FOR entry IN SELECT key::integer AS bucket, value::text::integer AS count FROM jsonb_each(buckets) LOOP
             histogram[entry.bucket] := entry.count;
           END LOOP;
           RETURN histogram;
         END
       $$`,
      ...['result_rollups_hourly', 'result_rollups_daily'].map((table) => `ALTER TABLE ${table} ALTER COLUMN rt_hist TYPE integer[] USING vigil_histogram_of_json(rt_hist)`),
      'DROP FUNCTION vigil_histogram_of_json(jsonb)',
    ),
  },
];

/**
 * The advisory lock the runner holds: one fixed number for the whole database, the bytes of "vigilmig",
 * chosen so no other application's lock on the same server is likely to be the same.
 */
export const MIGRATION_LOCK = 0x76_69_67_69_6c_6d_69_67n;

/** Applies the steps this database has not run; resolves to the versions it applied, in order. */
export async function migratePostgres<Schema>(db: Kysely<Schema>, steps: readonly PostgresMigration[] = POSTGRES_MIGRATIONS): Promise<number[]> {
  const versions = steps.map((step) => step.version);
  if (new Set(versions).size !== versions.length || versions.some((version) => !Number.isSafeInteger(version) || version < 1)) {
    throw new Error('PostgreSQL migrations have duplicate or invalid versions; this is a bug in vigil');
  }
  return db.transaction().execute(async (tx) => {
    await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK.toString()}::bigint)`.execute(tx);
    await sql`CREATE TABLE IF NOT EXISTS vigil_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`.execute(tx);
    const applied = new Set((await sql<{ version: number }>`SELECT version FROM vigil_migrations`.execute(tx)).rows.map((row) => row.version));
    const done: number[] = [];
    for (const step of [...steps].sort((a, b) => a.version - b.version)) {
      if (applied.has(step.version)) continue;
      await step.up(tx);
      await sql`INSERT INTO vigil_migrations (version, name) VALUES (${step.version}, ${step.name})`.execute(tx);
      done.push(step.version);
    }
    return done;
  });
}
