/**
 * The service's SQLite storage: one database (../database.ts for durability), migrated to the one
 * list of steps in migrations/ when it is opened, the core collections, the alert-subscription
 * index and the idempotency keys, and the group commit every write of an event-loop turn shares.
 */
import { CHECK_COLUMNS } from '../formats/check-columns.js';
import { Collection, type PublicId } from './collection.js';
import { openDatabase, type DatabaseLocation, type OpenOptions, type SqliteDatabase } from '../database.js';
import { IdempotencyStore } from './idempotency.js';
import { statusWritesUndone } from './statuses.js';
import { migrateSqlite, type MigrateOptions } from './migrations/index.js';
import { SubscriptionIndex } from './subscriptions.js';

/** A stored resource: the JSON document as the API returns it (before response-time decoration). */
export type StoredDoc = { id: PublicId } & Record<string, unknown>;


export class Store {
  readonly db: SqliteDatabase;
  readonly checks: Collection<StoredDoc>;
  readonly checkGroups: Collection<StoredDoc>;
  readonly maintenanceWindows: Collection<StoredDoc>;
  readonly services: Collection<StoredDoc>;
  readonly alertChannels: Collection<StoredDoc>;
  readonly subscriptions: SubscriptionIndex;
  readonly idempotency: IdempotencyStore;

  /** @param location a directory for `vigil.db`, `{file}` for an exact path, or `':memory:'`. */
  constructor(location: string | DatabaseLocation, options: OpenOptions & MigrateOptions = {}) {
    this.db = openDatabase(typeof location === 'string' ? (location === ':memory:' ? location : { dir: location }) : location, options);
    migrateSqlite(this.db, options);
    this.checks = new Collection(this.db, 'checks', 'uuid', CHECK_COLUMNS);
    this.checkGroups = new Collection(this.db, 'check_groups', 'integer');
    this.maintenanceWindows = new Collection(this.db, 'maintenance_windows', 'integer');
    this.services = new Collection(this.db, 'services', 'uuid');
    this.alertChannels = new Collection(this.db, 'alert_channels', 'integer');
    this.subscriptions = new SubscriptionIndex(this.db);
    this.idempotency = new IdempotencyStore(this.db);
  }

  /** Runs `work` in one transaction (nested calls become savepoints). `work` must be synchronous. */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  /**
   * Group commit. `work` runs at once, inside its own savepoint (a throw undoes only its writes),
   * within a transaction shared by every write of the current event-loop turn; that transaction
   * commits on `setImmediate`, and `committed` settles then. Callers answer only after `committed`,
   * so nothing is acknowledged before it is in the WAL — but concurrent creates share one commit
   * (one WAL append) instead of paying one each, which roughly doubles write throughput.
   * `work` must be synchronous.
   */
  writeBatched<T>(work: () => T): { result: T; committed: Promise<void> } {
    if (!this.#batch) {
      if (this.db.inTransaction) throw new Error('writeBatched inside another transaction; this is a bug in vigil');
      this.db.exec('BEGIN');
      let settle!: { resolve: () => void; reject: (error: Error) => void };
      const done = new Promise<void>((resolve, reject) => {
        settle = { resolve, reject };
      });
      // A request whose own work failed never awaits the commit; its rejection must not go unhandled.
      done.catch(() => undefined);
      this.#batch = { done, ...settle };
      setImmediate(() => this.#commitBatch());
    }
    const batch = this.#batch;
    const result = this.db.transaction(work)();
    return { result, committed: batch.done };
  }

  #batch: { done: Promise<void>; resolve: () => void; reject: (error: Error) => void } | undefined;

  #commitBatch(): void {
    const batch = this.#batch;
    this.#batch = undefined;
    if (!batch) return;
    try {
      this.db.exec('COMMIT');
      batch.resolve();
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      for (const collection of [this.checks, this.checkGroups, this.maintenanceWindows, this.services, this.alertChannels]) {
        collection.forgetPositions();
      }
      statusWritesUndone(this.db);
      batch.reject(error as Error);
    }
  }

  /**
   * Whether the database answers a query now, for health checks: the engine's name, or the reason
   * it does not answer. Never throws, so a probe cannot turn a sick database into a crash.
   */
  health(): { engine: 'sqlite'; up: true } | { engine: 'sqlite'; up: false; reason: string } {
    try {
      this.db.prepare('SELECT 1').get();
      return { engine: 'sqlite', up: true };
    } catch (error) {
      return { engine: 'sqlite', up: false, reason: (error as Error).message };
    }
  }

  close(): void {
    this.#commitBatch();
    if (this.db.open) this.db.close();
  }
}
