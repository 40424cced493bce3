/**
 * The ports of the PostgreSQL engine over one Kysely: each class takes the pool, or a transaction
 * (a unit of work's, where every statement runs on the unit's connection and commits with it).
 */
import type { Kysely } from 'kysely';
import type { EngineHealth } from '../engine-health.js';
import type { StoragePorts, TransactionPorts } from '../ports.js';
import { asUnitOf } from '../unit-of-work.js';
import { PostgresAccountProfiles } from './account-profiles.js';
import { PostgresAgentLeases } from './agent-leases.js';
import { PostgresAgentPresence } from './agent-presence.js';
import { PostgresPrivateLocations } from './private-locations.js';
import { PostgresStatusPageSubscribers } from './subscribers.js';
import { atomically, PostgresAlertStates } from './alert-states.js';
import { PostgresAlertSubscriptions } from './alert-subscriptions.js';
import { PostgresCheckResults } from './check-results.js';
import { PostgresCheckStatuses } from './check-statuses.js';
import { PostgresDashboardReads } from './dashboard-reads.js';
import { PostgresDashboards } from './dashboards.js';
import type { PostgresSchema } from './database.js';
import { DocumentVacuums } from './document-vacuums.js';
import { PostgresDocuments } from './documents.js';
import { PostgresErrorGroups } from './error-groups.js';
import { PostgresHeartbeatDeadlines } from './heartbeat-deadlines.js';
import { PostgresHeartbeatPings } from './heartbeat-pings.js';
import { PostgresIdempotencyKeys, type PurgeClock } from './idempotency.js';
import { PostgresIncidents } from './incidents.js';
import { PostgresMetricsReads } from './metrics-reads.js';
import type { PostgresNotificationListener } from './notifications-listener.js';
import { PostgresNotificationOutbox } from './outbox.js';
import { PostgresPeriodicJobs } from './periodic-jobs.js';
import { PostgresProjectStates } from './project-states.js';
import { PostgresRateLimitWindows } from './rate-limits.js';
import { PostgresServiceIdentity } from './service-identity.js';
import { PostgresSlotClaims } from './slot-claims.js';
import { PostgresStatusPages } from './status-pages.js';

/**
 * `health`: whether the database answers now (health.ts), as `openPostgres` made it. `agentRunsQueued`:
 * the replica's listener for queued agent runs (agent-leases.ts), which `close` ends too.
 */
export function postgresPorts(db: Kysely<PostgresSchema>, close: () => Promise<void>, health: () => Promise<EngineHealth>, agentRunsQueued: PostgresNotificationListener): StoragePorts {
  const purged: PurgeClock = { lastPurge: 0 };
  const vacuums = new DocumentVacuums(db);
  const checkResults = new PostgresCheckResults(db);
  const unitPorts = (tx: Kysely<PostgresSchema>): TransactionPorts => ({
    documents: new PostgresDocuments(tx, vacuums),
    idempotency: new PostgresIdempotencyKeys(tx, purged),
    alertSubscriptions: new PostgresAlertSubscriptions(tx),
    statusPages: new PostgresStatusPages(tx),
    incidents: new PostgresIncidents(tx),
    heartbeatPings: new PostgresHeartbeatPings(tx),
    heartbeatDeadlines: new PostgresHeartbeatDeadlines(tx),
    dashboards: new PostgresDashboards(tx),
    projectStates: new PostgresProjectStates(tx),
    accountProfiles: new PostgresAccountProfiles(tx),
    outbox: new PostgresNotificationOutbox(tx),
    checkResults: checkResults.inUnit(tx),
    checkStatuses: new PostgresCheckStatuses(tx),
    errorGroups: new PostgresErrorGroups(tx),
    slotClaims: new PostgresSlotClaims(tx),
    alertStates: new PostgresAlertStates(tx),
    agentLeases: new PostgresAgentLeases(tx, agentRunsQueued),
    privateLocations: new PostgresPrivateLocations(tx),
    subscribers: new PostgresStatusPageSubscribers(tx),
    serviceIdentity: new PostgresServiceIdentity(tx),
    savepoint: (work) => atomically(tx, 'vigil_scope', () => work()),
  });
  const ports: StoragePorts = {
    idempotency: new PostgresIdempotencyKeys(db, purged),
    rateLimits: new PostgresRateLimitWindows(db),
    slotClaims: new PostgresSlotClaims(db),
    outbox: new PostgresNotificationOutbox(db),
    alertStates: new PostgresAlertStates(db),
    heartbeatDeadlines: new PostgresHeartbeatDeadlines(db),
    heartbeatPings: new PostgresHeartbeatPings(db),
    periodicJobs: new PostgresPeriodicJobs(db),
    checkResults,
    checkStatuses: new PostgresCheckStatuses(db),
    errorGroups: new PostgresErrorGroups(db),
    documents: new PostgresDocuments(db, vacuums),
    alertSubscriptions: new PostgresAlertSubscriptions(db),
    statusPages: new PostgresStatusPages(db),
    incidents: new PostgresIncidents(db),
    dashboards: new PostgresDashboards(db),
    projectStates: new PostgresProjectStates(db),
    accountProfiles: new PostgresAccountProfiles(db),
    agentLeases: new PostgresAgentLeases(db, agentRunsQueued),
    agentPresence: new PostgresAgentPresence(db),
    privateLocations: new PostgresPrivateLocations(db),
    subscribers: new PostgresStatusPageSubscribers(db),
    serviceIdentity: new PostgresServiceIdentity(db),
    dashboardReads: new PostgresDashboardReads(db),
    metricsReads: new PostgresMetricsReads(db),
    // Kysely commits when `work` resolves and rolls back, rethrowing the same error, when it throws.
    transaction: (work) => asUnitOf(ports, () => db.transaction().execute((tx) => work(unitPorts(tx)))),
    engine: 'postgres',
    health,
    close,
  };
  return ports;
}
