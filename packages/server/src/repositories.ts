/**
 * The one object that holds what the service keeps, built once per opened `Store` (createApp does it)
 * and handed to the routes, the dashboard, the public pages, the scheduler, alerting and heartbeats.
 * Each part below prepares its statements when it is built, so building it once is what keeps a
 * statement from being prepared per request; before this object, each module kept its own registry
 * keyed by the `Store` for that.
 */
import { randomUUID } from 'node:crypto';
import { openReadSide, type ReadSide } from './readside/context.js';
import { StatusStore } from './readside/statuses.js';
import type { Store } from './store/index.js';
import type { StoragePorts } from './store/ports.js';
import { sqlitePorts } from './store/sqlite/index.js';

export interface Repositories {
  readonly store: Store;
  /** Results, rollups, error groups, heartbeat events, status pages, incidents and accounts' profiles. */
  readonly readSide: ReadSide;
  /** One row per check, rewritten by each FINAL result. */
  readonly statuses: StatusStore;
  /**
   * The storage ports (store/ports.ts) on this store's engine: the state replicas share, behind
   * Promise-returning methods. Parts of the service move onto them one at a time (docs/postgres.md
   * lists which); their `close` is not called here, since the app closes the store itself.
   */
  readonly ports: StoragePorts;
  /**
   * Who this process is among the processes sharing the database: the owner it names when it takes a
   * lease or a turn through the ports (the outbox's claims, the pruning's period). New for each
   * opened store, so a restarted service is a new replica and never mistakes the leases of its
   * previous life for its own.
   */
  readonly replicaId: string;
}

export function openRepositories(store: Store): Repositories {
  const readSide = openReadSide(store.db);
  return {
    store,
    readSide,
    statuses: new StatusStore(store),
    ports: sqlitePorts(store),
    replicaId: randomUUID(),
  };
}
