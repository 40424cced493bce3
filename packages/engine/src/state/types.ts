/**
 * The state document and the backend interface every state store implements. These
 * types are the contract between the planner, apply, the `vigil state` commands and the backends.
 */
import type { ResourceKind } from '@vigil/constructs';

export type { ResourceKind };

/** `${kind}.${logicalId}`, e.g. `api-check.home`. */
export type Address = string;

/** The id the monitoring service gave a resource (checks use uuids, groups numbers). */
export type RemoteId = string | number;

/**
 * Where a state belongs: a document is only ever used against the target that created it. A
 * service that reports its identity (`serviceId`, `GET /v1/accounts/me`) is that service wherever it
 * listens; one that does not is its URL.
 */
export interface StateTarget {
  baseUrl: string;
  accountId: string;
  serviceId?: string;
}

/** One JSON document per project and target. */
export interface StateDocument {
  version: 1;
  /** Fixed when the document is created; a write with a different lineage is refused. */
  lineage: string;
  /** +1 on every write, so a saved plan can tell that state moved on since it was made. */
  serial: number;
  project: string;
  target: StateTarget;
  resources: Record<Address, StateResource>;
  /** Operations started but not yet resolved: written before a call, removed after it. */
  journal: JournalEntry[];
}

export interface StateResource {
  kind: ResourceKind;
  remoteId: RemoteId;
  /** The last-applied payload, secret values replaced by `hashSecret()`. */
  applied: Record<string, unknown>;
  dependsOn: Address[];
  /** Set when the construct had `protect: true`, so a plan that deletes it after removal from code still refuses. */
  protect?: boolean;
}

export type JournalOperation = 'create' | 'update' | 'delete';

/** A pending operation: what an interrupted apply was doing, so the next one can finish it. */
export interface JournalEntry {
  id: string;
  operation: JournalOperation;
  address: Address;
  kind: ResourceKind;
  /** ISO timestamp. */
  startedAt: string;
  /** Sent with a create; re-sending it returns the resource created the first time. */
  idempotencyKey?: string;
  /** Known for updates and deletes. */
  remoteId?: RemoteId;
  /** For recovering a create by name on a service without idempotency support. */
  name?: string;
}

/**
 * One step of the apply journal, as a backend that logs steps records it: an operation begins, or
 * ends with its outcome (`resource` null: the resource is gone; `address` absent: nothing changed).
 */
export type JournalStep =
  | { readonly type: 'begin'; readonly entry: JournalEntry }
  | { readonly type: 'complete'; readonly id: string; readonly address?: Address; readonly resource?: StateResource | null };

/** Who holds a state lock, as recorded in the lock itself. */
export interface LockOwner {
  /** Random token: release() only removes a lock whose token is still its own. */
  id: string;
  pid: number;
  host: string;
  user: string;
  /** The command line that took the lock, e.g. `vigil apply`. */
  command: string;
  /** ISO timestamp. */
  createdAt: string;
}

/** A place where state lives: a local file, or a server speaking Terraform's http backend protocol. */
export interface StateBackend {
  /** Where the state is, for messages: `.vigil/state.json`. */
  describe(): string;
  /**
   * Takes the exclusive lock, waiting up to `timeoutMs` for another holder to let go. Fails with a
   * `StateError` naming the owner (code `state-locked`, or `state-lock-stale` when the owner is dead).
   */
  lock(options: LockOptions): Promise<StateLock>;
  /** The current document, validated; `undefined` when there is none yet. Needs no lock. */
  read(): Promise<StateDocument | undefined>;
  /**
   * Removes the lock whoever holds it (`vigil state unlock --force`); with `onlyExpired`, only a
   * lock its server reports as expired (`vigil state unlock`), checked in the same look at the lock
   * that removes it, so a lock taken meanwhile by a live holder is left alone.
   */
  forceUnlock(options?: ForceUnlockOptions): Promise<ForceUnlockResult>;
  /** Who holds the lock now, without taking or breaking it; `undefined` when nobody does. */
  lockHolder(): Promise<LockHolder | undefined>;
}

export interface LockOptions {
  timeoutMs: number;
  command: string;
  /**
   * Called once, when the lock is held by someone else and the backend starts waiting for it, with
   * who holds it, so the command can say what it is waiting for.
   */
  onWait?: (holder: LockHolder) => void;
}

/**
 * Who holds a lock: `owner` when a vigil wrote it, and always a description for messages (a lock
 * taken by another tool names no vigil owner).
 */
export interface LockHolder {
  owner?: LockOwner;
  description: string;
  /**
   * When the lock lapses unless its holder renews it (ISO), for a server whose locks expire (the
   * service backend's); a running vigil renews its lock long before.
   */
  expiresAt?: string;
  /** The server says the holder did not renew the lock in time: it was killed or lost the server, on whichever machine. The lock is still held. */
  expired?: boolean;
}

export interface ForceUnlockOptions {
  onlyExpired?: boolean;
}

/**
 * How a write sets the stored serial and lineage. By default the stored copy gets the next serial
 * and must have the stored lineage; `vigil state push` and `migrate` copy a document as it is.
 */
export interface StateWriteOptions {
  /** Store the document's own serial; it must be newer than the stored one unless `force` is set. */
  keepSerial?: boolean;
  /** Replace a document of another lineage or a newer serial (`vigil state push --force`). */
  force?: boolean;
}

/** What `forceUnlock` removed: `owner` is absent when the lock named no readable owner. */
export interface ForceUnlockResult {
  removed: boolean;
  owner?: LockOwner;
  /** Who held it, for messages, also when it was not a vigil. */
  holder?: string;
  /** When the removed lock had expired (or, with `onlyExpired` and nothing removed, when the lock found expires). */
  expiresAt?: string;
  /** The removed lock had expired; false with `onlyExpired` when the lock found had not, and was left. */
  expired?: boolean;
}

/** Proof of holding the lock; the only way to write. */
export interface StateLock {
  /**
   * Writes the document atomically. The stored copy gets the next serial (previous serial + 1); the
   * argument is not modified, and `serial` reports the stored value afterwards.
   */
  write(document: StateDocument, options?: StateWriteOptions): Promise<void>;
  /**
   * Records journal steps durably without rewriting the whole document; `read()` returns the
   * document with them applied, and the stored copy's serial grows by one per step. Only while
   * `canAppendSteps` is true (there is a stored checkpoint to extend); otherwise write the document
   * whole. Optional: a backend without it gets whole writes.
   */
  appendSteps?(steps: readonly JournalStep[]): Promise<void>;
  /** Whether `appendSteps` may be called now. */
  readonly canAppendSteps?: boolean;
  /** Removes the lock if it is still ours. Safe to call twice. */
  release(): Promise<void>;
  /** The serial of the stored document (0 when there is none yet). */
  readonly serial: number;
}
