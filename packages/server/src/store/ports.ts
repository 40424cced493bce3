/**
 * Storage ports: what the service asks of its database for the state that replicas of `vigil server`
 * must share, written once and implemented by each engine (`sqlite/`, `postgres/`). The contract
 * suite (`contract/`) runs the same assertions against every engine.
 *
 * Every method returns a Promise, even though SQLite answers synchronously: a PostgreSQL engine
 * answers over the network, and a port that returned plain values could only ever be SQLite.
 * What a method resolves to is settled: a write has committed before its Promise resolves, so a
 * replica that reads after it sees it.
 *
 * The aggregates here are those replicas cannot keep in their own memory without changing what
 * clients see: a replayed POST must find the first response whichever replica it reaches, a rate limit
 * must count every replica's requests, a slot must run once however many schedulers see it due, a
 * notification must be delivered by someone even when the replica that claimed it dies, a check's alert
 * state must move once per result however many replicas evaluate it, a missed heartbeat must fail once,
 * and a periodic job (pruning) must run once per period. The resources accounts declare are one more
 * port (document-ports.ts), with the change feed that tells each replica what another one changed,
 * and status pages another (status-page-ports.ts), with their incidents (incident-ports.ts).
 */
import type { CheckStatus } from '@vigil/schema';
import type { ResourceDocuments } from './document-ports.js';
import type { ArchivePatch, ErrorGroupState } from './error-group-rules.js';
import type { Incidents } from './incident-ports.js';
import type { StatusPages } from './status-page-ports.js';

/** A check or group, as the alert-subscription index names the owner of a subscription. */
export type SubscriptionOwnerKind = 'check' | 'group';

/** One alert channel a check or group is subscribed to, as its document lists it. */
export interface ChannelSubscription {
  readonly alertChannelId: number;
  readonly activated: boolean;
}

/** A check or group subscribed to one alert channel, as the channel's routes list it. */
export interface ChannelSubscriber {
  /** The subscription's public id, derived from what it joins (formats/subscription-ids.ts). */
  readonly id: number;
  readonly ownerKind: SubscriptionOwnerKind;
  readonly ownerId: string;
  readonly activated: boolean;
}

/** A POST's first successful response, remembered under its `Idempotency-Key`. */
export interface StoredResponse {
  /** Hash of method, path and body of the first request; a repeat with another fingerprint is refused. */
  readonly fingerprint: string;
  readonly status: number;
  readonly body: string;
}

/** What `remember` left stored: this call's response, or the one another request stored first. */
export type Remembered =
  | { readonly stored: true; readonly response: StoredResponse }
  | { readonly stored: false; readonly response: StoredResponse };

/**
 * Responses of POSTs by (account, key), for `IDEMPOTENCY_TTL_MS` after they were stored. Keys of one
 * account never answer another's requests.
 */
export interface IdempotencyKeys {
  /** The response stored for the key, unless it is older than the TTL at `now`. */
  lookup(accountId: string, key: string, now: number): Promise<StoredResponse | undefined>;
  /**
   * Stores `response` for the key unless a response younger than the TTL is already stored: the first
   * writer wins, so two replicas that ran the same POST at once agree on the one response to replay.
   * An expired response is replaced.
   */
  remember(accountId: string, key: string, response: StoredResponse, now: number): Promise<Remembered>;
}

/** One request counted against a fixed window. */
export interface RateLimitRequest {
  /**
   * Whose window: the limiter's own name for it (bucket and API key). Engines store a SHA-256 of it,
   * never the text, because the text holds an API key.
   */
  readonly key: string;
  /** Requests allowed per window (at least 1). */
  readonly limit: number;
  /** The window's length in milliseconds (at least 1). */
  readonly windowMs: number;
  readonly now: number;
}

export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Whole seconds until the window resets (the `Retry-After` value when refused). */
  readonly resetSeconds: number;
}

/**
 * Fixed windows counted in the database, deciding exactly as the in-memory `RateLimiter`
 * (http/rate-limit.ts) does: a window starts at the first request after the previous one ended, a
 * refused request does not count, and the decision and the count are one atomic step, so replicas
 * sharing a database share the limit.
 */
export interface RateLimitWindows {
  take(request: RateLimitRequest): Promise<RateDecision>;
}

/** A scheduled run of one check at one location, as the scheduler computes it (scheduler/slots.ts). */
export interface SlotClaim {
  readonly accountId: string;
  /** `${checkId}@${dueMs}@${location}`: unique per account. */
  readonly key: string;
  readonly checkId: string;
  readonly dueMs: number;
  readonly location: string;
}

