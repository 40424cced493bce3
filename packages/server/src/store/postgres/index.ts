/**
 * The PostgreSQL engine of the storage ports: `openPostgresPorts` connects, brings the schema up to
 * date (migrations.ts; safe when replicas start at once) and returns the ports one replica uses. A
 * database that is down at start is waited for; one that goes away later fails queries with an error
 * naming it, and the pool reconnects once it is back (guarded-pool.ts).
 */
import type { StoragePorts } from '../ports.js';
import { PostgresAlertStates } from './alert-states.js';
import { PostgresCheckResults } from './check-results.js';
import type { EngineHealth } from '../engine-health.js';
import { waitUntilReachable } from './connect-retry.js';
import { withoutSecrets } from './connection-errors.js';
import { openPostgres, warnerOf, type PostgresOptions } from './database.js';
import { PostgresDocuments } from './documents.js';
import { PostgresHeartbeatDeadlines } from './heartbeat-deadlines.js';
import { PostgresHeartbeatPings } from './heartbeat-pings.js';
import { PostgresIdempotencyKeys } from './idempotency.js';
import { PostgresNotificationOutbox } from './outbox.js';
import { migratePostgres } from './migrations.js';
import { PostgresPeriodicJobs } from './periodic-jobs.js';
import { PostgresRateLimitWindows } from './rate-limits.js';
import { PostgresSlotClaims } from './slot-claims.js';

export type { PostgresOptions } from './database.js';

/** The ports of the PostgreSQL engine, with whether its database answers now (for /healthz). */
export type PostgresPorts = StoragePorts & { health(): Promise<EngineHealth> };

/**
 * Waits for the database (retrying while it is away: connect-retry.ts), migrates it and returns the
 * ports. Rejects with an error naming `host:port/database` when it never came, or cannot be used.
 */
export async function openPostgresPorts(options: PostgresOptions): Promise<PostgresPorts> {
  const { db, target, health, close } = openPostgres(options);
  try {
    await waitUntilReachable(db, target, { ...options.connectRetry, warn: warnerOf(options), mask: (text) => withoutSecrets(text, options.connectionString) });
    await migratePostgres(db);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    idempotency: new PostgresIdempotencyKeys(db),
    rateLimits: new PostgresRateLimitWindows(db),
    slotClaims: new PostgresSlotClaims(db),
    outbox: new PostgresNotificationOutbox(db),
    alertStates: new PostgresAlertStates(db),
    heartbeatDeadlines: new PostgresHeartbeatDeadlines(db),
    heartbeatPings: new PostgresHeartbeatPings(db),
    periodicJobs: new PostgresPeriodicJobs(db),
    checkResults: new PostgresCheckResults(db),
    documents: new PostgresDocuments(db),
    close,
    health,
  };
}
