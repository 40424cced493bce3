/**
 * The boundary between the scheduler (which decides what is due) and whatever executes runs: here
 * an in-process queue with a concurrency cap; later a PostgreSQL job queue that runner agents per
 * location pull from. The scheduler only ever calls `submit`.
 *
 * The cap is shared by every account of a multi-tenant service, so the queue is fair between them:
 * one account's checks against a target that hangs (each run holding its slot until the check's
 * timeout) would otherwise fill the cap and hold every other account's due runs behind them.
 *
 * - Each account has a queue of its own (first come, first served inside it), and accounts with
 *   runs waiting take turns, one run per turn.
 * - Fair share: an account holding `max(1, ceil(concurrency / active accounts))` runs (active: with
 *   runs in flight or waiting) is passed over while another account below its share has runs
 *   waiting. When every account with runs waiting holds its share already, a free slot still goes
 *   to the next in turn rather than stay idle.
 * - Reserve: the last `reserve` free slots only go to accounts holding fewer than `reserve` runs.
 *   In-flight runs cannot be taken back, so without it an account alone on the service would fill
 *   the cap and another account's next due run would wait for one of those runs to end; with it,
 *   that run starts at once.
 * - A slot still waiting when the next slot of the same check and location comes is replaced by
 *   it (the older one counts as missed): running it late says nothing the newer run does not, and
 *   an account whose runs all hang would otherwise queue a slot per check per period without end.
 *   So an account never has more runs waiting than it has checks and locations.
 * - At most `maxWaiting` runs wait in all. A slot due while the line is full pushes out the run
 *   first in line of the account with the most runs waiting (its oldest place): that account is
 *   the one outrunning its share, and its oldest run is the latest already, the one whose check's
 *   next slot comes soonest. The dropped slot is reported (`onDropped`) and counts as missed.
 *
 * The limit on runs in flight is a `RunLimit` (concurrency.ts): fixed, or following the rate slots
 * fall due and how long runs take. The queue tells it of every due slot and every run's duration,
 * and asks it before every start; the fair share and the reserve follow the limit of the moment.
 *
 * Every dispatch costs the accounts it looks at, never the runs queued behind them.
 */
import { FixedLimit, type RunLimit } from './concurrency.js';
import type { Slot } from './slots.js';

/** One claimed slot to run: the slot and the stored documents it was computed from. */
export interface RunJob {
  slot: Slot;
  check: Record<string, unknown>;
  group?: Record<string, unknown>;
}

export interface RunQueue {
  /** Hands over a claimed slot; never throws and never waits for the run. */
  submit(job: RunJob): void;
  /** Jobs submitted but not finished. */
  readonly pending: number;
  /** Resolves when every submitted job has finished. */
  drain(): Promise<void>;
}

/** Runs a job; `signal` aborts when a stopping service gives up waiting, and what the run returns then must be dropped. */
export type ExecuteRun = (job: RunJob, signal: AbortSignal) => Promise<void>;

export interface InProcessRunQueueOptions {
  /** Runs in flight at once, all accounts together: a number, or a limit that follows the load. */
  concurrency: number | RunLimit;
  /** Free slots kept for accounts holding fewer runs than this (default a tenth of the limit of the moment, rounded down). */
  reserve?: number;
  /** Runs waiting at most, all accounts together (default: no bound but the one per check and location). */
  maxWaiting?: number;
  /** A run that failed inside the service (not a failing check). */
  onError: (error: unknown, job: RunJob) => void;
  /** Told of each slot dropped from a full line; it never runs and counts as missed. */
  onDropped?: (job: RunJob) => void;
  /** Milliseconds, for the due rate and the runs' durations the limit learns from (default `performance.now`). */
  now?: () => number;
}

/** What a stop left behind: runs never started, and runs aborted at the deadline. Both slots count as missed. */
export interface StopReport {
  dropped: number;
  aborted: number;
}

/** A first-in first-out list with O(1) removal at the front (Array#shift copies the rest). */
class Fifo<T> {
  #items: T[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** The item that `shift` would return, without removing it. */
  peek(): T | undefined {
    return this.#head < this.#items.length ? this.#items[this.#head] : undefined;
  }

  /** Removes one item wherever it is: O(length), for the rare removal from the middle. */
  remove(item: T): void {
    const index = this.#items.indexOf(item, this.#head);
    if (index >= 0) this.#items.splice(index, 1);
  }

  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head]!;
    this.#items[this.#head++] = undefined as T;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  clear(): number {
    const count = this.length;
    this.#items = [];
    this.#head = 0;
    return count;
  }
}