export interface ClaimState {
  readonly claimedMs: number;
  /** Null while the run is going on (or was lost with its process). */
  readonly finishedMs: number | null;
}

/**
 * Claims of slots: a slot is claimed once, ever, by one caller, so a slot runs at most once per
 * location across restarts and across schedulers on the same database.
 */
export interface SlotClaims {
  /**
   * Claims the slots not claimed before and resolves to those this call claimed, in the order given.
   * Of several callers claiming the same slot at once, exactly one gets it.
   */
  claim(slots: readonly SlotClaim[], claimedMs: number): Promise<SlotClaim[]>;
  /** Marks a claimed slot's run as finished; false when the slot was never claimed (or was pruned). */
  finish(accountId: string, key: string, finishedMs: number): Promise<boolean>;
  find(accountId: string, key: string): Promise<ClaimState | undefined>;
  /** Deletes claims of slots due before `dueBeforeMs`, which no scheduler will see due again; resolves to how many. */
  prune(dueBeforeMs: number): Promise<number>;
}

/** A notification to deliver, as the alert state transition that caused it queued it. */
export interface QueuedNotification {
  /** Unique across the service; the receiver's deduplication key. */
  readonly id: string;
  readonly accountId: string;
  readonly checkId: string;
  readonly alertChannelId: number;
  readonly channelType: string;
  readonly alertType: string;
  /** JSON of what the delivery needs (context, channel config at the time). */
  readonly doc: string;
}

/** A claimed notification: held by one owner until its lease runs out or it is settled or deferred. */
export interface ClaimedNotification extends QueuedNotification {
  /** Delivery attempts made before this claim. */
  readonly attempts: number;
  readonly leaseUntilMs: number;
}

export type SettledDelivery = 'SENT' | 'FAILED' | 'UNDELIVERABLE';

/**
 * The notification outbox. A notification is queued once (in the transaction of the state change
 * that caused it) and delivered at least once, by whichever replica claims it: a claim is a lease,
 * so a replica that dies mid-delivery leaves the notification to another once the lease expires, and
 * the late one can no longer settle it (its `settle`/`defer` answer false). Receivers see the same
 * notification id on a repeat and deduplicate by it.
 */
export interface NotificationOutbox {
  /** Queues a PENDING notification due at `nowMs`. */
  enqueue(notification: QueuedNotification, nowMs: number): Promise<void>;
  /**
   * Claims up to `limit` PENDING notifications due at `nowMs` whose lease is free or expired, for
   * `owner` until `nowMs + leaseMs`, oldest first. Of replicas claiming at once, each notification
   * goes to exactly one.
   */
  claimDue(owner: string, nowMs: number, leaseMs: number, limit: number): Promise<ClaimedNotification[]>;
  /** Records the final outcome; false when `owner` no longer holds the lease (someone else took over). */
  settle(owner: string, id: string, outcome: { delivery: SettledDelivery; attempts: number; error: string | null; result: string | null }, nowMs: number): Promise<boolean>;
  /** Gives the notification back for another attempt at `nextAttemptMs`; false when `owner` lost the lease. */
  defer(owner: string, id: string, retry: { attempts: number; nextAttemptMs: number; error: string }): Promise<boolean>;
  /**
   * Gives the lease up without an outcome (a stopping replica's attempt it cut short, which says nothing
   * about the receiver): due again at once for whoever claims it, attempts and last error unchanged.
   * False when `owner` no longer holds the lease.
   */
  release(owner: string, id: string): Promise<boolean>;
  /** The delivery state of a notification (for tests and the notifications API). */
  find(id: string): Promise<{ delivery: 'PENDING' | SettledDelivery; attempts: number; leaseOwner: string | null } | undefined>;
}

/** A check's alert state as stored, with the version a transition from it must name. */
export interface VersionedAlertState {
  /** The state's JSON text (alerting/state.ts's `AlertState`; engines store it as given). */
  readonly state: string;
  /** 1 for the first state stored, one more at each transition. */
  readonly version: number;
}

/**
 * Each check's alert state, moved by compare-and-set: a replica reads the state and its version,
 * computes the next state, and `transition` stores it only if the version is still the one it read.
 * Of replicas evaluating the same check at once, one transition wins and the others are told to read
 * again, so each transition happens, and notifies, exactly once.
 */
