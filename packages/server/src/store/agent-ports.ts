/**
 * Runner agents' storage as ports (part of ports.ts, with an engine per database and the contract
 * suites contract/agent-leases.test.ts and contract/private-locations.test.ts):
 *
 * - Agent leases: runs of locations not executed in-process wait here for an agent of their queue,
 *   which takes one under a lease that expires unless renewed. Replicas share the table, so a run
 *   leased through one replica is renewed, reported and released through any other, and a report
 *   counts only under the run's current lease, once.
 * - Agent presence: who polled (or reported), through which replica soever, and what each last said.
 *   Replicas decide from it whether a queue has a live agent anywhere before they record its runs as
 *   not executed, and list agents from it. An agent of a private location counts only while the key
 *   it polled with exists, so revoking a key makes its agents gone on every replica at the commit.
 * - Private locations and their agent keys: the locations (documents with a slug unique per account)
 *   and the keys their agents present, kept as SHA-256 digests.
 */
import type { RunJob as WireRunJob } from '@vigil/schema';
import { moment, positive, shown, StoreInputError, text } from './port-rules.js';

/** A run handed to an agent: the wire job and the lease it holds until `leaseExpiresMs`. */
export interface LeasedRun {
  readonly leaseId: string;
  readonly leaseExpiresMs: number;
  readonly job: WireRunJob;
  /** Its first hand-out: the run starts now (a later one is the same run tried again). */
  readonly first: boolean;
}

/** A run still waiting (never handed out, or its lease expired). */
export interface OpenRun {
  readonly accountId: string;
  readonly key: string;
  readonly job: WireRunJob;
  readonly queuedMs: number;
  /** How many times it was handed out before. */
  readonly handouts: number;
}

/** Why a report is refused, or the run it completes. */
export type Completion =
  | { readonly kind: 'completed'; readonly job: WireRunJob; readonly agentId: string }
  | { readonly kind: 'unknown-lease' }
  | { readonly kind: 'already-finished'; readonly key: string; readonly outcome: string }
  | { readonly kind: 'other-run'; readonly key: string };

/** The run a lease was handed with (current lease or a finished run's last one), and its queue. */
export interface LeaseHolder {
  readonly job: WireRunJob;
  readonly queue: string;
}

/**
 * What `AgentLeases.onQueued` tells: runs were queued in `queue` (through any replica, this one
 * included), or `listening`: the listener now hears of runs queued from here on, and may have missed
 * some before (it just started, or its engine lost its way to the database for a while), so a hub
 * looks at every queue then.
 */
export type QueuedEvent = { readonly kind: 'queued'; readonly queue: string } | { readonly kind: 'listening' };

/** Finished runs are kept this long, so a late report is told "already recorded" rather than "unknown". */
export const FINISHED_RUN_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface AgentLeases {
  /**
   * Queues a claimed slot's job for the agents of `queue` (its location, or a private location's
   * `slug@account`), replacing older runs of its check and queue that no agent took yet: whether it
   * was queued (false: that slot is queued already) and how many runs it replaced.
   */
  enqueue(job: WireRunJob, queue: string, nowMs: number): Promise<{ queued: boolean; superseded: number }>;
  /**
   * Hands up to `max` runs of `queue` to `agentId` until `nowMs + leaseMs`, oldest slot first: runs never
   * handed out and runs whose lease expired, each under a fresh lease id. Of replicas handing out at
   * once, each run goes to one agent.
   */
  claim(queue: string, agentId: string, max: number, nowMs: number, leaseMs: number): Promise<LeasedRun[]>;
  /** Extends the leases `agentId` still holds on unfinished runs; resolves to those extended. */
  renew(agentId: string, leaseIds: readonly string[], nowMs: number, leaseMs: number): Promise<string[]>;
  /**
   * Finishes the run leased under `leaseId` as reported, when that lease is the run's current one and
   * the run is not finished: the one way a report is recorded. A lease that expired but went to nobody
   * else still counts.
   */
  complete(leaseId: string, key: string, nowMs: number): Promise<Completion>;
  /** The run `leaseId` was handed with, and its queue; undefined for a lease never handed out (or pruned). */
  leased(leaseId: string): Promise<LeaseHolder | undefined>;
  /**
   * Ends the live leases of these agents at `nowMs`, so the next agent of their queue takes those
   * runs; the runs freed are told to `onQueued` listeners on every replica as queued runs are.
   */
  release(agentIds: readonly string[], nowMs: number): Promise<number>;
  /**
   * The earliest moment after `nowMs` at which a lease on an unfinished run of `queue` runs out
   * (undefined: no lease runs then). A lease's end is a moment, not a write, so nothing can tell it
   * when it comes: a replica whose agent polls wait on the queue wakes them then itself.
   */
  nextLeaseEnd(queue: string, nowMs: number): Promise<number | undefined>;
  /** Runs leased to an agent at `nowMs`, and runs waiting for one. */
  counts(nowMs: number): Promise<{ running: number; waiting: number }>;
  /** Queues with runs not finished. */
  openQueues(): Promise<string[]>;
  /** Up to `limit` runs of `queue` queued at or before `queuedBeforeMs` that no agent holds at `nowMs`, oldest slot first. */
  waiting(queue: string, queuedBeforeMs: number, nowMs: number, limit: number): Promise<OpenRun[]>;
  /** Finishes a run no agent will report (no agent of its queue is there): false when it finished already. */
  giveUp(accountId: string, key: string, nowMs: number): Promise<boolean>;
  /** Deletes runs finished over FINISHED_RUN_RETENTION_MS before `nowMs`, a batch at a time; resolves to how many went. */
  prune(nowMs: number): Promise<number>;
  /**
   * Tells `listener` of runs stored by `enqueue`, or freed by `release`, through any replica, so a
   * hub wakes the polls of their queue without waiting for its sweep: `listening` first, once it
   * hears, then `queued` for each queue soon after its run committed (PostgreSQL: LISTEN/NOTIFY,
   * delivered on commit; SQLite: a look at the newest queued row ten times a second, a freed run
   * being moved to the newest). Not exactly once per run: several runs of a
   * queue may be told as one, and a run is told to its own replica too; runs queued while the engine
   * could not hear (PostgreSQL's connection away) are not told, and `listening` comes again once it
   * hears. Until the returned function is called (closing the ports ends it as well).
   */
  onQueued(listener: (event: QueuedEvent) => void): () => void;
}

