/**
 * The service's scheduler: every tick, the slots that fell due since the last tick are
 * claimed in the database and handed to the run queue. Ticks follow the schedule: the timer is set
 * for just after the earliest due moment (a heap of checks by next due moment), so a run starts
 * within milliseconds of its slot instead of up to a fixed tick later.
 *
 * - A tick claims its due slots through the `SlotClaims` port, all of them in one call, and hands
 *   the queue only those the port gave it: a slot runs at most once per location, also across a
 *   restart or a second scheduler on the same database. The port keeps only each check's highest
 *   slot claimed per location and refuses slots at or below it, which holds because a tick claims
 *   each check's slots in time order and never a slot before its window. The claim's answer may come later (another
 *   engine answers over the network), so the tick waits for it; the next tick starts only after it.
 * - Slots that fell due while the service was down are not run late: after a restart the scheduler
 *   starts from "now", so a check misses at most the slots of the downtime (one, for a quick restart).
 * - Checks, groups and the maintenance windows that pause checks are read through the documents port
 *   once, then followed through its change feed (stored-checks.ts): every housekeeping (200 ms) one
 *   small query for the feed's position, and only the documents that changed are read, whichever
 *   replica wrote them. A check whose stored document and group are unchanged keeps its entry.
 * - What never runs: a deactivated check, a check in a deactivated group, passive checks (heartbeats),
 *   and, slot by slot, a check paused by an active maintenance window (`pauseAllChecks`,
 *   alerting/maintenance.ts): its slots inside the window are skipped, not run late.
 * - Pruning (old results and their rollups, claims, the change feed) is a periodic job every process
 *   on the database runs a timer for, but only the one the `PeriodicJobs` port gives the period's turn
 *   to prunes, so replicas do not each delete the same rows. The engines prune without long locks
 *   (`CheckResults.prune`: batched deletes on SQLite, whole days' partitions dropped on PostgreSQL).
 *
 * It needs only the storage ports and this process's replica id, so it runs on either engine.
 */
import { isPaused } from '../alerting/maintenance.js';
import type { Repositories } from '../repositories.js';
import type { ResourceDocuments } from '../store/document-ports.js';
import type { CheckResults, PrunedBefore, ResultRetention, SlotClaim, SlotClaims } from '../store/ports.js';
import type { RunJob, RunQueue } from './queue.js';
import { DueHeap } from './due-heap.js';
import { PeriodicTurn } from './periodic-turn.js';
import { ResultDayPreparation } from './result-days.js';
import { dueSlots, nextDueMs, type SchedulableCheck } from './slots.js';
import { StoredChecks, type StoredDocument } from './stored-checks.js';

/** Check types with nothing to run: the service waits for them (heartbeat pings). */
const PASSIVE = new Set(['HEARTBEAT']);

export interface SchedulerOptions {
  /**
   * The storage ports with this process's replica id: the documents it schedules from (and whose
   * change feed it prunes), the check results it prunes, slot claims, through which it claims slots
   * and prunes old claims (a run marks its slot finished in the unit that stores it: execute.ts), and
   * periodic jobs, through which it takes its turn to prune.
   */
  repositories: Pick<Repositories, 'ports' | 'replicaId'>;
  queue: RunQueue;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  /** How often the housekeeping runs: following changed checks, pruning, `onTick` (default 200 ms); also the longest the timer sleeps. */
  tickMs?: number;
  /** How often the change feed is asked whether any replica wrote checks, groups or windows (default: at every housekeeping). */
  refreshMs?: number;
  /** Check results older than this many days are deleted (default 30). */
  retentionDays?: number;
  /**
   * Daily rollups of results older than this many days are deleted (default 400); hourly ones after
   * `retentionDays` + 30 days, or this many days if that is shorter.
   */
  rollupRetentionDays?: number;
  /** Called on every housekeeping with its moment: passive checks' own evaluation (heartbeats/watch.ts). */
  onTick?: (nowMs: number) => void;
  /** Where a failed prune, tick or follow is told (default stderr). */
  log?: (line: string) => void;
}

