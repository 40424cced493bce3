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
 * and status pages another (status-page-ports.ts), with their incidents (incident-ports.ts). The ports
 * of stored results (result-ports.ts) and of heartbeat monitors (heartbeat-ports.ts) have files of
 * their own too; this one re-exports them, so a port's user imports every port from here.
 */
import type { AccountProfiles } from './account-profile-ports.js';
import type { AgentLeases, AgentPresence, PrivateLocations } from './agent-ports.js';
import type { DashboardReads } from './dashboard-read-ports.js';
import type { Dashboards } from './dashboard-ports.js';
import type { ResourceDocuments } from './document-ports.js';
import type { EngineHealth } from './engine-health.js';
import type { ServiceIdentity } from './service-identity-ports.js';
import type { HeartbeatDeadlines, HeartbeatPings } from './heartbeat-ports.js';
import type { Incidents } from './incident-ports.js';
import type { MetricsReads } from './metrics-read-ports.js';
import type { ProjectStates } from './project-state-ports.js';
import type { CheckResults, CheckStatuses, ErrorGroups } from './result-ports.js';
import type { StatusPages } from './status-page-ports.js';
import type { StatusPageSubscribers } from './subscriber-ports.js';

export type {
  CheckResultDocument,
  ResultCursor,
  ResultFilter,
  ResultFacts,
  DailyResultTotals,
  RollupGranularity,
  RolledUpResults,
  ResultRetention,
  PrunedBefore,
  CheckResults,
  FinalResultFacts,
  CheckStatuses,
  ErrorOccurrence,
  ErrorGroups,
} from './result-ports.js';
export type {
  HeartbeatMonitor,
  WatchedHeartbeat,
  MissedDeadline,
  MissedWindowKey,
  ClaimedWindow,
  HeartbeatDeadlines,
  StoredPing,
  PingKey,
  PingProgress,
  HeartbeatPings,
} from './heartbeat-ports.js';
export type { FollowedStatus, MetricsReads, StatusBatch, StatusFields, StatusFollower } from './metrics-read-ports.js';

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

/**
 * The claims of one check at one location: the highest slot due time claimed (the mark) and the
 * latest slot whose run finished. One row per check and location, whatever the number of runs.
 */
export interface ClaimMark {
  /** The highest due time claimed: every slot at or below it is taken (run, or given up). */
  readonly dueMs: number;
  /** When the claim that raised the mark to `dueMs` was made. */
  readonly claimedMs: number;
  /** The highest due time whose run finished; null while none has (or the runs were lost with their process). */
  readonly finishedDueMs: number | null;
  readonly finishedMs: number | null;
}

/**
 * Claims of slots: a slot is claimed once, ever, by one caller, so a slot runs at most once per
 * location across restarts and across schedulers on the same database. What is stored per check and
 * location is only the highest due time claimed (`ClaimMark`), so claims do not grow with runs: a
 * claim wins the slots above the mark and raises it, and a slot at or below the mark is refused
 * whether or not anyone ran it. Every scheduler claims a check's slots in time order and never
 * late (scheduler/scheduler.ts), so a slot below the mark is one another scheduler already claimed,
 * or one a tick that lagged a whole period behind would have run late: it counts as missed.
 */
