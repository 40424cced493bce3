/**
 * The agent-lease port (agent-ports.ts) in PostgreSQL (migrations.ts, "runs queued for agents"), the
 * same table and rules as store/sqlite/agent-leases.ts. Replicas hand out runs at once: a claim picks
 * its rows `FOR UPDATE SKIP LOCKED`, so two replicas' agents never get the same run and neither waits
 * for the other; a report locks its run's row before it decides, so two reports of one run record one.
 * A run queued, or freed by a release, notifies AGENT_RUNS_CHANNEL with its queue's name (never more:
 * any session of the database may listen) in its own statement, so every replica hears of it when it
 * commits.
 */
import type { RunJob as WireRunJob } from '@vigil/schema';
import { sql, type Kysely } from 'kysely';
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
import { moment, positive, text } from '../port-rules.js';
import type { PostgresSchema } from './database.js';
import type { PostgresNotificationListener } from './notifications-listener.js';

/** The channel a queued run is notified on; its payload is the run's queue. */
export const AGENT_RUNS_CHANNEL = 'vigil_agent_runs_queued';

/** Rows deleted per statement when pruning, so a large backlog never holds locks for long. */
const PRUNE_BATCH = 500;

/** On the pool, or on a unit of work's transaction. */
export class PostgresAgentLeases implements AgentLeases {
  readonly #db: Kysely<PostgresSchema>;
  /** The replica's listener on AGENT_RUNS_CHANNEL (notifications-listener.ts). */
  readonly #queued: PostgresNotificationListener;

  constructor(db: Kysely<PostgresSchema>, queued: PostgresNotificationListener) {
    this.#db = db;
    this.#queued = queued;
  }

  onQueued(listener: (event: QueuedEvent) => void): () => void {
    checkQueuedListener(listener);
    return this.#queued.subscribe((event) => listener(event.kind === 'listening' ? event : { kind: 'queued', queue: event.payload }));
  }