/** A place in an account's line, held by the newest slot of one check and location. */
interface Waiting {
  job: RunJob;
}

/** An account with runs in flight or waiting. */
interface Tenant {
  readonly waiting: Fifo<Waiting>;
  /** The waiting places by check and location. */
  readonly places: Map<string, Waiting>;
  running: number;
}

const placeOf = (job: RunJob) => `${job.slot.checkId}\n${job.slot.location}`;

/**
 * Runs jobs in this process, at most `concurrency` at once, fairly between accounts (see above). A
 * slow or hanging target occupies slots of its own account's share, never the scheduler's clock,
 * and the runner bounds each run by the check's own timeout.
 */
export class InProcessRunQueue implements RunQueue {
  readonly #execute: ExecuteRun;
  readonly #limit: RunLimit;
  readonly #reserve: number | undefined;
  readonly #maxWaiting: number;
  readonly #onError: InProcessRunQueueOptions['onError'];
  readonly #onDropped: InProcessRunQueueOptions['onDropped'];
  readonly #now: () => number;
  readonly #tenants = new Map<string, Tenant>();
  /** Accounts with runs waiting, in turn order; each at most once. */
  readonly #turns = new Fifo<Tenant>();
  readonly #inFlight = new Set<AbortController>();
  #running = 0;
  #waiting = 0;
  #superseded = 0;
  #dropped = 0;
  #idle: Array<() => void> = [];
  #stopped = false;

