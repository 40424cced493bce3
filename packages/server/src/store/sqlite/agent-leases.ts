/**
 * Runs waiting for a runner agent, and the leases agents hold on them. The scheduler claims a slot
 * (slot-claims.ts) and, when its location is not run in-process, queues it here; an agent of that
 * location takes it with a lease that expires unless renewed. A lease that expires is handed to the
 * next agent of the location that asks; a report counts only under the lease the run holds now, and
 * only once, so a run is recorded at most once however many agents tried it.
 *
 * Rows stay after they finish (how is `outcome`) so a late report can be told "already recorded"
 * rather than "unknown"; finished rows are pruned after a day. The table is step 27 of the schema
 * (migrations/agents.ts).
 *
 * Runs queued by another connection to the file (another process: a test's replicas) are heard of by
 * looking at the table's newest rowid every QUEUED_LOOK_MS while a hub listens: SQLite has no
 * notifications, and that look is one step down the table's b-tree. A row's rowid only grows while a
 * newer row exists; when pruning took the newest rows, listeners are told to look at every queue. A
 * run freed by a release is moved to a new rowid past the newest, so the look tells it as queued.
 */
import { randomUUID } from 'node:crypto';
import type { RunJob as WireRunJob } from '@vigil/schema';
import type { Statement } from 'better-sqlite3';
import {
  checkLeaseIds,
  checkLeaseRequest,
  checkLeasedJob,
  checkQueuedListener,
  FINISHED_RUN_RETENTION_MS,
  type AgentLeases,
  type Completion,
  type LeasedRun,
  type LeaseHolder,
  type OpenRun,
  type QueuedEvent,
} from '../agent-ports.js';
import type { SqliteDatabase } from '../database.js';
import { moment, positive, text } from '../port-rules.js';
import { committed, type BatchedSqlite } from './batched.js';

interface Row {
  location: string;
  account_id: string;
  slot_key: string;
  job: string;
  queued_ms: number;
  lease_id: string | null;
  agent_id: string | null;
  lease_expires_ms: number | null;
  handouts: number;
  finished_ms: number | null;
  outcome: string | null;
}

const PRUNE_BATCH = 500;
/** How often a replica listening for queued runs looks for those another connection stored. */
const QUEUED_LOOK_MS = 100;

