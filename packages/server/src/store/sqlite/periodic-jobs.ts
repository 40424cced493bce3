/**
 * Periodic jobs in SQLite (`periodic_jobs`, step 33): a row per job with when it last ran. A turn is
 * one upsert that moves `last_run_ms` only when the period has passed, so of callers asking at once
 * the first moves it and the rest find the period not over. The scheduler's pruning of old results,
 * rollups and claims takes its turn here (`prune-results`).
 */
import type { Statement } from 'better-sqlite3';
import type { PeriodicJobs } from '../ports.js';
import { checkJobName, checkJobRun } from '../port-rules.js';
import { committed, type BatchedSqlite } from './batched.js';

export class SqlitePeriodicJobs implements PeriodicJobs {
  readonly #store: BatchedSqlite;
  readonly #take: Statement;
  readonly #last: Statement;

  constructor(store: BatchedSqlite) {
    this.#store = store;
    this.#take = store.db.prepare(
      `INSERT INTO periodic_jobs (name, last_run_ms, last_owner) VALUES (@jobName, @nowMs, @owner)
       ON CONFLICT (name) DO UPDATE SET last_run_ms = excluded.last_run_ms, last_owner = excluded.last_owner
       WHERE last_run_ms <= excluded.last_run_ms - @everyMs`,
    );
    this.#last = store.db.prepare('SELECT last_run_ms AS atMs, last_owner AS owner FROM periodic_jobs WHERE name = ?');
  }

  async tryRun(jobName: string, nowMs: number, everyMs: number, owner: string): Promise<boolean> {
    checkJobRun(jobName, nowMs, everyMs, owner);
    return committed(this.#store, () => this.#take.run({ jobName, nowMs, everyMs, owner }).changes > 0);
  }

  async lastRun(jobName: string): Promise<{ atMs: number; owner: string } | undefined> {
    checkJobName(jobName);
    return this.#last.get(jobName) as { atMs: number; owner: string } | undefined;
  }
}
