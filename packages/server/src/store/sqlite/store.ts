/**
 * The service's SQLite storage: one database (../database.ts for durability), migrated to the one
 * list of steps in migrations/ when it is opened, the core collections, the alert-subscription
 * index and the idempotency keys, and the group commit every write of an event-loop turn shares.
 */
import type { Statement } from 'better-sqlite3';
import { CHECK_COLUMNS } from '../formats/check-columns.js';
import { Collection, type PublicId } from './collection.js';
import { openDatabase, type DatabaseLocation, type OpenOptions, type SqliteDatabase } from '../database.js';
import { IdempotencyStore } from './idempotency.js';
import { statusWritesUndone } from './statuses.js';
import { migrateSqlite, type MigrateOptions } from './migrations/index.js';
import { SubscriptionIndex } from './subscriptions.js';

/** A stored resource: the JSON document as the API returns it (before response-time decoration). */
export type StoredDoc = { id: PublicId } & Record<string, unknown>;

/**
 * Database files this process has open through a `Store`, and how many times: more than once only
 * for replicas in one process (the contract suite), whose connections cannot wait for each other's
 * write lock without blocking the one thread.
 */
const openInProcess = new Map<string, number>();

/**
 * Per database file: settles once the last unit of work asked for on it, by any `Store` of this
 * process, has ended. A unit awaits its ports, so two units of different connections to one file
 * would interleave their statements, and the second one's write would busy-wait, blocking the thread
 * the first one needs to commit: the units of one file take turns across its connections instead.
 */
const unitsClosedOnFile = new Map<string, Promise<void>>();

/**
 * Per database file shared in process: the group commits open on its connections. A unit awaits its
 * ports, and every await lets the other promise chains of the turn run before it goes on; a write of
 * another connection among them that begins a transaction of its own would busy-wait for the write
 * lock the unit (or the batch) holds, blocking the one thread that could release it. Such a write
 * waits for these to commit instead (`otherConnectionWriting`).
 */
const batchesOnFile = new Map<string, Set<Batch>>();

