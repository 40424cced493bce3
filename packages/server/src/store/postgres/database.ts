/**
 * Connecting to PostgreSQL: a pg Pool behind a Kysely instance typed with the tables the ports use.
 *
 * Moments are stored as BIGINT milliseconds, as SQLite stores them, so a row reads the same in both
 * engines. pg returns BIGINT as a string (a JavaScript number cannot hold every 64-bit value); this
 * pool parses it into a number, refusing what is not a safe integer rather than rounding it.
 *
 * The pool is guarded (guarded-pool.ts): a connection that breaks never ends the process, and a
 * database that is away fails queries with an error naming it; the pool reconnects once it is back.
 */
import { Kysely, PostgresDialect, type Generated } from 'kysely';
import pg from 'pg';
import type { EngineHealth } from '../engine-health.js';
import type { ConnectRetryOptions } from './connect-retry.js';
import { describeTarget, reasonOf, withoutSecrets } from './connection-errors.js';
import { guardedPool } from './guarded-pool.js';
import { PostgresHealth, type HealthOptions } from './health.js';

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

/** One row per check and location: the highest slot claimed (store/postgres/slot-claims.ts). */
export interface SlotClaimsTable {
  account_id: string;
  check_id: string;
  location: string;
  due_ms: number;
  claimed_ms: number;
  /** The mark the last claim replaced, which that claim's RETURNING reads; null when it made the row. */
  prior_due_ms: number | null;
  finished_due_ms: number | null;
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
  slot_claims: SlotClaimsTable;
  alert_notifications: AlertNotificationsTable;
  alert_states: AlertStatesTable;
  heartbeat_timings: HeartbeatTimingsTable;
  heartbeat_deadlines: HeartbeatDeadlinesTable;
  periodic_jobs: PeriodicJobsTable;
}

export interface PostgresOptions {
  /**
   * `postgres://user:password@host:port/database`. TLS is asked for in the URL as node-postgres reads
   * it: `?sslmode=require` (encrypted; with `sslrootcert=/path/ca.pem`, the server's certificate is
   * also checked against that CA), `sslmode=verify-full`, `sslcert=`/`sslkey=` for a client certificate.
   * Never printed: errors and log lines name `host:port/database` only.
   */
  readonly connectionString: string;
  /** Connections this replica opens at most (default 10, pg's own default). */
  readonly maxConnections?: number;
  /**
   * The server cancels a statement running longer than this (`statement_timeout`; default 30 s, 0 for
   * none), so a stuck statement cannot hold its connection and locks for ever.
   */
  readonly statementTimeoutMs?: number;
  /** How long opening a connection may take before it fails as unavailable (default 10 s). */
  readonly connectionTimeoutMs?: number;
  /** An idle connection beyond `minConnections` is closed after this long (default 10 s, pg's own default). */
  readonly idleTimeoutMs?: number;
  /**
   * Connections kept open once made, however long idle (default `maxConnections`: all of them). Under a
   * scheduler's load units of work take most connections in bursts; with the others closed between
   * bursts, an API read found none idle and waited for one to be opened (up to 0.3 s on a busy machine).
   */
  readonly minConnections?: number;
  /** How long `health()` reuses an answer and waits for one (health.ts). */
  readonly health?: Pick<HealthOptions, 'cacheMs' | 'timeoutMs'>;
  /** How `openPostgresPorts` waits for a database that is not up yet (connect-retry.ts). */
  readonly connectRetry?: ConnectRetryOptions;
  /** Receives what went wrong without stopping the service: failed idle connections, retries at start (default: a line on stderr). */
  readonly warn?: (message: string) => void;
  /**
   * False sends every statement unnamed (guarded-pool.ts prepares the ones sent often, per
   * connection): for a pooler that hands each transaction another server connection, such as
   * PgBouncer in transaction mode without `max_prepared_statements`. Default true.
   */
  readonly prepareStatements?: boolean;
}

export interface PostgresDatabase {
  readonly db: Kysely<PostgresSchema>;
  /** `host:port/database`, as errors and log lines name it. */
  readonly target: string;
  /** Whether the database answers now (cached for a moment; see health.ts). Never rejects. */
  health(): Promise<EngineHealth>;
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

/** Where warnings of this database go: `options.warn`, or a line on stderr. */
export function warnerOf(options: Pick<PostgresOptions, 'warn'>): (message: string) => void {
  return options.warn ?? ((message: string) => process.stderr.write(`vigil server: warning: ${message}\n`));
}

export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
export const DEFAULT_CONNECTION_TIMEOUT_MS = 10_000;

export function openPostgres(options: PostgresOptions): PostgresDatabase {
  const target = describeTarget(options.connectionString);
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const warn = warnerOf(options);
  const connectionTimeoutMs = options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS;
  const maxConnections = options.maxConnections ?? 10;
  const minConnections = options.minConnections ?? maxConnections;
  if (!Number.isInteger(minConnections) || minConnections < 0 || minConnections > maxConnections) {
    throw new Error(`minConnections must be a whole number from 0 to maxConnections (${maxConnections}), got ${minConnections}`);
  }
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: maxConnections,
    min: minConnections,
    // pg's default is to wait for ever for a connection to a server that does not answer.
    connectionTimeoutMillis: connectionTimeoutMs,
    idleTimeoutMillis: options.idleTimeoutMs ?? 10_000,
    // pg sends it at connect, so every connection of the pool has it from its first statement.
    statement_timeout: statementTimeoutMs,
    types,
  });
  // An idle connection the server closed (a restart, a failover) is dropped by the pool and the next
  // query opens another; without a listener, pg's 'error' event would end the process.
  pool.on('error', (error) => warn(`an idle PostgreSQL connection to ${target} failed: ${withoutSecrets(reasonOf(error), options.connectionString)}`));
  const db = new Kysely<PostgresSchema>({
    dialect: new PostgresDialect({ pool: guardedPool(pool, { connectionString: options.connectionString, target, statementTimeoutMs, warn, prepareStatements: options.prepareStatements ?? true, connectionTimeoutMs }) }),
  });
  const health = new PostgresHealth(db, target, options.health);
  return { db, target, health: () => health.check(), close: () => db.destroy() };
}