/** How often old results and claims are pruned. */
const PRUNE_EVERY_MS = 60_000;
/** The pruning's name in the periodic jobs' table (its turns are recorded under it). */
export const PRUNE_JOB = 'prune-results';
/** Default of `rollupRetentionDays`: a year of daily history, plus a month to compare a year ago with. */
export const DEFAULT_ROLLUP_RETENTION_DAYS = 400;
/**
 * Hourly rollups outlive the raw results by this much: a month past the raw retention still charts
 * hour by hour (last month against this one), while a year of hourly rows (24 times the daily ones
 * per check and location) is not worth its size for ranges charted by the day anyway.
 */
const HOURLY_ROLLUP_EXTRA_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * A check's claim mark (its highest slot claimed, one per location) is deleted once that slot is this
 * old: only a deleted or deactivated check (or a removed location) stops raising it, since a live
 * check runs at least daily, and no scheduler claims a slot two days old.
 */
const CLAIM_RETENTION_MS = 2 * 24 * 60 * 60 * 1000;
/**
 * How long the documents' change feed keeps a write's entry. Every write through the documents port
 * adds one, so without pruning the feed grows for ever; a replica a day behind is stopped or stuck,
 * and when it reads on it is told to read its documents again in full (`reset`), which it must handle
 * anyway.
 */
export const CHANGE_FEED_RETENTION_MS = DAY_MS;
/**
 * The shortest sleep between ticks: slots due within it are claimed together in one transaction
 * (167 runs a second would otherwise be 167 ticks), at the cost of at most this much start lag.
 */
const MIN_TICK_GAP_MS = 10;

interface Entry {
  /** The stored texts this entry was made from; an unchanged check in an unchanged group keeps its entry. */
  doc: string;
  groupDoc: string | undefined;
  schedule: SchedulableCheck;
  check: Record<string, unknown>;
  group?: Record<string, unknown>;
  /** The next moment this check is due (its place in the heap). */
  nextDueMs: number;
  /** Replaced or deleted: left in the heap, skipped when it comes up. */
  removed?: boolean;
}

export class Scheduler {
  readonly #queue: RunQueue;
  readonly #now: () => number;
  readonly #tickMs: number;
  readonly #onTick: ((nowMs: number) => void) | undefined;
  readonly #log: (line: string) => void;
  readonly #claims: SlotClaims;
  readonly #documents: ResourceDocuments;
  readonly #results: CheckResults;
  readonly #retention: ResultRetention;
  readonly #stored: StoredChecks;
  readonly #pruning: PeriodicTurn;
  readonly #resultDays: ResultDayPreparation;
  /** The prune turn under way: asked for, and run if it was this process's. */
  #pruneTurn: Promise<void> | undefined;
  #stopped = false;
  /** The checks that run, by key (stored-checks.ts `keyOf`). */
  #entries = new Map<string, Entry>();
  #heap = new DueHeap<Entry>();
  /** Whether the last follow failed (told once, not at every housekeeping while the database is away). */
  #followFailing = false;
  #housekeptAt = Number.NEGATIVE_INFINITY;
  #lastTickMs = 0;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  /** The tick under way (its claim in flight); the next one starts after it. */
  #ticking: Promise<number> | undefined;