  constructor(execute: ExecuteRun, options: InProcessRunQueueOptions) {
    this.#execute = execute;
    this.#limit = typeof options.concurrency === 'number' ? new FixedLimit(options.concurrency) : options.concurrency;
    this.#reserve = options.reserve === undefined ? undefined : Math.max(0, Math.floor(options.reserve));
    this.#maxWaiting = Math.max(0, Math.floor(options.maxWaiting ?? Number.POSITIVE_INFINITY));
    this.#onError = options.onError;
    this.#onDropped = options.onDropped;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Runs in flight at most, now. */
  get limit(): number {
    return this.#limit.current(this.#now());
  }

  get pending(): number {
    return this.#waiting + this.#running;
  }

  /** Runs in flight now. */
  get running(): number {
    return this.#running;
  }

  /** Claimed slots waiting for a free run slot. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Slots replaced while waiting by the next slot of the same check and location (missed). */
  get superseded(): number {
    return this.#superseded;
  }

  /** Slots dropped from a full line (missed). */
  get dropped(): number {
    return this.#dropped;
  }

  /** Runs in flight per account (tests, diagnostics). */
  runningOf(accountId: string): number {
    return this.#tenants.get(accountId)?.running ?? 0;
  }

  submit(job: RunJob): void {
    // A stopping service claims nothing more; a job handed over anyway is a missed slot.
    if (this.#stopped) return;
    this.#limit.due(this.#now());
    let tenant = this.#tenants.get(job.slot.accountId);
    if (!tenant) {
      tenant = { waiting: new Fifo(), places: new Map(), running: 0 };
      this.#tenants.set(job.slot.accountId, tenant);
    }
    const place = placeOf(job);
    const older = tenant.places.get(place);
    if (older) {
      older.job = job;
      this.#superseded++;
      return;
    }
    if (tenant.waiting.length === 0) this.#turns.push(tenant);
    const waiting = { job };
    tenant.waiting.push(waiting);
    tenant.places.set(place, waiting);
    this.#waiting++;
    this.#pump();
    // Counted after the pump: a run that starts at once never waited. The newcomer is last in its
    // line, so it is pushed out only when every line holds one run and it is the oldest of them.
    if (this.#waiting > this.#maxWaiting) this.#dropOldestOfLongestLine();
  }

  /** Drops the run first in line of the account with the most runs waiting (ties: the one whose first run is older). */
  #dropOldestOfLongestLine(): void {
    let longest: Tenant | undefined;
    for (const tenant of this.#tenants.values()) {
      const length = tenant.waiting.length;
      if (length === 0) continue;
      if (!longest || length > longest.waiting.length || (length === longest.waiting.length && tenant.waiting.peek()!.job.slot.dueMs < longest.waiting.peek()!.job.slot.dueMs)) longest = tenant;
    }
    if (!longest) return;
    const { job } = longest.waiting.shift()!;
    longest.places.delete(placeOf(job));
    this.#waiting--;
    if (longest.waiting.length === 0) {
      this.#turns.remove(longest);
      if (longest.running === 0) this.#tenants.delete(job.slot.accountId);
    }
    this.#drop(job);
  }

  #drop(job: RunJob): void {
    this.#dropped++;
    try {
      this.#onDropped?.(job);
    } catch (error) {
      this.#onError(error, job);
    }
  }

  drain(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /**
   * Starts no more runs: those waiting are dropped; those in flight get `drainMs` to finish, then
   * their signals abort. Resolves when none is in flight, or `graceMs` after the abort for runs that
   * do not end on it (their execute drops what they return; the caller closes the database).
   */
  async stop(drainMs: number, graceMs = 1000): Promise<StopReport> {
    this.#stopped = true;
    let dropped = 0;
    for (let tenant = this.#turns.shift(); tenant; tenant = this.#turns.shift()) {
      dropped += tenant.waiting.clear();
      tenant.places.clear();
    }
    this.#waiting = 0;
    for (const [accountId, tenant] of this.#tenants) if (tenant.running === 0) this.#tenants.delete(accountId);
    this.#settleIdle();
    if (this.#running === 0) return { dropped, aborted: 0 };
    if (await this.#idleWithin(drainMs)) return { dropped, aborted: 0 };
    const aborted = this.#inFlight.size;
    for (const controller of this.#inFlight) controller.abort(new Error('the service is stopping'));
    await this.#idleWithin(graceMs);
    return { dropped, aborted };
  }

  async #idleWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    try {
      return await Promise.race([this.drain().then(() => true), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  #pump(): void {
    if (this.#stopped || this.#turns.length === 0) return;
    const limit = this.#limit.current(this.#now());
    // The reserve follows the limit (a tenth of it) unless it was given; it always leaves one slot to share.
    const reserve = Math.min(limit - 1, this.#reserve ?? Math.floor(limit / 10));
    while (this.#running < limit) {
      const tenant = this.#nextTurn(limit, reserve);
      if (!tenant) return;
      this.#start(tenant);
    }
  }

  /** Takes the account whose run starts next off the turns; none when the free slots are all reserved. */
  #nextTurn(limit: number, reserve: number): Tenant | undefined {
    const turns = this.#turns.length;
    if (turns === 0) return undefined;
    const free = limit - this.#running;
    const share = Math.max(1, Math.ceil(limit / this.#tenants.size));
    const allowed = (tenant: Tenant) => free > reserve || tenant.running < reserve;
    // A full round leaves the turns in their order: the fallback below is the next in turn.
    let fallback: Tenant | undefined;
    for (let looked = 0; looked < turns; looked++) {
      const tenant = this.#turns.shift()!;
      if (allowed(tenant) && (tenant.running < share || turns === 1)) return tenant;
      this.#turns.push(tenant);
      if (!fallback && allowed(tenant)) fallback = tenant;
    }
    if (!fallback) return undefined;
    for (let tenant = this.#turns.shift()!; tenant !== fallback; tenant = this.#turns.shift()!) this.#turns.push(tenant);
    return fallback;
  }

  #start(tenant: Tenant): void {
    const { job } = tenant.waiting.shift()!;
    tenant.places.delete(placeOf(job));
    this.#waiting--;
    // Back of the line for its next run: one run per turn.
    if (tenant.waiting.length > 0) this.#turns.push(tenant);
    tenant.running++;
    this.#running++;
    const controller = new AbortController();
    this.#inFlight.add(controller);
    const startedAt = this.#now();
    this.#execute(job, controller.signal)
      // A run the stop aborted is dropped on purpose: what it threw on the way out is no failure of the service.
      .catch((error: unknown) => {
        if (!controller.signal.aborted) this.#onError(error, job);
      })
      .finally(() => {
        // A run cut short by the stop says nothing about how long runs take.
        if (!controller.signal.aborted) this.#limit.ended(this.#now() - startedAt);
        this.#inFlight.delete(controller);
        this.#running--;
        tenant.running--;
        if (tenant.running === 0 && tenant.waiting.length === 0) this.#tenants.delete(job.slot.accountId);
        this.#pump();
        this.#settleIdle();
      });
  }

  #settleIdle(): void {
    if (this.pending === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }
}
