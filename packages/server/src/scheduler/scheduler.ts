/**
 * The service's scheduler (DESIGN §10): every tick, the slots that fell due since the last tick are
 * claimed in the database and handed to the run queue.
 *
 * - Claiming is an `INSERT OR IGNORE` of the slot's key, so a slot runs at most once per location,
 *   also across a restart or a second scheduler on the same database.
 * - Slots that fell due while the service was down are not run late: after a restart the scheduler
 *   starts from "now", so a check misses at most the slots of the downtime (one, for a quick restart).
 * - The set of checks is re-read every few seconds (not per tick); a change through the API is
 *   picked up within `refreshMs`.
 * - What never runs: a deactivated check, a check in a deactivated group, passive checks (heartbeats).
 */
import { readSideOf } from '../readside/context.js';
import type { SqliteDatabase, Store } from '../store/index.js';
import type { RunJob, RunQueue } from './queue.js';
import { dueSlots, nextDueMs, type SchedulableCheck, type Slot } from './slots.js';

export const SCHEDULER_SCOPE = 'scheduler';

export const SCHEDULER_MIGRATIONS = [
  {
    version: 1,
    name: 'claimed slots',
    up: (db: SqliteDatabase) => {
      db.exec(`
        CREATE TABLE scheduled_runs (
          account_id TEXT NOT NULL,
          slot_key TEXT NOT NULL,
          check_id TEXT NOT NULL,
          due_ms INTEGER NOT NULL,
          location TEXT NOT NULL,
          claimed_ms INTEGER NOT NULL,
          finished_ms INTEGER,
          PRIMARY KEY (account_id, slot_key)
        );
        CREATE INDEX scheduled_runs_due ON scheduled_runs (due_ms);
      `);
    },
  },
];

/** Check types with nothing to run: the service waits for them (heartbeat pings). */
const PASSIVE = new Set(['HEARTBEAT']);

export interface SchedulerOptions {
  store: Store;
  queue: RunQueue;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  /** How often due slots are looked for (default 200 ms: the start lag it adds is at most this). */
  tickMs?: number;
  /** How often the set of checks is re-read (default 5 s). */
  refreshMs?: number;
  /** Check results older than this many days are deleted (default 30). */
  retentionDays?: number;
  /** Called on every tick with its moment: passive checks' own evaluation (heartbeats/watch.ts). */
  onTick?: (nowMs: number) => void;
}

/** Rows deleted per statement when pruning, so a large backlog never holds the database for long. */
const PRUNE_BATCH = 500;
/** How often old results and claims are pruned. */
const PRUNE_EVERY_MS = 60_000;
/** Claims only guard against running a slot twice around a restart; two days is plenty. */
const CLAIM_RETENTION_MS = 2 * 24 * 60 * 60 * 1000;

interface Entry {
  schedule: SchedulableCheck;
  check: Record<string, unknown>;
  group?: Record<string, unknown>;
  /** The next moment this check is due; ticks skip it until then. */
  nextDueMs: number;
}

