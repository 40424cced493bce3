/**
 * The project-states port (project-state-ports.ts) in PostgreSQL (migrations.ts, step 19), the tables
 * as SQLite keeps them. A project's turn is a transaction-scoped advisory lock on the project's key:
 * a row lock cannot be taken on a state not stored yet, and each statement after the lock reads what
 * the previous holder committed (READ COMMITTED), so replicas deciding on one project take turns.
 */
import { sql, type Kysely } from 'kysely';
import { text } from '../port-rules.js';
import { checkLockRequest, checkProjectKey, checkStoredState, type HeldLock, type LockRequest, type ProjectStates, type StoredState } from '../project-state-ports.js';
import type { PostgresSchema } from './database.js';
import { withinTransaction } from './documents.js';

/** On the pool, or on a unit of work's transaction. */
export class PostgresProjectStates implements ProjectStates {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async takeTurn(accountId: string, project: string): Promise<void> {
    checkProjectKey(accountId, project);
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`project-state ${JSON.stringify([accountId, project])}`}, 0))`.execute(this.#db);
  }

  async get(accountId: string, project: string): Promise<StoredState | undefined> {
    checkProjectKey(accountId, project);
    const { rows } = await sql<StoredState>`SELECT lineage, serial, doc FROM state_documents WHERE account_id = ${accountId} AND project = ${project}`.execute(this.#db);
    return rows[0];
  }

  async put(accountId: string, project: string, state: StoredState, nowMs: number): Promise<void> {
    checkProjectKey(accountId, project);
    checkStoredState(state, nowMs);
    await sql`
      INSERT INTO state_documents (account_id, project, lineage, serial, doc, updated_ms)
      VALUES (${accountId}, ${project}, ${state.lineage}, ${state.serial}, ${state.doc}, ${nowMs})
      ON CONFLICT (account_id, project) DO UPDATE
        SET lineage = excluded.lineage, serial = excluded.serial, doc = excluded.doc, updated_ms = excluded.updated_ms`.execute(this.#db);
  }

  async remove(accountId: string, project: string): Promise<boolean> {
    checkProjectKey(accountId, project);
    const result = await sql`DELETE FROM state_documents WHERE account_id = ${accountId} AND project = ${project}`.execute(this.#db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  async lock(accountId: string, project: string, lock: LockRequest): Promise<{ taken: boolean; holder: HeldLock }> {
    checkProjectKey(accountId, project);
    checkLockRequest(lock);
    return withinTransaction(this.#db, async (tx) => {
      const inserted = await sql`
        INSERT INTO state_locks (account_id, project, lock_id, info, created_ms, expires_ms)
        VALUES (${accountId}, ${project}, ${lock.lockId}, ${lock.info}, ${lock.nowMs}, ${lock.expiresMs})
        ON CONFLICT (account_id, project) DO NOTHING`.execute(tx);
      const taken = Number(inserted.numAffectedRows ?? 0) > 0;
      if (!taken) {
        await sql`UPDATE state_locks SET expires_ms = ${lock.expiresMs} WHERE account_id = ${accountId} AND project = ${project} AND lock_id = ${lock.lockId}`.execute(tx);
      }
      const holder = await new PostgresProjectStates(tx).held(accountId, project);
      // Not taken and gone: its holder unlocked it between the two statements; the next LOCK takes it.
      return { taken, holder: holder! };
    });
  }

  async held(accountId: string, project: string): Promise<HeldLock | undefined> {
    checkProjectKey(accountId, project);
    const { rows } = await sql<HeldLock>`
      SELECT lock_id AS "lockId", info, created_ms AS "createdMs", expires_ms AS "expiresMs"
      FROM state_locks WHERE account_id = ${accountId} AND project = ${project}`.execute(this.#db);
    return rows[0];
  }

  async unlock(accountId: string, project: string, lockId: string): Promise<boolean> {
    checkProjectKey(accountId, project);
    text('lock id', lockId, 200);
    const result = await sql`DELETE FROM state_locks WHERE account_id = ${accountId} AND project = ${project} AND lock_id = ${lockId}`.execute(this.#db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }
}
