/**
 * The SQLite engine of the storage ports, on a `Store`'s connection. Several `Store`s opened on the
 * same file behave as replicas do on one PostgreSQL database (the contract suite relies on it).
 */
import type { StoragePorts, TransactionPorts } from '../ports.js';
import { refuseNestedUnit, runAsUnitOf } from '../unit-of-work.js';
import { SqliteAccountProfiles } from './account-profiles.js';
import { SqliteAgentLeases } from './agent-leases.js';
import { SqlitePrivateLocations } from './private-locations.js';
import { SqliteStatusPageSubscribers } from './subscribe-requests.js';
import { SqliteAlertStates } from './alerting.js';
import type { BatchedSqlite } from './batched.js';
import { SqliteCheckResults } from './check-results-port.js';
import { SqliteCheckStatuses } from './check-statuses-port.js';
import { SqliteDashboardReads } from './dashboard-reads-port.js';
import { SqliteDashboards } from './dashboards.js';
import { SqliteDocuments, type SqliteDocumentStore } from './documents.js';
import { SqliteErrorGroups } from './error-groups.js';
import { SqliteHeartbeatPings } from './heartbeat-pings.js';
import { SqliteHeartbeatDeadlines } from './heartbeats.js';
import { SqliteIdempotencyKeys, type IdempotencyStore } from './idempotency.js';
import { SqliteIncidents } from './incidents-port.js';
import { SqliteNotificationOutbox } from './outbox.js';
import { SqlitePeriodicJobs } from './periodic-jobs.js';
import { SqliteRateLimitWindows } from './rate-limits.js';
import { SqliteServiceIdentity } from './service-identity.js';
import { SqliteSlotClaims } from './slot-claims.js';
import { SqliteProjectStates } from './state-documents.js';
import { SqliteStatusPages } from './status-pages-port.js';
import { SqliteAlertSubscriptions, type SubscriptionIndex } from './subscriptions.js';

/** What the engine needs of a `Store`. */
export interface PortedStore extends SqliteDocumentStore {
  readonly idempotency: IdempotencyStore;
  readonly subscriptions: SubscriptionIndex;
  readonly unitOpen: boolean;
  unitOfWork<T>(work: () => Promise<T>): Promise<T>;
  savepointInUnit<T>(work: () => Promise<T>): Promise<T>;
  close(): void;
}

export function sqlitePorts(store: PortedStore): StoragePorts {
  let unitPorts: TransactionPorts | undefined;
  const ports: StoragePorts = {
    idempotency: new SqliteIdempotencyKeys(store, store.idempotency),
    rateLimits: new SqliteRateLimitWindows(store),
    slotClaims: new SqliteSlotClaims(store),
    outbox: new SqliteNotificationOutbox(store),
    alertStates: new SqliteAlertStates(store),
    heartbeatDeadlines: new SqliteHeartbeatDeadlines(store),
    heartbeatPings: new SqliteHeartbeatPings(store),
    periodicJobs: new SqlitePeriodicJobs(store),
    checkResults: new SqliteCheckResults(store),
    checkStatuses: new SqliteCheckStatuses(store),
    errorGroups: new SqliteErrorGroups(store),
    documents: new SqliteDocuments(store),
    alertSubscriptions: new SqliteAlertSubscriptions(store, store.subscriptions),
    statusPages: new SqliteStatusPages(store),
    incidents: new SqliteIncidents(store),
    dashboards: new SqliteDashboards(store),
    projectStates: new SqliteProjectStates(store),
    accountProfiles: new SqliteAccountProfiles(store),
    agentLeases: new SqliteAgentLeases(store),
    privateLocations: new SqlitePrivateLocations(store),
    subscribers: new SqliteStatusPageSubscribers(store),
    serviceIdentity: new SqliteServiceIdentity(store),
    dashboardReads: new SqliteDashboardReads(store),
    transaction: async (work) => {
      refuseNestedUnit(ports);
      // Marked as running once its turn on the connection came, not while it waits in line: the
      // async context it is found by (and Node's hook on every promise) is on only while units run.
      return store.unitOfWork(() =>
        runAsUnitOf(ports, () => {
          // Built at the first unit, while its savepoint is open (the guard below refuses a write
          // otherwise), and kept: one unit at a time runs on the connection.
          unitPorts ??= portsInsideUnit(store);
          return work(unitPorts);
        }),
      );
    },
    close: async () => store.close(),
  };
  return ports;
}

/**
 * The ports a unit writes through: the same classes on the same collections, but a write runs its
 * statements at once in the unit's savepoint instead of joining the group commit and awaiting it
 * (which waits for the unit: it would never resolve). Used after its unit ended, a write throws
 * rather than land outside any unit.
 */
function portsInsideUnit(store: PortedStore): TransactionPorts {
  // One savepoint wrapper for every write of every unit (better-sqlite3 builds four functions per `transaction()`).
  const inSavepoint = store.db.transaction((work: () => unknown) => work());
  const direct: SqliteDocumentStore & BatchedSqlite = {
    checks: store.checks,
    checkGroups: store.checkGroups,
    alertChannels: store.alertChannels,
    maintenanceWindows: store.maintenanceWindows,
    services: store.services,
    get db() {
      if (!store.unitOpen) throw new Error('a port of a unit of work was used after the unit ended; this is a bug in vigil');
      return store.db;
    },
    writeBatched: (work) => ({ result: inSavepoint(work) as ReturnType<typeof work>, committed: Promise.resolve() }),
  };
  return {
    documents: new SqliteDocuments(direct),
    idempotency: new SqliteIdempotencyKeys(direct, store.idempotency),
    alertSubscriptions: new SqliteAlertSubscriptions(direct, store.subscriptions),
    statusPages: new SqliteStatusPages(direct),
    incidents: new SqliteIncidents(direct),
    heartbeatPings: new SqliteHeartbeatPings(direct),
    dashboards: new SqliteDashboards(direct),
    projectStates: new SqliteProjectStates(direct),
    accountProfiles: new SqliteAccountProfiles(direct),
    outbox: new SqliteNotificationOutbox(direct),
    checkResults: new SqliteCheckResults(direct),
    checkStatuses: new SqliteCheckStatuses(direct),
    errorGroups: new SqliteErrorGroups(direct),
    alertStates: new SqliteAlertStates(direct),
    agentLeases: new SqliteAgentLeases(direct),
    privateLocations: new SqlitePrivateLocations(direct),
    subscribers: new SqliteStatusPageSubscribers(direct),
    serviceIdentity: new SqliteServiceIdentity(direct),
    savepoint: (work) => store.savepointInUnit(work),
  };
}