export class Scheduler {
  readonly #store: Store;
  readonly #queue: RunQueue;
  readonly #now: () => number;
  readonly #tickMs: number;
  readonly #refreshMs: number;
  readonly #onTick: ((nowMs: number) => void) | undefined;
  readonly #claim;
  readonly #finish;
  readonly #retentionMs: number;
  readonly #pruneResults;
  readonly #pruneClaims;
  #prunedAt = 0;
  #entries: Entry[] = [];
  #loadedAt = Number.NEGATIVE_INFINITY;
  #lastTickMs = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: SchedulerOptions) {
    this.#store = options.store;
    this.#queue = options.queue;
    this.#now = options.now ?? Date.now;
    this.#tickMs = options.tickMs ?? 200;
    this.#refreshMs = options.refreshMs ?? 5000;
    this.#onTick = options.onTick;
    options.store.migrate(SCHEDULER_SCOPE, SCHEDULER_MIGRATIONS);
    const db = options.store.db;
    this.#claim = db.prepare(
      'INSERT OR IGNORE INTO scheduled_runs (account_id, slot_key, check_id, due_ms, location, claimed_ms) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.#finish = db.prepare('UPDATE scheduled_runs SET finished_ms = ? WHERE account_id = ? AND slot_key = ?');
    this.#retentionMs = (options.retentionDays ?? 30) * 24 * 60 * 60 * 1000;
    readSideOf(options.store); // results are pruned from the read side's table: make sure it exists
    this.#pruneResults = db.prepare(`DELETE FROM check_results WHERE rowid IN (SELECT rowid FROM check_results WHERE created_ms < ? LIMIT ${PRUNE_BATCH})`);
    this.#pruneClaims = db.prepare(`DELETE FROM scheduled_runs WHERE rowid IN (SELECT rowid FROM scheduled_runs WHERE due_ms < ? LIMIT ${PRUNE_BATCH})`);
  }

  /**
   * Deletes results older than the retention and claims older than two days, a batch at a time
   * (each batch its own short statement), until none is left. Returns how many results went.
   */
  prune(nowMs = this.#now()): number {
    this.#prunedAt = nowMs;
    let removed = 0;
    for (let batch = this.#pruneResults.run(nowMs - this.#retentionMs).changes; batch > 0; batch = this.#pruneResults.run(nowMs - this.#retentionMs).changes) removed += batch;
    while (this.#pruneClaims.run(nowMs - CLAIM_RETENTION_MS).changes > 0);
    return removed;
  }

  /** Starts ticking from now; slots due before now are not run. */
  start(): void {
    if (this.#timer) return;
    this.#lastTickMs = this.#now();
    this.#timer = setInterval(() => this.tick(), this.#tickMs);
    this.#timer.unref();
  }

  /** Stops ticking and waits for the runs in flight. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#queue.drain();
  }

  /** Marks a slot's run as finished (for `vigil status` and the retention of claims). */
  finished(slot: Slot): void {
    this.#finish.run(this.#now(), slot.accountId, slot.key);
  }

  /**
   * Claims and submits every slot due in `[last tick, nowMs)`; returns how many were submitted.
   * Public so tests can drive the clock.
   */
  tick(nowMs = this.#now()): number {
    // The first tick only sets the origin: nothing before the scheduler started is run late.
    if (this.#lastTickMs === 0) this.#lastTickMs = nowMs;
    if (nowMs - this.#loadedAt >= this.#refreshMs) this.#reload(nowMs);
    if (nowMs - this.#prunedAt >= PRUNE_EVERY_MS) this.prune(nowMs);
    this.#onTick?.(nowMs);
    const from = this.#lastTickMs;
    if (nowMs <= from) return 0;
    this.#lastTickMs = nowMs;
    const jobs: RunJob[] = [];
    const claimedAt = this.#now();
    this.#store.db.transaction(() => {
      for (const entry of this.#entries) {
        if (entry.nextDueMs >= nowMs) continue;
        for (const slot of dueSlots(entry.schedule, Math.max(from, entry.nextDueMs), nowMs)) {
          const claimed = this.#claim.run(slot.accountId, slot.key, slot.checkId, slot.dueMs, slot.location, claimedAt).changes > 0;
          if (claimed) jobs.push({ slot, check: entry.check, ...(entry.group ? { group: entry.group } : {}) });
        }
        entry.nextDueMs = nextDueMs(entry.schedule, nowMs);
      }
    })();
    for (const job of jobs) this.#queue.submit(job);
    return jobs.length;
  }

  #reload(nowMs: number): void {
    this.#loadedAt = nowMs;
    const groups = new Map<string, Record<string, unknown>>();
    for (const row of this.#store.db.prepare('SELECT account_id, id, doc FROM check_groups').all() as Row[]) {
      groups.set(`${row.account_id}\n${row.id}`, JSON.parse(row.doc) as Record<string, unknown>);
    }
    const previous = new Map(this.#entries.map((entry) => [`${entry.schedule.accountId}\n${entry.schedule.id}`, entry]));
    const entries: Entry[] = [];
    for (const row of this.#store.db.prepare('SELECT account_id, id, doc FROM checks').all() as Row[]) {
      const check = JSON.parse(row.doc) as Record<string, unknown>;
      const group = check.groupId === null || check.groupId === undefined ? undefined : groups.get(`${row.account_id}\n${String(check.groupId)}`);
      const schedule = schedulable(row.account_id, String(check.id ?? row.id), check, group);
      if (!schedule) continue;
      const known = previous.get(`${row.account_id}\n${schedule.id}`);
      const unchanged = known && known.schedule.frequency === schedule.frequency && known.schedule.frequencyOffset === schedule.frequencyOffset;
      entries.push({ schedule, check, ...(group ? { group } : {}), nextDueMs: unchanged ? known.nextDueMs : nextDueMs(schedule, this.#lastTickMs || nowMs) });
    }
    this.#entries = entries;
  }
}

interface Row {
  account_id: string;
  id: string;
  doc: string;
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
  const own = Array.isArray(check.locations) ? (check.locations as string[]) : [];
  const fromGroup = Array.isArray(group?.locations) ? (group.locations as string[]) : [];
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