export interface SlotClaims {
  /**
   * Claims the slots above their check's mark at their location and resolves to those this call
   * claimed, in the order given; the mark becomes the highest of them. Of several callers claiming
   * the same slot at once, exactly one gets it.
   */
  claim(slots: readonly SlotClaim[], claimedMs: number): Promise<SlotClaim[]>;
  /**
   * Records a claimed slot's run as finished (the latest finished of its check and location, unless
   * a later slot's run finished first); false when the slot is above the mark or its check and
   * location hold no claim (never claimed, or pruned).
   */
  finish(slot: SlotClaim, finishedMs: number): Promise<boolean>;
  find(accountId: string, checkId: string, location: string): Promise<ClaimMark | undefined>;
  /**
   * Deletes the marks of checks and locations whose highest slot claimed is due before
   * `dueBeforeMs` — deleted or deactivated checks, removed locations: a live check claims at least
   * daily, and no scheduler claims a slot that old again. Resolves to how many.
   */
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

/** Which notifications a page of the outbox's log holds; every condition given must hold. */
export interface NotificationLogQuery {
  /** Queued at or after this moment (ms since the epoch)… */
  readonly fromMs: number;
  /** …and before this one. */
  readonly toMs: number;
  readonly alertChannelId?: number;
  readonly checkId?: string;
  /** true: only those whose delivery failed (FAILED or UNDELIVERABLE); false: only the others. */
  readonly failed?: boolean;
  /** Notifications per page, 1 or more. */
  readonly limit: number;
  /** 1 for the first page. */
  readonly page: number;
}

/** A notification as the log lists it: what was queued, and where its delivery is. */
export interface LoggedNotification extends QueuedNotification {
  readonly delivery: 'PENDING' | SettledDelivery;
  readonly attempts: number;
  readonly createdMs: number;
  /** When its delivery was settled; null while pending. */
  readonly settledMs: number | null;
  readonly lastError: string | null;
  /** What the delivery recorded of the receiver's answer. */
  readonly result: string | null;
}

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
  /**
   * One page of an account's notifications to alert channels (a status-page subscriber's mail shares
   * the outbox but is left out), newest first by when each was queued (ties: the later queued first),
   * with how many match on every page.
   */
  log(accountId: string, query: NotificationLogQuery): Promise<{ items: LoggedNotification[]; total: number }>;
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
  readonly documents: Pick<ResourceDocuments, 'insert' | 'insertWithId' | 'insertUnlessAny' | 'get' | 'replace' | 'remove' | 'page' | 'pageText' | 'splicedCheckPage' | 'pageAfter'>;
  readonly idempotency: IdempotencyKeys;
  readonly alertSubscriptions: AlertSubscriptionIndex;
  readonly statusPages: StatusPages;
  readonly incidents: Incidents;
  /** A heartbeat's pings for its events list; a ping's monitor, its event stored (the ping route's unit). */
  readonly heartbeatPings: Pick<HeartbeatPings, 'ofCheck' | 'monitorOfToken' | 'record'>;
  /** A ping moves its heartbeat's deadline in the unit that stores its event. */
  readonly heartbeatDeadlines: Pick<HeartbeatDeadlines, 'recordPing'>;
  /** Dashboards (dashboard-ports.ts). */
  readonly dashboards: Dashboards;
  /** Project states and their locks (project-state-ports.ts): a project's turn is the unit's until it ends. */
  readonly projectStates: ProjectStates;
  /** Accounts' profiles: an evaluation reads the account's alert settings in its unit. */
  readonly accountProfiles: AccountProfiles;
  /** Queuing only: mail an incident write causes (its subscribers') commits with the write. */
  readonly outbox: Pick<NotificationOutbox, 'enqueue'>;
  /** A run is recorded as one unit: its tries, the errors they fold into groups, its check's status. */
  readonly checkResults: CheckResults;
  readonly checkStatuses: CheckStatuses;
  readonly errorGroups: ErrorGroups;
  /**
   * A scheduled run's slot is marked finished in the unit that stores the run: the mark and the
   * results commit together, one durable commit a run where a finish of its own was a second one.
   */
  readonly slotClaims: Pick<SlotClaims, 'finish'>;
  /**
   * A run's alert evaluation moves its check's state and queues its notifications in the run's unit,
   * so a stored FINAL result is never left unevaluated by a process that died in between. Inside a
   * unit a lost compare-and-set answers false without an error (on PostgreSQL the unit reads the
   * winner's version again; on SQLite the unit holds the write lock, so none is lost).
   */
  readonly alertStates: AlertStates;
  /** An agent's report is recorded only if its lease is still the run's, checked in the recording's unit. */
  readonly agentLeases: Pick<AgentLeases, 'complete' | 'giveUp'>;
  readonly privateLocations: PrivateLocations;
  /** The subscription form's submission, its subscription and its verification mail commit in one unit. */
  readonly subscribers: StatusPageSubscribers;
  /** The service's id and the check groups' triggers (service-identity-ports.ts). */
  readonly serviceIdentity: ServiceIdentity;
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
  /** Dashboards (dashboard-ports.ts): their names are unique across the service. */
  readonly dashboards: Dashboards;
  /** The state documents `vigil plan`/`apply` keep on the service, and their locks (project-state-ports.ts). */
  readonly projectStates: ProjectStates;
  /** What `/v1/accounts` answers of an account, and its alert settings (account-profile-ports.ts). */
  readonly accountProfiles: AccountProfiles;
  /** Runs waiting for runner agents and the leases agents hold on them (agent-ports.ts). */
  readonly agentLeases: AgentLeases;
  /** Which runner agents were heard from, through any replica, and what each last said (agent-ports.ts). */
  readonly agentPresence: AgentPresence;
  /** Private locations and their agents' keys (agent-ports.ts). */
  readonly privateLocations: PrivateLocations;
  /** What the public pages' subscription form stores (subscriber-ports.ts). */
  readonly subscribers: StatusPageSubscribers;
  /** The service's id and the check groups' triggers (service-identity-ports.ts). */
  readonly serviceIdentity: ServiceIdentity;
  /** What the web dashboard reads of a page of checks, incidents and project states (dashboard-read-ports.ts). */
  readonly dashboardReads: DashboardReads;
  /** What `GET /metrics` follows of the checks' statuses, and the open incidents it counts (metrics-read-ports.ts). */
  readonly metricsReads: MetricsReads;
  /**
   * A unit of work: runs `work` with ports bound to one transaction and resolves to what it resolved
   * to once that transaction has committed (so every replica then sees its writes, and none saw them
   * before). A throw rolls back everything the unit wrote, and the Promise rejects with that error.
   * `work` must write only through the ports it is given: a port of the replica's own (or another
   * `transaction` of it, which is refused) is outside the unit, and on SQLite would wait for the unit
   * forever. Units of one replica may be asked for at once; each is its own transaction.
   */
  transaction<T>(work: (tx: TransactionPorts) => Promise<T>): Promise<T>;
  /** Which engine these ports run on, as `GET /healthz` names it. */
  readonly engine: 'sqlite' | 'postgres';
  /** Whether the database answers now (engine-health.ts), for `GET /healthz`; never rejects. */
  health(): Promise<EngineHealth>;
  /** Releases this replica's connections; the data stays. */
  close(): Promise<void>;
}
