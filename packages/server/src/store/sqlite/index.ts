/**
 * The SQLite engine of the storage ports, on a `Store`'s connection. Several `Store`s opened on the
 * same file behave as replicas do on one PostgreSQL database (the contract suite relies on it).
 */
import type { StoragePorts } from '../ports.js';
import { SqliteAlertStates } from './alerting.js';
import { SqliteCheckResults } from './check-results-port.js';
import { SqliteDocuments, type SqliteDocumentStore } from './documents.js';
import { SqliteHeartbeatPings } from './heartbeat-pings.js';
import { SqliteHeartbeatDeadlines } from './heartbeats.js';
import { SqliteIdempotencyKeys, type IdempotencyStore } from './idempotency.js';
import { SqliteNotificationOutbox } from './outbox.js';
import { SqlitePeriodicJobs } from './periodic-jobs.js';
import { SqliteRateLimitWindows } from './rate-limits.js';
import { SqliteSlotClaims } from './slot-claims.js';

export function sqlitePorts(store: SqliteDocumentStore & { readonly idempotency: IdempotencyStore; close(): void }): StoragePorts {
  return {
    idempotency: new SqliteIdempotencyKeys(store, store.idempotency),
    rateLimits: new SqliteRateLimitWindows(store),
    slotClaims: new SqliteSlotClaims(store),
    outbox: new SqliteNotificationOutbox(store),
    alertStates: new SqliteAlertStates(store),
    heartbeatDeadlines: new SqliteHeartbeatDeadlines(store),
    heartbeatPings: new SqliteHeartbeatPings(store),
    periodicJobs: new SqlitePeriodicJobs(store),
    checkResults: new SqliteCheckResults(store),
    documents: new SqliteDocuments(store),
    close: async () => store.close(),
  };
}