  /** `work` in one transaction: a unit's own, or one of its own on the pool. */
  #together<T>(work: (db: Kysely<PostgresSchema>) => Promise<T>): Promise<T> {
    return this.#db.isTransaction ? work(this.#db) : this.#db.transaction().execute(work);
  }

  async enqueue(job: WireRunJob, queue: string, nowMs: number): Promise<{ queued: boolean; superseded: number }> {
    checkLeasedJob(job, queue, nowMs);
    // An older slot of the check and queue still waiting for its first agent is replaced, as SQLite
    // does; one an agent started is not (its row lock, taken by a claim, makes this wait and re-check).
    const { rows } = await sql<{ superseded: string; queued: string }>`
      WITH superseded AS (
        UPDATE agent_runs SET finished_ms = ${nowMs}, outcome = 'superseded'
        WHERE account_id = ${job.accountId} AND check_id = ${job.checkId} AND location = ${queue}
          AND due_ms < ${job.dueMs} AND finished_ms IS NULL AND handouts = 0
        RETURNING 1
      ), inserted AS (
        INSERT INTO agent_runs (account_id, slot_key, check_id, location, due_ms, job, queued_ms)
        VALUES (${job.accountId}, ${job.key}, ${job.checkId}, ${queue}, ${job.dueMs}, ${JSON.stringify(job)}, ${nowMs})
        ON CONFLICT DO NOTHING
        RETURNING location
      ), notified AS (
        -- Delivered when this statement's transaction commits (a unit's, or its own), never before.
        SELECT pg_notify(${AGENT_RUNS_CHANNEL}, location) FROM inserted
      )
      SELECT (SELECT count(*) FROM superseded) AS superseded, (SELECT count(*) FROM inserted) AS queued,
             (SELECT count(*) FROM notified) AS notified`.execute(this.#db);
    return { queued: Number(rows[0]?.queued ?? 0) > 0, superseded: Number(rows[0]?.superseded ?? 0) };
  }

  async claim(queue: string, agentId: string, max: number, nowMs: number, leaseMs: number): Promise<LeasedRun[]> {
    checkLeaseRequest(queue, agentId, max, nowMs, leaseMs);
    if (max === 0) return [];
    const leaseExpiresMs = nowMs + leaseMs;
    const { rows } = await sql<{ lease_id: string; job: string; handouts: number; due_ms: string; slot_key: string }>`
      WITH picked AS (
        SELECT account_id, slot_key FROM agent_runs
        WHERE location = ${queue} AND finished_ms IS NULL AND (lease_expires_ms IS NULL OR lease_expires_ms <= ${nowMs})
        ORDER BY due_ms, slot_key
        LIMIT ${max}
        FOR UPDATE SKIP LOCKED
      )
      UPDATE agent_runs AS run
      SET lease_id = gen_random_uuid()::text, agent_id = ${agentId}, lease_expires_ms = ${leaseExpiresMs}, handouts = run.handouts + 1
      FROM picked
      WHERE run.account_id = picked.account_id AND run.slot_key = picked.slot_key
      RETURNING run.lease_id, run.job, run.handouts, run.due_ms, run.slot_key`.execute(this.#db);
    return rows
      .sort((a, b) => Number(a.due_ms) - Number(b.due_ms) || (a.slot_key < b.slot_key ? -1 : a.slot_key > b.slot_key ? 1 : 0))
      .map((row) => ({ leaseId: row.lease_id, leaseExpiresMs, job: JSON.parse(row.job) as WireRunJob, first: Number(row.handouts) === 1 }));
  }

  async renew(agentId: string, leaseIds: readonly string[], nowMs: number, leaseMs: number): Promise<string[]> {
    checkLeaseIds(agentId, leaseIds);
    moment('nowMs', nowMs);
    positive('leaseMs', leaseMs);
    if (leaseIds.length === 0) return [];
    const { rows } = await sql<{ lease_id: string }>`
      UPDATE agent_runs SET lease_expires_ms = ${nowMs + leaseMs}
      WHERE lease_id = ANY(${[...leaseIds]}::text[]) AND agent_id = ${agentId} AND finished_ms IS NULL
      RETURNING lease_id`.execute(this.#db);
    const renewed = new Set(rows.map((row) => row.lease_id));
    return leaseIds.filter((leaseId) => renewed.has(leaseId));
  }

  async complete(leaseId: string, key: string, nowMs: number): Promise<Completion> {
    text('leaseId', leaseId, 1000);
    text('key', key, 1000);
    moment('nowMs', nowMs);
    return this.#together(async (db) => {
      // Locked before deciding: a second report of the run waits here and then sees it finished.
      const { rows } = await sql<{ account_id: string; slot_key: string; job: string; agent_id: string | null; finished_ms: string | null; outcome: string | null }>`
        SELECT account_id, slot_key, job, agent_id, finished_ms, outcome FROM agent_runs WHERE lease_id = ${leaseId} FOR UPDATE`.execute(db);
      const row = rows[0];
      if (!row) return { kind: 'unknown-lease' };
      if (row.slot_key !== key) return { kind: 'other-run', key: row.slot_key };
      if (row.finished_ms !== null) return { kind: 'already-finished', key: row.slot_key, outcome: row.outcome ?? 'reported' };
      await sql`UPDATE agent_runs SET finished_ms = ${nowMs}, outcome = 'reported' WHERE account_id = ${row.account_id} AND slot_key = ${row.slot_key}`.execute(db);
      return { kind: 'completed', job: JSON.parse(row.job) as WireRunJob, agentId: row.agent_id ?? '' };
    });
  }

  async leased(leaseId: string): Promise<LeaseHolder | undefined> {
    text('leaseId', leaseId, 1000);
    const { rows } = await sql<{ job: string; location: string }>`SELECT job, location FROM agent_runs WHERE lease_id = ${leaseId}`.execute(this.#db);
    return rows[0] === undefined ? undefined : { job: JSON.parse(rows[0].job) as WireRunJob, queue: rows[0].location };
  }

  async release(agentIds: readonly string[], nowMs: number): Promise<number> {
    for (const agentId of agentIds) text('agentId', agentId, 1000);
    moment('nowMs', nowMs);
    if (agentIds.length === 0) return 0;
    const { rows } = await sql<{ released: string; notified: string }>`
      WITH released AS (
        UPDATE agent_runs SET lease_expires_ms = ${nowMs}
        WHERE agent_id = ANY(${[...agentIds]}::text[]) AND finished_ms IS NULL AND lease_expires_ms > ${nowMs}
        RETURNING location
      ), notified AS (
        -- As an enqueue's: the agents waiting on other replicas take the freed runs at once.
        SELECT pg_notify(${AGENT_RUNS_CHANNEL}, location) FROM (SELECT DISTINCT location FROM released) AS queues
      )
      SELECT (SELECT count(*) FROM released) AS released, (SELECT count(*) FROM notified) AS notified`.execute(this.#db);
    return Number(rows[0]?.released ?? 0);
  }

  async nextLeaseEnd(queue: string, nowMs: number): Promise<number | undefined> {
    text('queue', queue, 1000);
    moment('nowMs', nowMs);
    const { rows } = await sql<{ ends: string | null }>`
      SELECT min(lease_expires_ms) AS ends FROM agent_runs
      WHERE location = ${queue} AND finished_ms IS NULL AND lease_expires_ms > ${nowMs}`.execute(this.#db);
    return rows[0]?.ends == null ? undefined : Number(rows[0].ends);
  }

  async counts(nowMs: number): Promise<{ running: number; waiting: number }> {
    moment('nowMs', nowMs);
    const { rows } = await sql<{ running: string; waiting: string }>`
      SELECT count(*) FILTER (WHERE lease_expires_ms > ${nowMs}) AS running,
             count(*) FILTER (WHERE lease_expires_ms IS NULL OR lease_expires_ms <= ${nowMs}) AS waiting
      FROM agent_runs WHERE finished_ms IS NULL`.execute(this.#db);
    return { running: Number(rows[0]?.running ?? 0), waiting: Number(rows[0]?.waiting ?? 0) };
  }

  async openQueues(): Promise<string[]> {
    const { rows } = await sql<{ location: string }>`SELECT DISTINCT location FROM agent_runs WHERE finished_ms IS NULL`.execute(this.#db);
    return rows.map((row) => row.location);
  }

  async waiting(queue: string, queuedBeforeMs: number, nowMs: number, limit: number): Promise<OpenRun[]> {
    text('queue', queue, 1000);
    moment('queuedBeforeMs', queuedBeforeMs);
    moment('nowMs', nowMs);
    positive('limit', limit);
    const { rows } = await sql<{ account_id: string; slot_key: string; job: string; queued_ms: string; handouts: number }>`
      SELECT account_id, slot_key, job, queued_ms, handouts FROM agent_runs
      WHERE location = ${queue} AND finished_ms IS NULL AND queued_ms <= ${queuedBeforeMs}
        AND (lease_expires_ms IS NULL OR lease_expires_ms <= ${nowMs})
      ORDER BY due_ms, slot_key LIMIT ${limit}`.execute(this.#db);
    return rows.map((row) => ({ accountId: row.account_id, key: row.slot_key, job: JSON.parse(row.job) as WireRunJob, queuedMs: Number(row.queued_ms), handouts: Number(row.handouts) }));
  }

  async giveUp(accountId: string, key: string, nowMs: number): Promise<boolean> {
    text('accountId', accountId);
    text('key', key, 1000);
    moment('nowMs', nowMs);
    const result = await sql`
      UPDATE agent_runs SET finished_ms = ${nowMs}, outcome = 'not-executed'
      WHERE account_id = ${accountId} AND slot_key = ${key} AND finished_ms IS NULL`.execute(this.#db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  async prune(nowMs: number): Promise<number> {
    moment('nowMs', nowMs);
    const before = nowMs - FINISHED_RUN_RETENTION_MS;
    for (let pruned = 0; ; ) {
      const result = await sql`
        DELETE FROM agent_runs WHERE ctid IN (SELECT ctid FROM agent_runs WHERE finished_ms < ${before} LIMIT ${PRUNE_BATCH})`.execute(this.#db);
      const batch = Number(result.numAffectedRows ?? 0);
      pruned += batch;
      if (batch === 0) return pruned;
    }
  }
}