export function checkQueuedListener(listener: unknown): void {
  if (typeof listener !== 'function') throw new StoreInputError(`onQueued needs a listener function, got ${shown(listener)}`);
}

export function checkLeasedJob(job: WireRunJob, queue: string, nowMs: number): void {
  if (job === null || typeof job !== 'object') throw new StoreInputError('a leased run needs its job');
  text('accountId', job.accountId);
  text('key', job.key, 1000);
  text('checkId', job.checkId, 255);
  moment('dueMs', job.dueMs);
  text('queue', queue, 1000);
  moment('nowMs', nowMs);
}

export function checkLeaseRequest(queue: string, agentId: string, max: number, nowMs: number, leaseMs: number): void {
  text('queue', queue, 1000);
  text('agentId', agentId, 1000);
  if (!Number.isSafeInteger(max) || max < 0) throw new StoreInputError(`max must be a whole number of at least 0, got ${shown(max)}`);
  moment('nowMs', nowMs);
  positive('leaseMs', leaseMs);
}

export function checkLeaseIds(agentId: string, leaseIds: readonly string[]): void {
  text('agentId', agentId, 1000);
  if (!Array.isArray(leaseIds)) throw new StoreInputError('leaseIds must be a list');
  for (const leaseId of leaseIds) text('leaseId', leaseId, 1000);
}

/** What an agent said when it was last heard from: its poll's fields, and who it is by its key. */
export interface AgentSighting {
  readonly agentId: string;
  /** The queue it polls (routing.ts): a location's name, or a private location's `slug@account`. */
  readonly queue: string;
  readonly location: string;
  /** Set for a private location's agent: whose location, which one, and the key it presented. */
  readonly privateLocation?: { readonly accountId: string; readonly id: string; readonly keyId: string };
  readonly agentVersion: string;
  readonly wireVersion: number;
  readonly runsInFlight: number;
  readonly lastSeenMs: number;
}

/** An agent as the database knows it. */
export interface AgentPresenceRecord extends AgentSighting {
  /** False once the private location's key it polled with was deleted: it is gone until it polls with a good one. */
  readonly keyHeld: boolean;
}

/** Agents not heard from for this long are forgotten (no longer listed as gone). */
export const AGENT_PRESENCE_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface AgentPresence {
  /**
   * Records what an agent (of its queue) said at `lastSeenMs`. One older than what is stored changes
   * nothing: replicas' writes of one agent may land out of order.
   */
  seen(sighting: AgentSighting): Promise<void>;
  /** The agent of `queue` was heard from at `nowMs` (a report): moves its last sighting, if it is known. */
  touch(queue: string, agentId: string, nowMs: number): Promise<void>;
  /** Of `queues`, those with an agent heard from after `seenAfterMs` whose key (for a private location) still exists. */
  liveQueues(queues: readonly string[], seenAfterMs: number): Promise<string[]>;
  /** The agents of public locations and, with `accountId`, that account's private locations' agents: one per queue and agent id. */
  list(accountId: string | undefined): Promise<AgentPresenceRecord[]>;
  /** The agents last heard from with this private location's key, and their queues. */
  holdersOfKey(keyId: string): Promise<Array<{ readonly agentId: string; readonly queue: string }>>;
  /** Forgets agents last heard from before `seenBeforeMs`; resolves to how many. */
  prune(seenBeforeMs: number): Promise<number>;
}

