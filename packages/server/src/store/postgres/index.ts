/**
 * The PostgreSQL engine of the storage ports: `openPostgresPorts` connects, brings the schema up to
 * date (migrations.ts; safe when replicas start at once) and returns the ports one replica uses.
 */
import type { StoragePorts } from '../ports.js';
import { PostgresAlertStates } from './alert-states.js';
import { PostgresCheckResults } from './check-results.js';
import { openPostgres, type PostgresOptions } from './database.js';
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

export async function openPostgresPorts(options: PostgresOptions): Promise<StoragePorts> {
  const { db, close } = openPostgres(options);
  try {
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
  };
}