export interface AlertStates {
  /** The check's state and version; undefined while it never had one. */
  read(accountId: string, checkId: string): Promise<VersionedAlertState | undefined>;
  /**
   * Stores `nextState` (JSON text) if the check's version is still `expectedVersion` (0: the check has
   * no state yet), and queues `notifications` to the outbox due at `nowMs`, in one transaction: the
   * notifications are queued exactly when the state moved. False when another transition came first
   * (nothing stored, nothing queued).
   */
  transition(
    accountId: string,
    checkId: string,
    expectedVersion: number,
    nextState: string,
    notifications: readonly QueuedNotification[],
    nowMs: number,
  ): Promise<boolean>;
  /**
   * Queues a check's certificate-expiry notifications at most once a UTC day per channel: each
   * notification's `alertChannelId` is claimed for `day` (whole days since the epoch) unless that
   * channel was claimed for the check on `day` or later, and the notification is queued, due at
   * `nowMs`, in the claim's transaction. Resolves to the ids queued, in the order given; of replicas
   * queuing the same day at once, each channel's notification is queued by one.
   */
  queueDailySslAlerts(accountId: string, checkId: string, day: number, notifications: readonly QueuedNotification[], nowMs: number): Promise<string[]>;
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
  /** Where a ping is (for tests and diagnostics); undefined when no such ping is stored. */
  progress(accountId: string, id: string): Promise<PingProgress | undefined>;
}

/**
 * Jobs every replica runs on a timer but that must run once per period across them (pruning old
 * results, rollups and claims): whoever asks first in a period runs it, the others skip it.
 */
export interface PeriodicJobs {
  /**
   * True, for exactly one caller, when `jobName` last ran at least `everyMs` before `nowMs` (or never):
   * that caller is recorded as having run it at `nowMs` and runs it. False for everyone else.
   */
  tryRun(jobName: string, nowMs: number, everyMs: number, owner: string): Promise<boolean>;
  /** When the job last ran and who ran it (for tests and diagnostics). */
  lastRun(jobName: string): Promise<{ atMs: number; owner: string } | undefined>;
}

/** A check result as stored and read back: the wire document (shape in @vigil/schema), by the fields the store keys on. */
export type CheckResultDocument = Record<string, unknown> & {
  readonly id: string;
  readonly checkId: string;
  /** ISO time; the row's `created_ms`, which pruning compares with the retention. */
  readonly created_at: string;
  readonly runLocation: string;
  readonly hasFailures: boolean;
};

/** Where a page of results newest first starts: strictly before this result (by time, then id). */
export interface ResultCursor {
  readonly createdMs: number;
  readonly id: string;
}

export type RollupGranularity = 'hourly' | 'daily';

/** One rollup row: the FINAL results of one check at one location in one UTC hour or day. */
export interface RolledUpResults {
  readonly startMs: number;
  readonly spanMs: number;
  readonly location: string;
  readonly results: number;
  readonly failures: number;
  readonly degraded: number;
  readonly attempts: number;
  /** Response times: how many results had one, and their sum, sum of squares, min and max. */
  readonly rtCount: number;
  readonly rtSum: number;
  readonly rtSqSum: number;
  readonly rtMin: number | null;
  readonly rtMax: number | null;
  /** Response times counted by bucket (store/formats/rollup-histogram.ts). */
  readonly histogram: ReadonlyMap<number, number>;
}

/** How long each kind of result data is kept, in milliseconds. */
export interface ResultRetention {
  /** Raw results created more than this before now go (to the millisecond). */
  readonly rawMs: number;
  readonly hourlyMs: number;
  readonly dailyMs: number;
}

/** What pruning deleted up to: raw results created, and rollup rows starting, before these moments. */
export interface PrunedBefore {
  /** Exactly `retention.rawMs` before the prune's `nowMs` (or an earlier prune's later cutoff). */
  readonly raw: number;
  readonly hourly: number;
  readonly daily: number;
}

/**
 * Stored check results, in the compact row format (store/formats/result-row-codec.ts: a passing
 * result as its delta from a reference result of its check), and their hourly and daily rollups. A
 * run's tries are appended, and its FINAL result folded into its check's rollups, in one transaction;
 * appends of one check from several replicas are serialised on the check, so rollups add up whoever
 * appended. Raw results are pruned to the millisecond: a result 1 ms older than the cutoff goes, one at
 * the cutoff stays.
 */
