/**
 * The ports of heartbeat monitors, written once and implemented by each engine (`sqlite/`,
 * `postgres/`), apart from ports.ts so that file stays readable: the deadlines a missed heartbeat is
 * failed by, exactly once across replicas, and the pings turned into results exactly once, each held
 * by a lease so a replica that dies leaves its work to another.
 */

import type { ResourceDocument } from './document-ports.js';

/** A heartbeat monitor as the ping route and the watch read it: its check, and its last ping. */
export interface HeartbeatMonitor {
  readonly accountId: string;
  /** The check's document as stored (its `checkType` is HEARTBEAT). */
  readonly check: ResourceDocument;
  /** When it was last pinged (ms since the epoch), or null while it never was. */
  readonly lastPingMs: number | null;
}

/** A heartbeat monitor as the deadline port watches it. */
export interface WatchedHeartbeat {
  readonly accountId: string;
  readonly checkId: string;
  /** The heartbeat's period and grace in milliseconds (`heartbeatDurationMs` of what the check says). */
  readonly periodMs: number;
  readonly graceMs: number;
  /** The last ping, or when the check was created while it was never pinged. */
  readonly anchorMs: number;
}

/** A missed window of one heartbeat, claimed by one caller. */
export interface MissedDeadline {
  readonly accountId: string;
  readonly checkId: string;
  /** When the window closed without a ping: the deadline this claim is for. */
  readonly dueMs: number;
  /** The anchor the window was counted from (last ping, or creation). */
  readonly anchorMs: number;
}

/** The window a claim named, as its holder confirms it (`MissedDeadline` fits). */
export interface MissedWindowKey {
  readonly accountId: string;
  readonly checkId: string;
  readonly dueMs: number;
}

/** The last window claimed for a check, and whether it is reported for good. */
export interface ClaimedWindow {
  readonly dueMs: number;
  /** Who claimed it last (null: a service from before the port, whose watch ran in its process). */
  readonly owner: string | null;
  /** Until when the claim's lease runs; null once the window is reported for good (confirmed). */
  readonly leaseUntilMs: number | null;
}

/**
 * The deadlines of heartbeat monitors, by the rules of heartbeats/deadlines.ts: the first window
 * closes `period + grace` after the anchor, the next ones one `period` apart while no ping comes, and
 * when several closed unseen (the service was down) the latest stands for them.
 *
 * A window is reported once, and never lost: a claim is a lease on it, keyed by check and deadline, so
 * of replicas claiming at once one gets it; its holder stores the failing result (elsewhere, in a
 * transaction of its own) and then confirms with `reportedMissed`, after which the window is never
 * handed out again. A holder that died between the claim and the confirm leaves a lease that runs out,
 * and the window is handed out again, so the result it may not have stored is stored by another.
 */
export interface HeartbeatDeadlines {
  /**
   * Watches a heartbeat, or updates its period and grace. The anchor only moves forward (an older
   * anchor than the stored one, such as a replica's stale copy of the check, is ignored).
   */
  watch(heartbeat: WatchedHeartbeat): Promise<void>;
  /**
   * Stops watching (the check was deleted or deactivated): its windows reported stay reported, and a
   * window claimed but not confirmed is given up (never handed out again: there is nothing to fail).
   * False when it was not watched.
   */
  forget(accountId: string, checkId: string): Promise<boolean>;
  /** A ping at `pingMs` restarts the check's windows from it; false when the check is not watched or has a later ping. */
  recordPing(accountId: string, checkId: string, pingMs: number): Promise<boolean>;
  /**
   * Claims for `owner`, until `nowMs + leaseMs`, up to `limit` windows, earliest deadline first:
   * windows whose lease ran out unconfirmed, and the latest missed window of each heartbeat whose
   * deadline passed by `nowMs` (inclusive) and that no one claimed. While a check's window is leased,
   * its later windows wait (they are handed out after the confirm, the latest standing for them).
   */
  claimMissed(nowMs: number, limit: number, owner: string, leaseMs: number): Promise<MissedDeadline[]>;
  /**
   * Records claimed windows as reported for good, once their results are stored. One answer per
   * window, in order: false when `owner` no longer holds its lease (it ran out and another caller took
   * the window over, the check was forgotten, or it was confirmed already).
   */
  reportedMissed(windows: readonly MissedWindowKey[], owner: string): Promise<boolean[]>;
  /** The last window claimed for the check (for tests and diagnostics). */
  reported(accountId: string, checkId: string): Promise<ClaimedWindow | undefined>;
}