export function checkSighting(sighting: AgentSighting): void {
  if (sighting === null || typeof sighting !== 'object') throw new StoreInputError('a sighting must be an object');
  text('agentId', sighting.agentId, 1000);
  text('queue', sighting.queue, 1000);
  text('location', sighting.location, 1000);
  if (sighting.privateLocation !== undefined) {
    text('accountId', sighting.privateLocation.accountId, 1000);
    text('privateLocationId', sighting.privateLocation.id, 255);
    text('keyId', sighting.privateLocation.keyId, 255);
  }
  text('agentVersion', sighting.agentVersion, 1000);
  if (!Number.isSafeInteger(sighting.wireVersion) || sighting.wireVersion < 0) throw new StoreInputError(`wireVersion must be a whole number of at least 0, got ${shown(sighting.wireVersion)}`);
  if (!Number.isSafeInteger(sighting.runsInFlight) || sighting.runsInFlight < 0) throw new StoreInputError(`runsInFlight must be a whole number of at least 0, got ${shown(sighting.runsInFlight)}`);
  moment('lastSeenMs', sighting.lastSeenMs);
}

export function checkQueues(queues: readonly string[]): void {
  if (!Array.isArray(queues)) throw new StoreInputError('queues must be a list');
  for (const queue of queues) text('queue', queue, 1000);
}

/** A private location as the API stores it: its id, the slug checks name it by, and the rest of its document. */
export type PrivateLocationDocument = Record<string, unknown> & { readonly id: string; readonly slugName: string };

/** One agent key of a private location, as listed (the key itself is never stored). */
export interface PrivateLocationKeyRecord {
  readonly id: string;
  readonly privateLocationId: string;
  /** The key's last four characters, `...6a1e`. */
  readonly maskedKey: string;
  readonly createdAt: string;
}

/** Whose a presented key is: the location it runs for, by id and by the slug checks name. */
export interface PrivateLocationKeyHolder {
  readonly accountId: string;
  readonly privateLocationId: string;
  readonly keyId: string;
  readonly slugName: string;
}

/**
 * A create refused because another private location of the account has the slug, also when it was
 * created by a transaction that committed while this one ran.
 */
export class PrivateLocationSlugTaken extends Error {
  override readonly name = 'PrivateLocationSlugTaken';
  constructor(readonly slugName: string) {
    super(`a private location with slugName ${JSON.stringify(slugName)} already exists`);
  }
}

export interface PrivateLocations {
  /** Stores a new location; rejects with PrivateLocationSlugTaken when the account has one with its slug. */
  insert(accountId: string, location: PrivateLocationDocument): Promise<void>;
  get(accountId: string, id: string): Promise<PrivateLocationDocument | undefined>;
  /** One page (`page` from 1) of the account's locations, oldest first, with how many it has. */
  page(accountId: string, paging: { limit: number; page: number }): Promise<{ items: PrivateLocationDocument[]; total: number }>;
  /** Replaces the stored location of its id; false when there is none. */
  replace(accountId: string, location: PrivateLocationDocument): Promise<boolean>;
  /** Deletes the location and its keys: the ids of the keys deleted, or undefined when there was no such location. */
  remove(accountId: string, id: string): Promise<string[] | undefined>;
  /** Stores a key of the location by its SHA-256 digest. */
  addKey(accountId: string, key: PrivateLocationKeyRecord, digest: Uint8Array): Promise<void>;
  /** The location's keys, oldest first. */
  keysOf(accountId: string, privateLocationId: string): Promise<PrivateLocationKeyRecord[]>;
  /** Deletes a key of the location; false when it has no such key. */
  removeKey(accountId: string, privateLocationId: string, keyId: string): Promise<boolean>;
  /** Who holds the key of this digest, by an index on the digest (its time says nothing of how much of a key was right). */
  keyHolder(digest: Uint8Array): Promise<PrivateLocationKeyHolder | undefined>;
}

export function checkPrivateLocation(accountId: string, location: PrivateLocationDocument): void {
  text('accountId', accountId);
  if (location === null || typeof location !== 'object' || Array.isArray(location)) throw new StoreInputError('a private location must be an object');
  text('privateLocationId', location.id, 255);
  text('slugName', location.slugName, 255);
}

export function checkPrivateLocationKey(accountId: string, key: PrivateLocationKeyRecord, digest: Uint8Array): void {
  text('accountId', accountId);
  text('keyId', key.id, 255);
  text('privateLocationId', key.privateLocationId, 255);
  text('maskedKey', key.maskedKey, 255);
  text('createdAt', key.createdAt, 255);
  checkDigest(digest);
}

export function checkDigest(digest: Uint8Array): void {
  if (!(digest instanceof Uint8Array) || digest.length !== 32) throw new StoreInputError('a key digest must be the 32 bytes of a SHA-256');
}
