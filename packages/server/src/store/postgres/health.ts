/**
 * The PostgreSQL engine's health for `/healthz`: a `SELECT 1` through the pool, given a short time to
 * answer and remembered for a moment, so probes every second from several load balancers cost the
 * database one statement a second at most. Callers that ask while a check is running share it.
 *
 * The check goes through the pool, as every query does: a pool whose connections are all busy for
 * longer than the timeout reports unhealthy, which is what a request would meet too.
 */
import { sql, type Kysely } from 'kysely';
import type { EngineHealth } from '../engine-health.js';
import { reasonOf } from './connection-errors.js';

export interface HealthOptions {
  /** How long a result is reused (default 1 s). */
  readonly cacheMs?: number;
  /** How long the `SELECT 1` may take before the database counts as not answering (default 2 s). */
  readonly timeoutMs?: number;
  /** The clock, for tests. */
  readonly now?: () => number;
}

export class PostgresHealth {
  readonly #db: Kysely<any>;
  readonly #target: string;
  readonly #cacheMs: number;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  #last: { at: number; health: EngineHealth } | undefined;
  #running: Promise<EngineHealth> | undefined;
  /** When the current run of failures began. */
  #failingSince: number | undefined;

  /** `target`: `host:port/database`, as the error names it. */
  constructor(db: Kysely<any>, target: string, options: HealthOptions = {}) {
    this.#db = db;
    this.#target = target;
    this.#cacheMs = options.cacheMs ?? 1000;
    this.#timeoutMs = options.timeoutMs ?? 2000;
    this.#now = options.now ?? Date.now;
  }

  check(): Promise<EngineHealth> {
    if (this.#last && this.#now() - this.#last.at < this.#cacheMs) return Promise.resolve(this.#last.health);
    this.#running ??= this.#probe().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #probe(): Promise<EngineHealth> {
    const startedAt = this.#now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`PostgreSQL at ${this.#target} did not answer SELECT 1 within ${this.#timeoutMs} ms`)), this.#timeoutMs);
    });
    let health: EngineHealth;
    try {
      await Promise.race([sql`SELECT 1`.execute(this.#db), timeout]);
      this.#failingSince = undefined;
      health = { ok: true };
    } catch (error) {
      this.#failingSince ??= startedAt;
      health = { ok: false, error: reasonOf(error), since: new Date(this.#failingSince).toISOString() };
    } finally {
      clearTimeout(timer);
    }
    this.#last = { at: this.#now(), health };
    return health;
  }
}