export interface CheckResults {
  /**
   * Makes sure results created in `[fromMs, toMs]` have somewhere to go (on PostgreSQL, a partition per
   * UTC day; nothing to do on SQLite). Replicas call it ahead of time, periodically; an append to a day
   * not prepared prepares it itself, at the cost of that append.
   */
  prepareDays(fromMs: number, toMs: number): Promise<void>;
  /**
   * Stores the tries of one run of one check (ATTEMPTs, then the FINAL one; bounded by the caller) and
   * resolves to them as stored, which is what reads return: ids derived from check and time
   * (store/formats/result-ids.ts), the run's `sequenceId` the first try's id, and a passing result
   * reduced as store/formats/result-codec.ts `reducePassing` says. A try whose id is stored already is left alone.
   */
  appendRun(accountId: string, tries: readonly CheckResultDocument[]): Promise<CheckResultDocument[]>;
  /**
   * Stores one result under the id it has, once: a heartbeat's ping or missed window names its result,
   * so a result stored by a holder that died before confirming is not stored again by the next one.
   * Resolves to false, storing nothing, when the check has a result of that id already. A FINAL one
   * is folded into its rollups in the same transaction.
   */
  appendKept(accountId: string, result: CheckResultDocument): Promise<boolean>;
  /** Up to `limit` of a check's results strictly before `before` (or the newest), newest first, ties by id. */
  newestFirst(accountId: string, checkId: string, page: { readonly limit: number; readonly before?: ResultCursor | undefined }): Promise<CheckResultDocument[]>;
  /** One result of a check, or undefined. */
  find(accountId: string, checkId: string, id: string): Promise<CheckResultDocument | undefined>;
  /** A check's rollup rows of one granularity starting in `[fromMs, toMs)`, by start then location. */
  rollups(accountId: string, checkId: string, granularity: RollupGranularity, fromMs: number, toMs: number): Promise<RolledUpResults[]>;
  /**
   * Deletes raw results created more than `retention.rawMs` before `nowMs`, and rollup rows starting
   * more than their retention before `nowMs`, without holding long locks; the horizons only move
   * forward. Resolves to where each kind was pruned up to.
   */
  prune(nowMs: number, retention: ResultRetention): Promise<PrunedBefore>;
  /** Where pruning has deleted each kind up to (absent: never pruned). */
  horizons(): Promise<{ raw?: number; hourly?: number; daily?: number }>;
}

/** The fields of a FINAL result a check's status is made from. */
export interface FinalResultFacts {
  name: string;
  checkId: string;
  hasFailures: boolean;
  hasErrors: boolean;
  isDegraded: boolean | null;
  responseTime: number | null;
  runLocation: string;
  checkRunId: number | string | null;
  stoppedAt: string | null;
  sslDaysRemaining?: number | null;
}

/**
 * Each check's status: one document per check, rewritten by each FINAL result stored (the rule is
 * check-status-rules.ts `nextCheckStatus`), so the check-statuses routes read one row per check
 * however many results it has. Writes of one check from several replicas are serialised on the
 * check, so the longest and shortest runs count every result. Reads list only checks that still
 * exist.
 */
export interface CheckStatuses {
  /** Folds a FINAL result into its check's status and resolves to the status stored. */
  record(accountId: string, result: FinalResultFacts): Promise<CheckStatus>;
  /** The statuses of the account's existing checks, in the order the checks were created. */
  list(accountId: string): Promise<CheckStatus[]>;
  /** The status of an existing check; undefined when the check never ran or no longer exists. */
  find(accountId: string, checkId: string): Promise<CheckStatus | undefined>;
}

/** One error a stored result recorded, as its check's error groups fold it. */
export interface ErrorOccurrence {
  readonly checkId: string;
  readonly message: string;
  /** When the result was created, ms since the epoch. */
  readonly at: number;
}

/**
 * Error groups: each check's errors, one group per cleaned message (error-group-rules.ts). The errors
 * of a result are folded in the transaction that stores the result, so the groups are always what the
 * stored results say; folds of one check from several replicas are serialised on the group, so none
 * is lost.
 */
export interface ErrorGroups {
  /** Folds each occurrence, in order, into its check's group of the same cleaned message, starting the group when there is none. */
  fold(accountId: string, occurrences: readonly ErrorOccurrence[]): Promise<void>;
  /** One page (from 1) of a check's groups, in the order they were started, and how many it has. */
  ofCheck(accountId: string, checkId: string, paging: { readonly page: number; readonly limit: number }): Promise<{ items: ErrorGroupState[]; total: number }>;
  find(accountId: string, id: string): Promise<ErrorGroupState | undefined>;
  /** Applies an archive PATCH at `nowMs` and resolves to the group after it; undefined when the account has no such group. */
  archive(accountId: string, id: string, patch: ArchivePatch, nowMs: number): Promise<ErrorGroupState | undefined>;
}

/**
 * The reverse index of alert-channel subscriptions: a check's or group's document lists the channels
 * it is subscribed to, and this index is rewritten with it, in the same transaction, so alerting and
 * the channel routes find a channel's subscribers without reading every document.
 */
