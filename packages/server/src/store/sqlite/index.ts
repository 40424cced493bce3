/**
 * The SQLite engine of the storage ports, on a `Store`'s connection. Several `Store`s opened on the
 * same file behave as replicas do on one PostgreSQL database (the contract suite relies on it).
 */
import type { StoragePorts, TransactionPorts } from '../ports.js';
import { refuseNestedUnit, runAsUnitOf } from '../unit-of-work.js';
import { SqliteAccountProfiles } from './account-profiles.js';
import { SqliteAgentLeases } from './agent-leases.js';
import { SqliteAgentPresence } from './agent-presence.js';
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
import { SqliteMetricsReads } from './metrics-reads.js';
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
  /** Its own `SELECT 1` (store.ts). */
  health(): { up: true } | { up: false; reason: string };
  close(): void;
}

export function sqlitePorts(store: PortedStore): StoragePorts {
  let unitPorts: TransactionPorts | undefined;
  const failedWrites = new FailedWrites();
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
    agentPresence: new SqliteAgentPresence(store),
    privateLocations: new SqlitePrivateLocations(store),
    subscribers: new SqliteStatusPageSubscribers(store),
    serviceIdentity: new SqliteServiceIdentity(store),
    dashboardReads: new SqliteDashboardReads(store),
    metricsReads: new SqliteMetricsReads(store.db),
    transaction: async (work) => {
      refuseNestedUnit(ports);
      // Marked as running once its turn on the connection came, not while it waits in line: the
      // async context it is found by (and Node's hook on every promise) is on only while units run.
      return store.unitOfWork(() =>
        runAsUnitOf(ports, () => {
          // Built at the first unit, while its savepoint is open (the guard below refuses a write
          // otherwise), and kept: one unit at a time runs on the connection.
          unitPorts ??= portsInsideUnit(store, failedWrites);
          const inUnit = unitPorts;
          return failedWrites.within(() => work(inUnit));
        }),
      );
    },
    engine: 'sqlite',
    // Asked at every probe: a local file answers at once, so nothing is cached.
    health: async () => {
      const answer = store.health();
      return answer.up ? { ok: true } : { ok: false, error: answer.reason };
    },
    close: async () => store.close(),
  };
  return ports;
}

/**
 * The writes of a run's record inside a unit (results, error groups, status) that threw after
 * changing rows, remembered by the innermost scope open (the unit, or a `savepoint` of it): that scope
 * fails with the write's error even if `work` caught it, so its rollback takes the write's half with
 * it, as a failed statement aborts a PostgreSQL transaction. Instead of a savepoint per write: SQLite
 * copies every page a savepoint's statements touch into its statement journal, a quarter of the CPU
 * of a heartbeat's recorded ping. Who records a run lets any failure of it fail the unit anyway.
 */
class FailedWrites {
  readonly #open: Array<{ failure?: { error: unknown } }> = [];

  async within<T>(work: () => Promise<T>): Promise<T> {
    const scope: { failure?: { error: unknown } } = {};
    this.#open.push(scope);
    try {
      const result = await work();
      if (scope.failure) throw scope.failure.error;
      return result;
    } finally {
      this.#open.splice(this.#open.lastIndexOf(scope), 1);
    }
  }

  failed(error: unknown): void {
    const scope = this.#open.at(-1);
    if (scope) scope.failure ??= { error };
  }
}

/**
 * The ports a unit writes through: the same classes on the same collections, but a write runs its
 * statements at once in the unit's savepoint instead of joining the group commit and awaiting it
 * (which waits for the unit: it would never resolve). Used after its unit ended, a write throws
 * rather than land outside any unit. A write that throws is undone alone (a savepoint of its own)
 * and the unit goes on, except a write of a run's record (`runRecord`): one that throws having
 * changed nothing (a refusal after its reads) leaves the unit to go on, one that changed rows fails
 * its scope (FailedWrites).
 */
function portsInsideUnit(store: PortedStore, failedWrites: FailedWrites): TransactionPorts {
  // One savepoint wrapper for every write of every unit (better-sqlite3 builds four functions per `transaction()`).
  const inSavepoint = store.db.transaction((work: () => unknown) => work());
  const totalChanges = store.db.prepare('SELECT total_changes()').pluck();
  const unitStore = (writeBatched: BatchedSqlite['writeBatched']): SqliteDocumentStore & BatchedSqlite => ({
    checks: store.checks,
    checkGroups: store.checkGroups,
    alertChannels: store.alertChannels,
    maintenanceWindows: store.maintenanceWindows,
    services: store.services,
    get db() {
      if (!store.unitOpen) throw new Error('a port of a unit of work was used after the unit ended; this is a bug in vigil');
      return store.db;
    },
    writeBatched,
  });
  const direct = unitStore((work) => ({ result: inSavepoint(work) as ReturnType<typeof work>, committed: Promise.resolve() }));
  const runRecord = unitStore((work) => {
    const changesBefore = totalChanges.get();
    try {
      return { result: work(), committed: Promise.resolve() };
    } catch (error) {
      if (totalChanges.get() !== changesBefore) failedWrites.failed(error);
      throw error;
    }
  });
  return {
    documents: new SqliteDocuments(direct),
    idempotency: new SqliteIdempotencyKeys(direct, store.idempotency),
    alertSubscriptions: new SqliteAlertSubscriptions(direct, store.subscriptions),
    statusPages: new SqliteStatusPages(direct),
    incidents: new SqliteIncidents(direct),
    // A ping's event and its deadline's move are the whole of their unit (the ping route's): no
    // savepoint each, a half-done write fails the unit.
    heartbeatPings: new SqliteHeartbeatPings(runRecord),
    heartbeatDeadlines: new SqliteHeartbeatDeadlines(runRecord),
    dashboards: new SqliteDashboards(direct),
    projectStates: new SqliteProjectStates(direct),
    accountProfiles: new SqliteAccountProfiles(direct),
    outbox: new SqliteNotificationOutbox(direct),
    checkResults: new SqliteCheckResults(runRecord),
    checkStatuses: new SqliteCheckStatuses(runRecord),
    errorGroups: new SqliteErrorGroups(runRecord),
    // A run's slot marked finished: one statement, committed or undone with the run's record.
    slotClaims: new SqliteSlotClaims(runRecord),
    alertStates: new SqliteAlertStates(direct),
    agentLeases: new SqliteAgentLeases(direct),
    privateLocations: new SqlitePrivateLocations(direct),
    subscribers: new SqliteStatusPageSubscribers(direct),
    serviceIdentity: new SqliteServiceIdentity(direct),
    savepoint: (work) => store.savepointInUnit(() => failedWrites.within(work)),
  };
}