  constructor(options: SchedulerOptions) {
    const { ports, replicaId } = options.repositories;
    this.#queue = options.queue;
    this.#now = options.now ?? Date.now;
    this.#tickMs = options.tickMs ?? 200;
    this.#onTick = options.onTick;
    this.#log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.#claims = ports.slotClaims;
    this.#documents = ports.documents;
    this.#results = ports.checkResults;
    const retentionDays = options.retentionDays ?? 30;
    const rollupRetentionDays = options.rollupRetentionDays ?? DEFAULT_ROLLUP_RETENTION_DAYS;
    this.#retention = {
      rawMs: Math.round(retentionDays * DAY_MS),
      hourlyMs: Math.round(Math.min(retentionDays + HOURLY_ROLLUP_EXTRA_DAYS, rollupRetentionDays) * DAY_MS),
      dailyMs: Math.round(rollupRetentionDays * DAY_MS),
    };
    this.#stored = new StoredChecks(ports.documents, options.refreshMs ?? 0);
    this.#pruning = new PeriodicTurn({ periodicJobs: ports.periodicJobs, job: PRUNE_JOB, everyMs: PRUNE_EVERY_MS, owner: replicaId });
    this.#resultDays = new ResultDayPreparation({ checkResults: ports.checkResults, periodicJobs: ports.periodicJobs, owner: replicaId });
  }

  /**
   * Deletes results older than the retention and rollups older than theirs (`CheckResults.prune`:
   * from then on, analytics before the cutoff are answered from rollups), claim marks not raised for two days
   * and change-feed entries older than a day, none in one long statement. Resolves to where results
   * and rollups are pruned up to. Runs whether or not it is this process's turn: the timer asks first.
   */
  async prune(nowMs = this.#now()): Promise<PrunedBefore> {
    const pruned = await this.#results.prune(nowMs, this.#retention);
    await this.#claims.prune(nowMs - CLAIM_RETENTION_MS);
    await this.#documents.pruneChanges(nowMs - CHANGE_FEED_RETENTION_MS);
    return pruned;
  }

  /** Starts ticking from now; slots due before now are not run. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#lastTickMs = this.#now();
    this.#arm();
  }

  /**
   * Stops ticking: no slot is claimed and no prune starts after this. The runs already handed over
   * are the queue's; its owner decides how long a stop waits for them (scheduler/index.ts), and each
   * marks its slot finished in the unit that stores it (execute.ts). Resolves once the tick and prune
   * turn under way have ended, after which the scheduler no longer touches the database.
   */
  async stop(): Promise<void> {
    this.#running = false;
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.idle();
  }

  /** Resolves once the tick and prune turn under way, if any, have ended (tests, stop). */
  async idle(): Promise<void> {
    while (this.#ticking || this.#pruneTurn) {
      await Promise.all([this.#ticking?.catch(() => undefined), this.#pruneTurn]);
    }
  }

  /**
   * Claims and submits every slot due in `[last tick, nowMs)`; resolves to how many were submitted.
   * A tick asked for while another one's claim is in flight starts after it, so two ticks never
   * claim at once. Public so tests can drive the clock.
   */
  tick(nowMs = this.#now()): Promise<number> {
    const previous = this.#ticking;
    const tick = previous ? previous.then(() => this.#tick(nowMs), () => this.#tick(nowMs)) : this.#tick(nowMs);
    const settled = tick.finally(() => {
      if (this.#ticking === settled) this.#ticking = undefined;
    });
    // The caller gets `tick`'s rejection; this copy only marks the tick as ended.
    settled.catch(() => undefined);
    this.#ticking = settled;
    return tick;
  }

  async #tick(nowMs: number): Promise<number> {
    // A tick asked for before a stop but started after it (behind one in flight) claims nothing.
    if (this.#stopped) return 0;
    // The first tick only sets the origin: nothing before the scheduler started is run late.
    if (this.#lastTickMs === 0) this.#lastTickMs = nowMs;
    if (nowMs - this.#housekeptAt >= this.#tickMs) {
      await this.#housekeep(nowMs);
      if (this.#stopped) return 0;
    }
    const from = this.#lastTickMs;
    if (nowMs <= from) return 0;
    this.#lastTickMs = nowMs;
    const earliest = this.#heap.peek();
    if (earliest === undefined || earliest.nextDueMs >= nowMs) return 0;
    const due: RunJob[] = [];
    for (let entry = this.#heap.peek(); entry !== undefined && entry.nextDueMs < nowMs; entry = this.#heap.peek()) {
      this.#heap.pop();
      // A check changed or deleted since it was pushed: its new entry (if any) is in the heap too.
      if (entry.removed) continue;
      const slots = dueSlots(entry.schedule, Math.max(from, entry.nextDueMs), nowMs);
      for (const [index, slot] of slots.entries()) {
        if (this.#paused(entry, slot.dueMs)) continue;
        // A location listed twice (run in parallel) runs once: the port refuses a claim that lists a slot twice.
        if (index > 0 && slots.findIndex((other) => other.key === slot.key) < index) continue;
        due.push({ slot, check: entry.check, ...(entry.group ? { group: entry.group } : {}) });
      }
      entry.nextDueMs = nextDueMs(entry.schedule, nowMs);
      this.#heap.push(entry);
    }
    if (due.length === 0) return 0;
    // One claim for the whole tick: on SQLite one transaction, which joins the store's group commit
    // when one is open (results of runs that ended this turn). A crash before it commits loses the
    // claims of slots that are then in the past, which a restart never runs.
    const claimed = await this.#claims.claim(
      due.map((job) => job.slot),
      this.#now(),
    );
    // Claimed but not run: a stop came while the claim was in flight, and its slots count as missed,
    // as those of runs a stop cuts short do.
    if (this.#stopped) return 0;
    const jobs = claimedJobs(due, claimed);
    for (const job of jobs) this.#queue.submit(job);
    return jobs.length;
  }

  #paused(entry: Entry, dueMs: number): boolean {
    const windows = this.#stored.pausingWindows(entry.schedule.accountId);
    if (windows.length === 0) return false;
    const tags = [...stringsOf(entry.check.tags), ...stringsOf(entry.group?.tags)];
    return isPaused(windows, tags, dueMs);
  }

  /** Sets the timer for just after the earliest due moment, never later than the next housekeeping. */
  #arm(): void {
    if (!this.#running) return;
    const now = this.#now();
    const earliest = this.#heap.peek()?.nextDueMs ?? Number.POSITIVE_INFINITY;
    // A slot due at t belongs to the window ending after t, so the tick that claims it comes at t + 1.
    const wake = Math.min(earliest + 1, this.#housekeptAt + this.#tickMs);
    const delay = Math.max(MIN_TICK_GAP_MS, Math.min(this.#tickMs, wake - now));
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.tick()
        .catch((error: unknown) => this.#log(`vigil server: claiming due slots failed inside the service; they count as missed: ${String((error as Error)?.stack ?? error)}`))
        .finally(() => this.#arm());
    }, delay);
    this.#timer.unref();
  }

  async #housekeep(nowMs: number): Promise<void> {
    this.#housekeptAt = nowMs;
    await this.#follow(nowMs);
    if (this.#stopped) return;
    this.#takePruneTurn(nowMs);
    this.#onTick?.(nowMs);
  }

  /**
   * Asks the periodic jobs' port whether this period's prune (and, hourly, the preparation of the
   * coming days of results) is this process's, and runs it if so. The answer comes later (another
   * engine answers over the network), so the tick does not wait for it.
   */
  #takePruneTurn(nowMs: number): void {
    if (this.#pruneTurn || this.#stopped || !(this.#pruning.due(nowMs) || this.#resultDays.due(nowMs))) return;
    const prune = this.#pruning
      .take(nowMs, () => (this.#stopped ? undefined : this.prune(nowMs)))
      .catch((error: unknown) => this.#log(`vigil server: pruning old results failed: ${String((error as Error)?.stack ?? error)}`));
    const prepareDays = this.#resultDays
      .takeTurn(nowMs)
      .catch((error: unknown) => this.#log(`vigil server: preparing the coming days of results failed: ${String((error as Error)?.stack ?? error)}`));
    // One turn for both, so stop() waits for each.
    this.#pruneTurn = Promise.all([prune, prepareDays])
      .then(() => undefined)
      .finally(() => (this.#pruneTurn = undefined));
  }

  /**
   * Brings the entries up to date with the stored checks, groups and windows. A failure (the database
   * away) is told once and leaves the schedule as it was until a follow succeeds.
   */
  async #follow(nowMs: number): Promise<void> {
    let changed;
    try {
      changed = await this.#stored.follow(nowMs);
    } catch (error) {
      if (!this.#followFailing) this.#log(`vigil server: reading changed checks failed; checks run as they were until it works again: ${String((error as Error)?.stack ?? error)}`);
      this.#followFailing = true;
      return;
    }
    this.#followFailing = false;
    if (changed === 'all') this.#scheduleAll(nowMs);
    else for (const key of changed) this.#reschedule(key, nowMs);
  }

  /** Every entry made again from the stored checks; one whose check and group are unchanged is kept as it is. */
  #scheduleAll(nowMs: number): void {
    const previous = this.#entries;
    this.#entries = new Map();
    for (const [key, stored] of this.#stored.checks) {
      const entry = this.#entryOf(stored, previous.get(key), nowMs);
      if (entry) this.#entries.set(key, entry);
    }
    this.#heap = new DueHeap(this.#entries.values());
  }

  #reschedule(key: string, nowMs: number): void {
    const known = this.#entries.get(key);
    const stored = this.#stored.check(key);
    const entry = stored === undefined ? undefined : this.#entryOf(stored, known, nowMs);
    if (entry === known) return;
    if (known) known.removed = true;
    if (entry) {
      this.#entries.set(key, entry);
      this.#heap.push(entry);
    } else {
      this.#entries.delete(key);
    }
  }

  /** The entry for a stored check: `known` itself when neither it nor its group changed; none when it does not run. */
  #entryOf(stored: StoredDocument, known: Entry | undefined, nowMs: number): Entry | undefined {
    const check = stored.doc;
    const group = this.#stored.group(stored.accountId, check.groupId);
    if (known !== undefined && known.doc === stored.text && known.groupDoc === group?.text) return known;
    const schedule = schedulable(stored.accountId, String(check.id ?? stored.id), check, group?.doc);
    if (!schedule) return undefined;
    const sameTiming = known && known.schedule.frequency === schedule.frequency && known.schedule.frequencyOffset === schedule.frequencyOffset;
    return {
      doc: stored.text,
      groupDoc: group?.text,
      schedule,
      check,
      ...(group ? { group: group.doc } : {}),
      nextDueMs: sameTiming ? known.nextDueMs : nextDueMs(schedule, this.#lastTickMs || nowMs),
    };
  }
}

/**
 * The jobs of `due` whose slots the port claimed. The port answers with the claimed slots in the
 * order they were asked for (its own copies on an engine that answers over the network), so one
 * walk pairs them.
 */
function claimedJobs(due: readonly RunJob[], claimed: readonly SlotClaim[]): RunJob[] {
  if (claimed.length === due.length) return [...due];
  const jobs: RunJob[] = [];
  let next = 0;
  for (const slot of claimed) {
    while (next < due.length && (due[next]!.slot.key !== slot.key || due[next]!.slot.accountId !== slot.accountId)) next++;
    if (next < due.length) jobs.push(due[next++]!);
  }
  return jobs;
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/**
 * How a stored check runs, with its group's settings cascaded as the real service does for
 * CheckGroupV2: the group can switch its checks off (`activated: false`), and its locations and
 * `runParallel` apply to checks that set none. Null when the check does not run on a schedule.
 */
export function schedulable(accountId: string, id: string, check: Record<string, unknown>, group: Record<string, unknown> | undefined): SchedulableCheck | null {
  if (check.activated === false || group?.activated === false) return null;
  if (PASSIVE.has(String(check.checkType))) return null;
  const frequency = typeof check.frequency === 'number' ? check.frequency : 10;
  // Private locations' slugs run beside the public locations; their runs go to their agents (agents/routing.ts).
  const own = [...stringsOf(check.locations), ...stringsOf(check.privateLocations)];
  const fromGroup = [...stringsOf(group?.locations), ...stringsOf(group?.privateLocations)];
  const runParallel = typeof check.runParallel === 'boolean' ? check.runParallel : group?.runParallel === true;
  return {
    accountId,
    id,
    frequency,
    frequencyOffset: typeof check.frequencyOffset === 'number' ? check.frequencyOffset : null,
    locations: own.length > 0 ? own : fromGroup,
    runParallel,
  };
}
