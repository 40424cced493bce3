/**
 * State documents that `vigil plan`/`apply` keep on the service (the `service` state backend), one per
 * account and project, with the project's lock. The service stores what the client sends and checks
 * only what keeps two writers from corrupting each other's view: the lineage never changes, the
 * serial only grows, and while a lock is held only its holder writes.
 *
 * A lock expires unless its holder renews it (takes it again under its id) in time. An expired lock
 * is not released: it is still held, and reported as expired, so a person decides to break it (its
 * holder may have been killed half-way through an apply whose journal the next apply must finish).
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';

export interface StoredState {
  readonly lineage: string;
  readonly serial: number;
  readonly doc: string;
}

export interface HeldLock {
  readonly lockId: string;
  /** The lock-info JSON its holder sent. */
  readonly info: string;
  readonly createdMs: number;
  /** When the lock lapses unless renewed; null for a lock taken before locks expired. */
  readonly expiresMs: number | null;
}

export class StateDocumentsTable {
  readonly #get: Statement;
  readonly #put: Statement;
  readonly #remove: Statement;
  readonly #lock: Statement;
  readonly #getLock: Statement;
  readonly #unlock: Statement;
  readonly #renew: Statement;

  constructor(db: SqliteDatabase) {
    this.#get = db.prepare('SELECT lineage, serial, doc FROM state_documents WHERE account_id = ? AND project = ?');
    this.#put = db.prepare(
      `INSERT INTO state_documents (account_id, project, lineage, serial, doc, updated_ms) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, project) DO UPDATE SET lineage = excluded.lineage, serial = excluded.serial, doc = excluded.doc, updated_ms = excluded.updated_ms`,
    );
    this.#remove = db.prepare('DELETE FROM state_documents WHERE account_id = ? AND project = ?');
    this.#lock = db.prepare('INSERT OR IGNORE INTO state_locks (account_id, project, lock_id, info, created_ms, expires_ms) VALUES (?, ?, ?, ?, ?, ?)');
    this.#getLock = db.prepare('SELECT lock_id AS lockId, info, created_ms AS createdMs, expires_ms AS expiresMs FROM state_locks WHERE account_id = ? AND project = ?');
    this.#renew = db.prepare('UPDATE state_locks SET expires_ms = ? WHERE account_id = ? AND project = ? AND lock_id = ?');
    this.#unlock = db.prepare('DELETE FROM state_locks WHERE account_id = ? AND project = ? AND lock_id = ?');
  }

  get(accountId: string, project: string): StoredState | undefined {
    return this.#get.get(accountId, project) as StoredState | undefined;
  }

  put(accountId: string, project: string, state: StoredState, nowMs: number): void {
    this.#put.run(accountId, project, state.lineage, state.serial, state.doc, nowMs);
  }

  remove(accountId: string, project: string): boolean {
    return this.#remove.run(accountId, project).changes > 0;
  }

  /**
   * Takes the lock until `expiresMs` unless someone holds it, or renews it until then when `lockId`
   * holds it already; resolves to the holder either way.
   */
  lock(accountId: string, project: string, lock: { lockId: string; info: string; nowMs: number; expiresMs: number }): { taken: boolean; holder: HeldLock } {
    const taken = this.#lock.run(accountId, project, lock.lockId, lock.info, lock.nowMs, lock.expiresMs).changes > 0;
    if (!taken) this.#renew.run(lock.expiresMs, accountId, project, lock.lockId);
    return { taken, holder: this.held(accountId, project)! };
  }

  held(accountId: string, project: string): HeldLock | undefined {
    return this.#getLock.get(accountId, project) as HeldLock | undefined;
  }

  /** Releases the lock if `lockId` is its id. */
  unlock(accountId: string, project: string, lockId: string): boolean {
    return this.#unlock.run(accountId, project, lockId).changes > 0;
  }
}
