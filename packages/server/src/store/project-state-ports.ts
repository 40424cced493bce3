/**
 * Project states as a storage port (part of ports.ts, with an engine per database and the contract
 * suite contract/project-states.test.ts): the state documents `vigil plan`/`apply` keep on the service
 * (the `service` state backend), one per account and project, with the project's lock.
 *
 * The rules on what may be written (the lineage never changes, the serial only grows, only the lock's
 * holder writes) are the route's (routes/state.ts): it reads, decides and writes in one unit of work,
 * after taking the project's turn (`takeTurn`), so two replicas racing on one project decide one after
 * the other, each on what the other committed, exactly as two requests to one process do.
 *
 * A lock expires unless its holder renews it (takes it again under its id) in time. An expired lock
 * is not released: it is still held, and reported as expired, so a person decides to break it (its
 * holder may have been killed half-way through an apply whose journal the next apply must finish).
 */
import { moment, shown, StoreInputError, text } from './port-rules.js';

export interface StoredState {
  readonly lineage: string;
  readonly serial: number;
  /** The document's JSON text as its client sent it. */
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

export interface LockRequest {
  readonly lockId: string;
  readonly info: string;
  readonly nowMs: number;
  readonly expiresMs: number;
}

export interface ProjectStates {
  /**
   * Waits until no other unit of work holds the project's turn, and holds it until this unit ends:
   * what the unit reads of the project's state and lock afterwards is what the previous holder
   * committed. Only meaningful inside a unit of work (outside one the turn ends at once).
   */
  takeTurn(accountId: string, project: string): Promise<void>;
  get(accountId: string, project: string): Promise<StoredState | undefined>;
  /** Stores the state in place of the project's (or as its first). */
  put(accountId: string, project: string, state: StoredState, nowMs: number): Promise<void>;
  /** Deletes the project's state; false when there was none. */
  remove(accountId: string, project: string): Promise<boolean>;
  /**
   * Takes the lock until `expiresMs` unless someone holds it, or renews it until then when `lockId`
   * holds it already; resolves to the holder either way.
   */
  lock(accountId: string, project: string, lock: LockRequest): Promise<{ taken: boolean; holder: HeldLock }>;
  held(accountId: string, project: string): Promise<HeldLock | undefined>;
  /** Releases the lock if `lockId` is its id. */
  unlock(accountId: string, project: string, lockId: string): Promise<boolean>;
}

export function checkProjectKey(accountId: string, project: string): void {
  text('accountId', accountId);
  text('project', project, 200);
}

export function checkStoredState(state: StoredState, nowMs: number): void {
  text('lineage', state.lineage);
  if (!Number.isSafeInteger(state.serial) || state.serial < 0) throw new StoreInputError(`serial must be a whole number of at least 0, got ${shown(state.serial)}`);
  text('state document', state.doc);
  moment('nowMs', nowMs);
}

export function checkLockRequest(lock: LockRequest): void {
  text('lock id', lock.lockId, 200);
  text('lock info', lock.info);
  moment('nowMs', lock.nowMs);
  moment('expiresMs', lock.expiresMs);
}
