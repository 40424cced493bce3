/**
 * Connecting to PostgreSQL: a pg Pool behind a Kysely instance typed with the tables the ports use.
 *
 * Moments are stored as BIGINT milliseconds, as SQLite stores them, so a row reads the same in both
 * engines. pg returns BIGINT as a string (a JavaScript number cannot hold every 64-bit value); this
 * pool parses it into a number, refusing what is not a safe integer rather than rounding it.
 */
import { Kysely, PostgresDialect, type Generated } from 'kysely';
import pg from 'pg';

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  fingerprint: string;
  status: number;
  body: string;
  created_at: number;
}

export interface RateWindowsTable {
  id: string;
  started_ms: number;
  hits: number;
  expires_ms: number;
}

export interface ScheduledRunsTable {
  account_id: string;
  slot_key: string;
  check_id: string;
  due_ms: number;
  location: string;
  claimed_ms: number;
  finished_ms: number | null;
}

export interface AlertNotificationsTable {
  seq: Generated<number>;
  account_id: string;
  id: string;
  check_id: string;
  alert_channel_id: number;
  channel_type: string;
  alert_type: string;
  delivery: string;
  attempts: Generated<number>;
  next_attempt_ms: number | null;
  created_ms: number;
  settled_ms: number | null;
  last_error: string | null;
  notification_result: string | null;
  doc: string;
  lease_owner: string | null;
  lease_until_ms: number | null;
}

export interface AlertStatesTable {
  account_id: string;
  check_id: string;
  doc: string;
  version: number;
}

export interface HeartbeatTimingsTable {
  account_id: string;
  check_id: string;
  period_ms: number;
  grace_ms: number;
  anchor_ms: number;
  next_due_ms: number;
}

export interface HeartbeatDeadlinesTable {
  account_id: string;
  check_id: string;
  reported_due_ms: number;
  reported_by: string | null;
  lease_until_ms: number | null;
  claimed_anchor_ms: number | null;
}

export interface PeriodicJobsTable {
  name: string;
  last_run_ms: number;
  last_owner: string;
}

export interface PostgresSchema {
  idempotency_keys: IdempotencyKeysTable;
  rate_windows: RateWindowsTable;
  scheduled_runs: ScheduledRunsTable;
  alert_notifications: AlertNotificationsTable;
  alert_states: AlertStatesTable;
  heartbeat_timings: HeartbeatTimingsTable;
  heartbeat_deadlines: HeartbeatDeadlinesTable;
  periodic_jobs: PeriodicJobsTable;
}

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database`. */
  readonly connectionString: string;
  /** Connections this replica opens at most (default 10, pg's own default). */
  readonly maxConnections?: number;
  /** Receives errors of idle connections (default: a line on stderr). */
  readonly warn?: (message: string) => void;
}

export interface PostgresDatabase {
  readonly db: Kysely<PostgresSchema>;
  /** Closes every connection of the pool. */
  close(): Promise<void>;
}

const INT8_OID = 20;

function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`BIGINT ${text} is beyond what vigil stores (a safe integer); this is a bug in vigil`);
  return value;
}

const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export function openPostgres(options: PostgresOptions): PostgresDatabase {
  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.maxConnections ?? 10, types });
  const warn = options.warn ?? ((message: string) => process.stderr.write(`vigil server: warning: ${message}\n`));
  // An idle connection the server closed (a restart, a failover) is dropped by the pool and the next
  // query opens another; without a listener, pg's 'error' event would end the process.
  pool.on('error', (error) => warn(`an idle PostgreSQL connection failed: ${error.message}`));
  const db = new Kysely<PostgresSchema>({ dialect: new PostgresDialect({ pool }) });
  return { db, close: () => db.destroy() };
}
