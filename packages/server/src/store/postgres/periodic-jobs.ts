/**
 * Periodic jobs in PostgreSQL: a row per job with when it last ran, and a turn is one
 * `INSERT … ON CONFLICT DO UPDATE … WHERE last_run_ms <= now - every RETURNING`. Of replicas asking at
 * once, the second waits for the first's row lock, re-reads the row it moved, finds the period not
 * over and gets no row back. Same statement as store/sqlite/periodic-jobs.ts.
 *
 * Not `pg_try_advisory_xact_lock`: a lock excludes only callers at the same instant. A replica asking
 * a moment after the first committed would find the lock free and run the job again, so the period
 * has to be remembered in a row anyway; the row alone does both, survives restarts (a replica restarted
 * mid-period does not run the job again), records who ran it, and needs no session held by a pooler.
 */
import { sql, type Kysely } from 'kysely';
import type { PeriodicJobs } from '../ports.js';
import { checkJobName, checkJobRun } from '../port-rules.js';
import type { PostgresSchema } from './database.js';

export class PostgresPeriodicJobs implements PeriodicJobs {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async tryRun(jobName: string, nowMs: number, everyMs: number, owner: string): Promise<boolean> {
    checkJobRun(jobName, nowMs, everyMs, owner);
    const { rows } = await sql<{ name: string }>`
      INSERT INTO periodic_jobs AS j (name, last_run_ms, last_owner) VALUES (${jobName}, ${nowMs}, ${owner})
      ON CONFLICT (name) DO UPDATE SET last_run_ms = excluded.last_run_ms, last_owner = excluded.last_owner
      WHERE j.last_run_ms <= excluded.last_run_ms - ${everyMs}::bigint
      RETURNING name`.execute(this.#db);
    return rows.length > 0;
  }

  async lastRun(jobName: string): Promise<{ atMs: number; owner: string } | undefined> {
    checkJobName(jobName);
    const row = await this.#db.selectFrom('periodic_jobs').select(['last_run_ms', 'last_owner']).where('name', '=', jobName).executeTakeFirst();
    return row && { atMs: row.last_run_ms, owner: row.last_owner };
  }
}