/** A heartbeat ping as stored: the event its ping recorded, keyed by account and event id. */
export interface StoredPing {
  readonly accountId: string;
  readonly checkId: string;
  /** The event's id, unique in its account, and the id of the result the ping becomes. */
  readonly id: string;
  /** When the ping came, ms since the epoch. */
  readonly atMs: number;
  /** The event's JSON text (a `HeartbeatEvent` of @vigil/schema; engines store it as given). */
  readonly doc: string;
}

/** A claimed ping, as its holder confirms it (`StoredPing` fits). */
export interface PingKey {
  readonly accountId: string;
  readonly id: string;
}

/** Where a stored ping is on its way to its result. */
export interface PingProgress {
  /** True once its result is stored (confirmed), or when it was stored before monitoring first started. */
  readonly processed: boolean;
  /** Who claimed it last (null: never claimed). */
  readonly owner: string | null;
  /** Until when the claim's lease runs; null while unclaimed and once processed. */
  readonly leaseUntilMs: number | null;
}

/**
 * Heartbeat pings on their way to results: each ping becomes its result once, by one caller, in the
 * order its check was pinged. A claim is a lease on a check's pending pings, taken in the order they
 * were stored: while a check has pings leased to anyone, none of its pings is handed out (a newer
 * ping waits for the older ones' confirm), so of replicas claiming at once each check, and each
 * ping, goes to one. The holder stores the results (elsewhere, in a transaction of its own; the
 * result's id is the ping's, so storing it twice stores it once) and then confirms with `processed`,
 * after which the pings are never handed out again. A holder that died in between leaves a lease
 * that runs out, and the check's pings are handed out again, oldest first.
 */
export interface HeartbeatPings {
  /** Stores a ping, pending; false when its id is stored in its account already (nothing changes). */
  record(ping: StoredPing): Promise<boolean>;
  /**
   * The first call on a database marks every ping stored so far processed without a result, and
   * resolves to true: monitoring that starts for the first time begins at the newest ping, so pings
   * seeded or stored before it ever ran raise no alerts. Every later call does nothing and resolves
   * to false, so pings stored while monitoring was stopped are still handed out when it starts.
   */
  startOnce(): Promise<boolean>;
  /**
   * Claims for `owner`, until `nowMs + leaseMs`, up to `limit` pending pings, in the order stored, of
   * checks with no ping leased at `nowMs` (a lease that ran out by `nowMs` counts as none).
   */
  claim(owner: string, nowMs: number, leaseMs: number, limit: number): Promise<StoredPing[]>;
  /**
   * Records claimed pings as processed, once their results are stored. One answer per ping, in order:
   * false when `owner` no longer holds its lease (it ran out and another caller took the check's pings
   * over, or the ping was confirmed already).
   */
  processed(pings: readonly PingKey[], owner: string): Promise<boolean[]>;
  /**
   * A check's pings that came in `[fromMs, toMs)`, oldest first (ties by id), whatever their way to
   * results: what the heartbeat's events list and its success ratios read.
   */
  ofCheck(accountId: string, checkId: string, fromMs: number, toMs: number): Promise<StoredPing[]>;
  /** Where a ping is (for tests and diagnostics); undefined when no such ping is stored. */
  progress(accountId: string, id: string): Promise<PingProgress | undefined>;
  /**
   * The heartbeat check whose `heartbeat.pingToken` is `token`, in any account, with its last ping;
   * undefined when none has it. An indexed read on every engine: the ping route asks it at every ping.
   */
  monitorOfToken(token: string): Promise<HeartbeatMonitor | undefined>;
  /** Every heartbeat check of every account, with its last ping: what the watch keeps deadlines for. */
  monitors(): Promise<HeartbeatMonitor[]>;
  /**
   * Deletes up to `limit` pings that came before `beforeMs` and are processed (a pending one never: it
   * becomes its result first); resolves to how many went, so a caller prunes in short batches.
   */
  prune(beforeMs: number, limit: number): Promise<number>;
}
