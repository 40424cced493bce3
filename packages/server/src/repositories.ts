/**
 * The one object that holds what the service keeps, built once per opened database (createApp does
 * it) and handed to the routes, the dashboard, the public pages, the scheduler, alerting and heartbeats.
 * Each part below prepares its statements when it is built, so building it once is what keeps a
 * statement from being prepared per request; before this object, each module kept its own registry
 * keyed by the `Store` for that.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from './store/index.js';
import type { StoragePorts } from './store/ports.js';
import { sqlitePorts } from './store/sqlite/index.js';

export interface Repositories {
  /**
   * The storage ports (store/ports.ts) on the service's engine, SQLite or PostgreSQL: everything the
   * service keeps, behind Promise-returning methods. Their `close` is the app's to call.
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

/**
 * On SQLite, the synchronous store the ports run on as well: for tests and benchmarks that fill or
 * inspect a database directly. The service itself asks only the ports.
 */
export interface SqliteRepositories extends Repositories {
  readonly store: Store;
}

export function openRepositories(store: Store): SqliteRepositories {
  return {
    store,
    ports: sqlitePorts(store),
    replicaId: randomUUID(),
  };
}

/** The repositories of ports opened on their own (PostgreSQL's, which have no synchronous store). */
export function portRepositories(ports: StoragePorts): Repositories {
  return { ports, replicaId: randomUUID() };
}