/** One event-loop turn's group commit: the transaction every write of the turn joins. */
interface Batch {
  /**
   * A unit of work began it. While another connection of this process has the file open, the unit
   * commits it when it ends (the next unit in the file's turn may be that connection's), as a lone port write commits at once, rather than holding
   * the write lock to the next turn (that connection's busy wait would block the thread the commit
   * needs). Otherwise it commits with the turn, as the synchronous writes do: the units of requests
   * that arrive together share one commit instead of appending to the WAL one each, which cost a
   * check's create about 200 µs of CPU, half again its whole cost.
   */
  openedByUnit: boolean;
  readonly done: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

interface OpenUnit {
  /** Other writes ran while its savepoint was open (or may have: it outlived its turn). */
  joined: boolean;
  /** The group's commit came due while it was open, and waits for it. */
  flushWhenDone: boolean;
}


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
    if (!this.db.memory) openInProcess.set(this.db.name, (openInProcess.get(this.db.name) ?? 0) + 1);
    migrateSqlite(this.db, options);
    this.checks = new Collection(this.db, 'checks', 'uuid', CHECK_COLUMNS);
    this.checkGroups = new Collection(this.db, 'check_groups', 'integer');
    this.maintenanceWindows = new Collection(this.db, 'maintenance_windows', 'integer');
    this.services = new Collection(this.db, 'services', 'uuid');
    this.alertChannels = new Collection(this.db, 'alert_channels', 'integer');
    this.subscriptions = new SubscriptionIndex(this.db);
    this.idempotency = new IdempotencyStore(this.db);
    this.#inSavepoint = this.db.transaction((work: () => unknown) => work());
    this.#unitStatements = {
      open: this.db.prepare('SAVEPOINT vigil_unit'),
      release: this.db.prepare('RELEASE vigil_unit'),
      rollback: this.db.prepare('ROLLBACK TO vigil_unit'),
    };
    this.#scopeStatements = {
      open: this.db.prepare('SAVEPOINT vigil_scope'),
      release: this.db.prepare('RELEASE vigil_scope'),
      rollback: this.db.prepare('ROLLBACK TO vigil_scope'),
    };
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
    const batch = this.#openBatch();
    // A write that lands while a unit of work is open is inside the unit's savepoint: if the unit
    // rolls back, this write goes with it, and the whole group must fail rather than answer it.
    if (this.#unit) this.#unit.joined = true;
    const result = this.#inSavepoint(work) as T;
    return { result, committed: batch.done };
  }

  /**
   * Runs its argument in a savepoint of the open transaction. One wrapper for every call, made when
   * the store opens: better-sqlite3 builds four functions at each `transaction()`, which at a few
   * writes per recorded run was a tenth of its cost.
   */
  readonly #inSavepoint: (work: () => unknown) => unknown;

  #batch: Batch | undefined;

  #openBatch(): Batch {
    if (this.#batch) return this.#batch;
    if (this.db.inTransaction) throw new Error('writeBatched inside another transaction; this is a bug in vigil');
    this.db.exec('BEGIN');
    let settle!: { resolve: () => void; reject: (error: Error) => void };
    const done = new Promise<void>((resolve, reject) => {
      settle = { resolve, reject };
    });
    // A request whose own work failed never awaits the commit; its rejection must not go unhandled.
    done.catch(() => undefined);
    const batch: Batch = { openedByUnit: false, done, ...settle };
    this.#batch = batch;
    if (this.#sharedInProcess()) {
      const onFile = batchesOnFile.get(this.db.name) ?? new Set<Batch>();
      batchesOnFile.set(this.db.name, onFile);
      onFile.add(batch);
      const ended = () => {
        onFile.delete(batch);
        if (onFile.size === 0 && batchesOnFile.get(this.db.name) === onFile) batchesOnFile.delete(this.db.name);
      };
      done.then(ended, ended);
    }
    setImmediate(() => this.#commitBatch());
    return batch;
  }

  #commitBatch(): void {
    if (this.#unit) {
      // A unit's savepoint is open: COMMIT would commit half of it. Its end commits the group. It has
      // waited past this turn, so other writes may have nested inside its savepoint.
      this.#unit.joined = true;
      this.#unit.flushWhenDone = true;
      return;
    }
    const batch = this.#batch;
    if (!batch) return;
    try {
      this.db.exec('COMMIT');
      this.#batch = undefined;
      batch.resolve();
    } catch (error) {
      this.#failBatch(batch, error as Error);
    }
  }

  #failBatch(batch: Batch, error: Error): void {
    if (this.#batch === batch) this.#batch = undefined;
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
    this.#writesUndone();
    batch.reject(error);
  }

  /** What was cached from rows a rollback took back must be read again. */
  #writesUndone(): void {
    for (const collection of [this.checks, this.checkGroups, this.maintenanceWindows, this.services, this.alertChannels]) {
      collection.forgetPositions();
    }
    statusWritesUndone(this.db);
  }

  /**
   * A unit's savepoint statements, prepared once: `exec` parses its text at every call, which for the
   * two a unit needs cost a check's create about 10 µs of CPU.
   */
  readonly #unitStatements: { readonly open: Statement; readonly release: Statement; readonly rollback: Statement };

  /** The unit of work whose savepoint is open, if one is. */
  #unit: OpenUnit | undefined;
  /** Settles once the last unit asked for has closed its savepoint: the next one starts then (an in-memory database's; a file's units take turns in `unitsClosedOnFile`). */
  #unitsClosed: Promise<void> = Promise.resolve();
  /** Units asked for whose savepoint has not closed yet (running or waiting their turn). */
  #unitsPending = 0;

  /**
   * Runs an async unit of work in its own savepoint of the group commit, one unit at a time on this
   * connection, and resolves to its result once the group has committed. `work` must only await
   * writes that run their statements at once in the open transaction (the unit's ports), never the
   * group's commit, which waits for the unit. A throw undoes only the unit's writes (ROLLBACK TO) and
   * rejects with that error; synchronous writes of the same turn commit as usual.
   *
   * A unit normally ends within the turn it started in. One that awaits past it (a timer, I/O) holds
   * the group's COMMIT until it ends; writes that landed meanwhile are inside its savepoint, so if it
   * then fails, the whole group is rolled back and their `committed` rejects, never answering a write
   * that did not stay.
   */
  async unitOfWork<T>(work: () => Promise<T>): Promise<T> {
    const file = this.db.memory ? undefined : this.db.name;
    const previous = file === undefined ? this.#unitsClosed : (unitsClosedOnFile.get(file) ?? Promise.resolve());
    let closeTurn!: () => void;
    const turnClosed = new Promise<void>((resolve) => {
      closeTurn = resolve;
    });
    const closed = () => {
      if (file !== undefined && unitsClosedOnFile.get(file) === turnClosed) unitsClosedOnFile.delete(file);
      closeTurn();
    };
    if (file === undefined) this.#unitsClosed = turnClosed;
    else unitsClosedOnFile.set(file, turnClosed);
    this.#unitsPending += 1;
    await previous;
    // The file's turn is this unit's now: another connection's batch still open was begun by a
    // synchronous write (units commit theirs as they end when shared), and commits with its turn.
    for (let other = this.otherConnectionWriting(); other; other = this.otherConnectionWriting()) await other;
    let batch: Batch;
    const unit: OpenUnit = { joined: false, flushWhenDone: false };
    try {
      if (!this.#batch) {
        batch = this.#openBatch();
        batch.openedByUnit = true;
      } else {
        batch = this.#batch;
      }
      this.#unitStatements.open.run();
      this.#unit = unit;
    } catch (error) {
      this.#unitsPending -= 1;
      closed();
      throw error;
    }
    let result: T;
    try {
      result = await work();
      this.#unit = undefined;
      this.#unitStatements.release.run();
    } catch (error) {
      this.#unit = undefined;
      if (unit.joined) {
        this.#failBatch(batch, new Error('a unit of work that other writes had joined was rolled back, and their group commit with it'));
      } else {
        this.#unitStatements.rollback.run();
        this.#unitStatements.release.run();
        this.#writesUndone();
      }
      throw error;
    } finally {
      this.#unitsPending -= 1;
      closed();
      // Shared in process, the next unit in the file's turn may be another connection's: it must find
      // the write lock free.
      if (unit.flushWhenDone || (this.#batch === batch && batch.openedByUnit && this.#sharedInProcess())) this.#commitBatch();
    }
    await batch.done;
    return result;
  }

  /**
   * Settles once a group commit that another connection of this process has open on the file has
   * ended; undefined when none is open (always, unless the file is shared in process). A write that
   * would begin a transaction of its own on this connection awaits it, again until undefined: its
   * busy wait for that connection's write lock would block the thread the lock's release needs.
   */
  otherConnectionWriting(): Promise<void> | undefined {
    if (this.db.memory) return undefined;
    const onFile = batchesOnFile.get(this.db.name);
    if (!onFile) return undefined;
    for (const batch of onFile) {
      if (batch !== this.#batch) return batch.done.then(noop, noop);
    }
    return undefined;
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

  /**
   * Runs `work` in a savepoint of the open unit (`TransactionPorts.savepoint`): a throw undoes only
   * what `work` wrote and rejects with that error. Writes of the group that landed meanwhile (`work`
   * awaited past its turn) sit inside this savepoint too and must not be undone with it; then what
   * `work` wrote stays as far as it got (each port write is atomic by itself) and the error rejects.
   */
  async savepointInUnit<T>(work: () => Promise<T>): Promise<T> {
    const unit = this.#unit;
    if (!unit) throw new Error('a savepoint was asked for outside a unit of work; this is a bug in vigil');
    const joinedBefore = unit.joined;
    unit.joined = false;
    this.#scopeStatements.open.run();
    try {
      const result = await work();
      this.#scopeStatements.release.run();
      return result;
    } catch (error) {
      if (!unit.joined) {
        this.#scopeStatements.rollback.run();
        this.#writesUndone();
      }
      this.#scopeStatements.release.run();
      throw error;
    } finally {
      unit.joined ||= joinedBefore;
    }
  }

  readonly #scopeStatements: { readonly open: Statement; readonly release: Statement; readonly rollback: Statement };

  /** Whether a unit of work's savepoint is open now (the unit's ports refuse writes otherwise). */
  get unitOpen(): boolean {
    return this.#unit !== undefined;
  }

  /** Whether another connection of this process has the same file open (replicas in one process). */
  #sharedInProcess(): boolean {
    return !this.db.memory && (openInProcess.get(this.db.name) ?? 0) > 1;
  }

  close(): void {
    this.#commitBatch();
    if (this.db.open) {
      this.db.close();
      if (!this.db.memory) {
        const left = (openInProcess.get(this.db.name) ?? 1) - 1;
        if (left > 0) openInProcess.set(this.db.name, left);
        else openInProcess.delete(this.db.name);
      }
    }
  }
}

function noop(): void {}
