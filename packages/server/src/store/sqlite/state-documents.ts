/**
 * The project-states port (project-state-ports.ts) on `state_documents` and `state_locks` (steps 22
 * and 29 of migrations/). A project's turn needs nothing here: units of work on one database file take
 * turns already (Store.unitOfWork), so a unit reads and writes a project's state alone.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import { checkLockRequest, checkProjectKey, checkStoredState, type HeldLock, type LockRequest, type ProjectStates, type StoredState } from '../project-state-ports.js';
import { text } from '../port-rules.js';
import { committed, type BatchedSqlite } from './batched.js';

/** The statements, prepared once per connection's port. */
class StateStatements {
  readonly get: Statement;
  readonly put: Statement;
  readonly remove: Statement;
  readonly lock: Statement;
  readonly held: Statement;
  readonly renew: Statement;
  readonly unlock: Statement;

  constructor(db: SqliteDatabase) {
    this.get = db.prepare('SELECT lineage, serial, doc FROM state_documents WHERE account_id = ? AND project = ?');
    this.put = db.prepare(
      `INSERT INTO state_documents (account_id, project, lineage, serial, doc, updated_ms) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, project) DO UPDATE SET lineage = excluded.lineage, serial = excluded.serial, doc = excluded.doc, updated_ms = excluded.updated_ms`,
    );
    this.remove = db.prepare('DELETE FROM state_documents WHERE account_id = ? AND project = ?');
    this.lock = db.prepare('INSERT OR IGNORE INTO state_locks (account_id, project, lock_id, info, created_ms, expires_ms) VALUES (?, ?, ?, ?, ?, ?)');
    this.held = db.prepare('SELECT lock_id AS lockId, info, created_ms AS createdMs, expires_ms AS expiresMs FROM state_locks WHERE account_id = ? AND project = ?');
    this.renew = db.prepare('UPDATE state_locks SET expires_ms = ? WHERE account_id = ? AND project = ? AND lock_id = ?');
    this.unlock = db.prepare('DELETE FROM state_locks WHERE account_id = ? AND project = ? AND lock_id = ?');
  }
}

export class SqliteProjectStates implements ProjectStates {
  readonly #store: BatchedSqlite;
  #prepared: StateStatements | undefined;

  constructor(store: BatchedSqlite) {
    this.#store = store;
  }

  /**
   * Prepared at the first call rather than at construction: a unit's ports are built while its
   * savepoint is open, and reading `db` each call is what refuses a unit's port used after the unit.
   */
  #statements(): StateStatements {
    const db = this.#store.db;
    return (this.#prepared ??= new StateStatements(db));
  }

  async takeTurn(accountId: string, project: string): Promise<void> {
    checkProjectKey(accountId, project);
  }

  async get(accountId: string, project: string): Promise<StoredState | undefined> {
    checkProjectKey(accountId, project);
    return this.#statements().get.get(accountId, project) as StoredState | undefined;
  }

  async put(accountId: string, project: string, state: StoredState, nowMs: number): Promise<void> {
    checkProjectKey(accountId, project);
    checkStoredState(state, nowMs);
    await committed(this.#store, () => this.#statements().put.run(accountId, project, state.lineage, state.serial, state.doc, nowMs));
  }

  async remove(accountId: string, project: string): Promise<boolean> {
    checkProjectKey(accountId, project);
    return committed(this.#store, () => this.#statements().remove.run(accountId, project).changes > 0);
  }

  async lock(accountId: string, project: string, lock: LockRequest): Promise<{ taken: boolean; holder: HeldLock }> {
    checkProjectKey(accountId, project);
    checkLockRequest(lock);
    return committed(this.#store, () => {
      const statements = this.#statements();
      const taken = statements.lock.run(accountId, project, lock.lockId, lock.info, lock.nowMs, lock.expiresMs).changes > 0;
      if (!taken) statements.renew.run(lock.expiresMs, accountId, project, lock.lockId);
      return { taken, holder: statements.held.get(accountId, project) as HeldLock };
    });
  }

  async held(accountId: string, project: string): Promise<HeldLock | undefined> {
    checkProjectKey(accountId, project);
    return this.#statements().held.get(accountId, project) as HeldLock | undefined;
  }

  async unlock(accountId: string, project: string, lockId: string): Promise<boolean> {
    checkProjectKey(accountId, project);
    text('lock id', lockId, 200);
    return committed(this.#store, () => this.#statements().unlock.run(accountId, project, lockId).changes > 0);
  }
}