/** The synchronous table, used inside the store's group commit like the slot claims. */
export class AgentLeaseTable {
  readonly #insert: Statement;
  readonly #supersede: Statement;
  readonly #claimable: Statement;
  readonly #lease: Statement;
  readonly #renew: Statement;
  readonly #byLease: Statement;
  readonly #finish: Statement;
  readonly #openLocations: Statement;
  readonly #waitingSince: Statement;
  readonly #prune: Statement;
  readonly #release: Statement;
  readonly #moveToNewest: Statement;
  readonly #nextLeaseEnd: Statement;
  readonly #counts: Statement;
  readonly #newestRow: Statement;
  readonly #queuesAfter: Statement;
  readonly #db: SqliteDatabase;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#insert = db.prepare(
      'INSERT OR IGNORE INTO agent_runs (account_id, slot_key, check_id, location, due_ms, job, queued_ms) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    // An older slot of the same check and location still waiting for its first agent is replaced by
    // the newer one, as the in-process queue does: running it late says nothing the newer run does
    // not. One an agent started is not: its run was under way, and goes to a peer when its lease expires.
    this.#supersede = db.prepare(`
      UPDATE agent_runs SET finished_ms = ?, outcome = 'superseded'
      WHERE account_id = ? AND check_id = ? AND location = ? AND due_ms < ? AND finished_ms IS NULL AND handouts = 0`);
    this.#claimable = db.prepare(`
      SELECT account_id, slot_key FROM agent_runs
      WHERE location = ? AND finished_ms IS NULL AND (lease_expires_ms IS NULL OR lease_expires_ms <= ?)
      ORDER BY due_ms LIMIT ?`);
    this.#lease = db.prepare(
      'UPDATE agent_runs SET lease_id = ?, agent_id = ?, lease_expires_ms = ?, handouts = handouts + 1 WHERE account_id = ? AND slot_key = ? RETURNING job, handouts',
    );
    this.#renew = db.prepare('UPDATE agent_runs SET lease_expires_ms = ? WHERE lease_id = ? AND agent_id = ? AND finished_ms IS NULL');
    this.#byLease = db.prepare('SELECT * FROM agent_runs WHERE lease_id = ?');
    this.#finish = db.prepare('UPDATE agent_runs SET finished_ms = ?, outcome = ? WHERE account_id = ? AND slot_key = ? AND finished_ms IS NULL');
    this.#openLocations = db.prepare('SELECT DISTINCT location FROM agent_runs WHERE finished_ms IS NULL').pluck();
    this.#waitingSince = db.prepare(`
      SELECT * FROM agent_runs
      WHERE location = ? AND finished_ms IS NULL AND queued_ms <= ? AND (lease_expires_ms IS NULL OR lease_expires_ms <= ?)
      ORDER BY due_ms LIMIT ?`);
    this.#release = db.prepare(
      'UPDATE agent_runs SET lease_expires_ms = ? WHERE agent_id = ? AND finished_ms IS NULL AND lease_expires_ms > ? RETURNING account_id, slot_key',
    );
    this.#moveToNewest = db.prepare('UPDATE agent_runs SET rowid = (SELECT MAX(rowid) FROM agent_runs) + 1 WHERE account_id = ? AND slot_key = ?');
    this.#nextLeaseEnd = db.prepare('SELECT MIN(lease_expires_ms) FROM agent_runs WHERE location = ? AND finished_ms IS NULL AND lease_expires_ms > ?').pluck();
    this.#counts = db.prepare(`
      SELECT COALESCE(SUM(lease_expires_ms > @now), 0) AS running, COALESCE(SUM(lease_expires_ms IS NULL OR lease_expires_ms <= @now), 0) AS waiting
      FROM agent_runs WHERE finished_ms IS NULL`);
    this.#prune = db.prepare(`DELETE FROM agent_runs WHERE rowid IN (SELECT rowid FROM agent_runs WHERE finished_ms < ? LIMIT ${PRUNE_BATCH})`);
    this.#newestRow = db.prepare('SELECT COALESCE(MAX(rowid), 0) FROM agent_runs').pluck();
    this.#queuesAfter = db.prepare('SELECT DISTINCT location FROM agent_runs WHERE rowid > ? AND finished_ms IS NULL').pluck();
  }

  /** The rowid of the newest run stored (0 for none): it grows with every run queued. */
  newestRow(): number {
    return this.#newestRow.get() as number;
  }

  /** The queues of unfinished runs stored after the run of rowid `row`. */
  queuesAfter(row: number): string[] {
    return this.#queuesAfter.all(row) as string[];
  }

  /**
   * Queues a claimed slot's job for the agents of `queue` (its location's name, or a private
   * location's `slug@account`): how many older runs it replaced, and whether it was queued (false
   * when that slot is queued already).
   */
  enqueue(job: WireRunJob, nowMs: number, queue: string = job.location): { queued: boolean; superseded: number } {
    const superseded = this.#supersede.run(nowMs, job.accountId, job.checkId, queue, job.dueMs).changes;
    const queued = this.#insert.run(job.accountId, job.key, job.checkId, queue, job.dueMs, JSON.stringify(job), nowMs).changes > 0;
    return { queued, superseded };
  }

  /**
   * Hands up to `max` runs of `location` to `agentId`, oldest slot first: runs never handed out and
   * runs whose lease expired. Each gets a fresh lease id, so the previous holder's report no longer counts.
   */
  claim(location: string, agentId: string, max: number, nowMs: number, leaseMs: number): LeasedRun[] {
    if (max <= 0) return [];
    return this.#db.transaction(() => {
      const rows = this.#claimable.all(location, nowMs, max) as Array<Pick<Row, 'account_id' | 'slot_key'>>;
      return rows.map((row) => {
        const leaseId = randomUUID();
        const leaseExpiresMs = nowMs + leaseMs;
        const { job, handouts } = this.#lease.get(leaseId, agentId, leaseExpiresMs, row.account_id, row.slot_key) as { job: string; handouts: number };
        return { leaseId, leaseExpiresMs, job: JSON.parse(job) as WireRunJob, first: handouts === 1 };
      });
    })();
  }

  /** Extends the leases `agentId` still holds; returns those that were extended (the rest are lost). */
  renew(agentId: string, leaseIds: readonly string[], nowMs: number, leaseMs: number): string[] {
    return this.#db.transaction(() => leaseIds.filter((leaseId) => this.#renew.run(nowMs + leaseMs, leaseId, agentId).changes > 0))();
  }

  /**
   * Finishes the run leased under `leaseId` as reported, when that lease is the run's current one
   * and the run is not finished: the only way a report is recorded. A lease that expired but was
   * not handed to anyone else still counts (the run was executed and nobody else has it).
   */
  complete(leaseId: string, key: string, nowMs: number): Completion {
    const row = this.#byLease.get(leaseId) as Row | undefined;
    if (!row) return { kind: 'unknown-lease' };
    if (row.slot_key !== key) return { kind: 'other-run', key: row.slot_key };
    if (row.finished_ms !== null) return { kind: 'already-finished', key: row.slot_key, outcome: row.outcome ?? 'reported' };
    this.#finish.run(nowMs, 'reported', row.account_id, row.slot_key);
    return { kind: 'completed', job: JSON.parse(row.job) as WireRunJob, agentId: row.agent_id ?? '' };
  }

  /** The run `leaseId` was handed with (current lease or a finished run's last one), and its queue. */
  leased(leaseId: string): LeaseHolder | undefined {
    const row = this.#byLease.get(leaseId) as Row | undefined;
    return row ? { job: JSON.parse(row.job) as WireRunJob, queue: row.location } : undefined;
  }

  /**
   * Ends the live leases of these agents now, so the next agent of their queue takes those runs; each
   * run freed gets a rowid past the newest, which listeners (every process's look) take for a run queued.
   */
  release(agentIds: readonly string[], nowMs: number): number {
    return this.#db.transaction(() => {
      let released = 0;
      for (const agentId of agentIds) {
        for (const run of this.#release.all(nowMs, agentId, nowMs) as Array<Pick<Row, 'account_id' | 'slot_key'>>) {
          this.#moveToNewest.run(run.account_id, run.slot_key);
          released += 1;
        }
      }
      return released;
    })();
  }

  /** The earliest moment after `nowMs` a lease on an unfinished run of `queue` runs out. */
  nextLeaseEnd(queue: string, nowMs: number): number | undefined {
    return (this.#nextLeaseEnd.get(queue, nowMs) as number | null) ?? undefined;
  }

  /** Runs leased to an agent now, and runs waiting for one. */
  counts(nowMs: number): { running: number; waiting: number } {
    return this.#counts.get({ now: nowMs }) as { running: number; waiting: number };
  }

  /** Queues (locations, or private locations' `slug@account`) with runs not finished. */
  openLocations(): string[] {
    return this.#openLocations.all() as string[];
  }

  /** Runs of `location` (a queue) queued at or before `queuedBeforeMs` that no agent holds now. */
  waiting(location: string, queuedBeforeMs: number, nowMs: number, limit = PRUNE_BATCH): OpenRun[] {
    return (this.#waitingSince.all(location, queuedBeforeMs, nowMs, limit) as Row[]).map((row) => ({
      accountId: row.account_id,
      key: row.slot_key,
      job: JSON.parse(row.job) as WireRunJob,
      queuedMs: row.queued_ms,
      handouts: row.handouts,
    }));
  }

  /** Finishes a run no agent will report (no agent of its location): false when it finished already. */
  giveUp(accountId: string, key: string, nowMs: number): boolean {
    return this.#finish.run(nowMs, 'not-executed', accountId, key).changes > 0;
  }

  /** Deletes one batch of rows finished over a day before `nowMs`; how many went. */
  pruneBatch(nowMs: number): number {
    return this.#prune.run(nowMs - FINISHED_RUN_RETENTION_MS).changes;
  }
}

/** The agent-lease port (agent-ports.ts) on the table above; each write one transaction, or the unit's. */
export class SqliteAgentLeases implements AgentLeases {
  readonly #store: BatchedSqlite;
  #table: AgentLeaseTable | undefined;
  readonly #listeners = new Set<(event: QueuedEvent) => void>();
  #looking: NodeJS.Timeout | undefined;
  /** The newest rowid the listeners were told of. */
  #toldUpTo = 0;

  constructor(store: BatchedSqlite) {
    this.#store = store;
  }

  /** Prepared at the first call: a unit's ports are built while its savepoint is open. */
  #statements(): AgentLeaseTable {
    return (this.#table ??= new AgentLeaseTable(this.#store.db));
  }

  async enqueue(job: WireRunJob, queue: string, nowMs: number): Promise<{ queued: boolean; superseded: number }> {
    checkLeasedJob(job, queue, nowMs);
    return committed(this.#store, () => this.#statements().enqueue(job, nowMs, queue));
  }

  async claim(queue: string, agentId: string, max: number, nowMs: number, leaseMs: number): Promise<LeasedRun[]> {
    checkLeaseRequest(queue, agentId, max, nowMs, leaseMs);
    if (max === 0) return [];
    return committed(this.#store, () => this.#statements().claim(queue, agentId, max, nowMs, leaseMs));
  }

  async renew(agentId: string, leaseIds: readonly string[], nowMs: number, leaseMs: number): Promise<string[]> {
    checkLeaseIds(agentId, leaseIds);
    moment('nowMs', nowMs);
    positive('leaseMs', leaseMs);
    if (leaseIds.length === 0) return [];
    return committed(this.#store, () => this.#statements().renew(agentId, leaseIds, nowMs, leaseMs));
  }

  async complete(leaseId: string, key: string, nowMs: number): Promise<Completion> {
    text('leaseId', leaseId, 1000);
    text('key', key, 1000);
    moment('nowMs', nowMs);
    return committed(this.#store, () => this.#statements().complete(leaseId, key, nowMs));
  }

  async leased(leaseId: string): Promise<LeaseHolder | undefined> {
    text('leaseId', leaseId, 1000);
    return this.#statements().leased(leaseId);
  }

  async release(agentIds: readonly string[], nowMs: number): Promise<number> {
    for (const agentId of agentIds) text('agentId', agentId, 1000);
    moment('nowMs', nowMs);
    if (agentIds.length === 0) return 0;
    return committed(this.#store, () => this.#statements().release(agentIds, nowMs));
  }

  async nextLeaseEnd(queue: string, nowMs: number): Promise<number | undefined> {
    text('queue', queue, 1000);
    moment('nowMs', nowMs);
    return this.#statements().nextLeaseEnd(queue, nowMs);
  }

  async counts(nowMs: number): Promise<{ running: number; waiting: number }> {
    moment('nowMs', nowMs);
    return this.#statements().counts(nowMs);
  }

  async openQueues(): Promise<string[]> {
    return this.#statements().openLocations();
  }

  async waiting(queue: string, queuedBeforeMs: number, nowMs: number, limit: number): Promise<OpenRun[]> {
    text('queue', queue, 1000);
    moment('queuedBeforeMs', queuedBeforeMs);
    moment('nowMs', nowMs);
    positive('limit', limit);
    return this.#statements().waiting(queue, queuedBeforeMs, nowMs, limit);
  }

  async giveUp(accountId: string, key: string, nowMs: number): Promise<boolean> {
    text('accountId', accountId);
    text('key', key, 1000);
    moment('nowMs', nowMs);
    return committed(this.#store, () => this.#statements().giveUp(accountId, key, nowMs));
  }

  async prune(nowMs: number): Promise<number> {
    moment('nowMs', nowMs);
    // A batch per transaction, so a day of finished runs never holds the write lock for long.
    for (let pruned = 0; ; ) {
      const batch = await committed(this.#store, () => this.#statements().pruneBatch(nowMs));
      pruned += batch;
      if (batch === 0) return pruned;
    }
  }

  onQueued(listener: (event: QueuedEvent) => void): () => void {
    checkQueuedListener(listener);
    const own = (event: QueuedEvent) => listener(event);
    if (this.#listeners.size === 0) {
      this.#toldUpTo = this.#statements().newestRow();
      this.#looking = setInterval(() => this.#look(), QUEUED_LOOK_MS);
      // The service's server keeps the process alive while it runs; this look alone does not.
      this.#looking.unref();
    }
    this.#listeners.add(own);
    // Listening from the newest row read above: what came before is the sweep's.
    queueMicrotask(() => this.#listeners.has(own) && own({ kind: 'listening' }));
    return () => {
      if (!this.#listeners.delete(own) || this.#listeners.size > 0) return;
      clearInterval(this.#looking);
      this.#looking = undefined;
    };
  }

  #look(): void {
    const db = this.#store.db;
    // Closed: the ports were closed under a hub not stopped yet. In a transaction: its own rows
    // are not committed yet, and a rolled-back rowid may be taken again by another run.
    if (!db.open) return this.#stopLooking();
    if (db.inTransaction) return;
    const newest = this.#statements().newestRow();
    if (newest === this.#toldUpTo) return;
    const events: QueuedEvent[] =
      newest > this.#toldUpTo ? this.#statements().queuesAfter(this.#toldUpTo).map((queue) => ({ kind: 'queued' as const, queue }))
      : [{ kind: 'listening' }];
    this.#toldUpTo = newest;
    for (const event of events) for (const listener of [...this.#listeners]) listener(event);
  }

  #stopLooking(): void {
    this.#listeners.clear();
    clearInterval(this.#looking);
    this.#looking = undefined;
  }
}