export interface AlertSubscriptionIndex {
  /** Replaces what one check or group is subscribed to (an empty list drops it from the index); a channel listed twice keeps its last entry. */
  replace(accountId: string, ownerKind: SubscriptionOwnerKind, ownerId: string, subscriptions: readonly ChannelSubscription[]): Promise<void>;
  /** The subscriptions of the given checks or groups, each owner's in the order written; owners without any are absent. */
  ofOwners(accountId: string, ownerKind: SubscriptionOwnerKind, ownerIds: readonly string[]): Promise<Map<string, ChannelSubscription[]>>;
  /** The checks and groups subscribed to a channel, in the order their subscriptions were written. */
  subscribersOf(accountId: string, channelId: number): Promise<ChannelSubscriber[]>;
  /**
   * Drops a channel from every owner's subscriptions in the index (its channel was deleted); resolves
   * to how many subscriptions went. The owners' documents are the caller's to rewrite.
   */
  dropChannel(accountId: string, channelId: number): Promise<number>;
}

/**
 * The ports a unit of work (`StoragePorts.transaction`) writes through, every call of them inside the
 * unit's one transaction. The documents port without its change feed: following the feed is what a
 * replica does, never a write.
 */
export interface TransactionPorts {
  readonly documents: Pick<ResourceDocuments, 'insert' | 'get' | 'replace' | 'remove' | 'page' | 'pageText' | 'splicedCheckPage' | 'pageAfter'>;
  readonly idempotency: IdempotencyKeys;
  readonly alertSubscriptions: AlertSubscriptionIndex;
  readonly statusPages: StatusPages;
  readonly incidents: Incidents;
  /** Queuing only: mail an incident write causes (its subscribers') commits with the write. */
  readonly outbox: Pick<NotificationOutbox, 'enqueue'>;
  /** A run is recorded as one unit: its tries, the errors they fold into groups, its check's status. */
  readonly checkResults: CheckResults;
  readonly checkStatuses: CheckStatuses;
  readonly errorGroups: ErrorGroups;
  /**
   * A run's alert evaluation moves its check's state and queues its notifications in the run's unit,
   * so a stored FINAL result is never left unevaluated by a process that died in between. Inside a
   * unit a lost compare-and-set answers false without an error (on PostgreSQL the unit reads the
   * winner's version again; on SQLite the unit holds the write lock, so none is lost).
   */
  readonly alertStates: AlertStates;
  /**
   * Runs `work` (writing through these same ports) so that a throw undoes only what `work` wrote and
   * rejects with that error, and the unit goes on: a part of the unit whose failure must not take the
   * rest with it (the alert evaluation of a stored run). On PostgreSQL a failed statement would
   * otherwise abort the unit's whole transaction.
   */
  savepoint<T>(work: () => Promise<T>): Promise<T>;
}

/** The ports of one engine on one database, as one replica holds them. */
export interface StoragePorts {
  readonly idempotency: IdempotencyKeys;
  readonly rateLimits: RateLimitWindows;
  readonly slotClaims: SlotClaims;
  readonly outbox: NotificationOutbox;
  readonly alertStates: AlertStates;
  readonly heartbeatDeadlines: HeartbeatDeadlines;
  readonly heartbeatPings: HeartbeatPings;
  readonly periodicJobs: PeriodicJobs;
  readonly checkResults: CheckResults;
  readonly checkStatuses: CheckStatuses;
  readonly errorGroups: ErrorGroups;
  /** Checks, groups, alert channels, maintenance windows and services, with their change feed. */
  readonly documents: ResourceDocuments;
  readonly alertSubscriptions: AlertSubscriptionIndex;
  /** Status pages (status-page-ports.ts): which of them show a service. */
  readonly statusPages: StatusPages;
  /** Status-page incidents (incident-ports.ts), and the one each check's `triggerIncident` has open. */
  readonly incidents: Incidents;
  /**
   * A unit of work: runs `work` with ports bound to one transaction and resolves to what it resolved
   * to once that transaction has committed (so every replica then sees its writes, and none saw them
   * before). A throw rolls back everything the unit wrote, and the Promise rejects with that error.
   * `work` must write only through the ports it is given: a port of the replica's own (or another
   * `transaction` of it, which is refused) is outside the unit, and on SQLite would wait for the unit
   * forever. Units of one replica may be asked for at once; each is its own transaction.
   */
  transaction<T>(work: (tx: TransactionPorts) => Promise<T>): Promise<T>;
  /** Releases this replica's connections; the data stays. */
  close(): Promise<void>;
}
