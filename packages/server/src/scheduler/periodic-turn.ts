/**
 * A periodic job that every process on a database runs a timer for, but only one of them runs each
 * period: each asks the PeriodicJobs port for the period's turn at most once per period, and the one
 * it gives the turn to does the work. Processes sharing the database would otherwise each run the
 * same deletes (or preparations) every period. The scheduler's pruning, the preparation of results'
 * days and the pruning of heartbeat events each take their turn through one of these.
 */
import type { PeriodicJobs } from '../store/ports.js';

export interface PeriodicTurnOptions {
  readonly periodicJobs: PeriodicJobs;
  /** The job's name in the PeriodicJobs port (its turns are recorded under it). */
  readonly job: string;
  readonly everyMs: number;
  /** Who this process asks for the turn as (its replica id). */
  readonly owner: string;
}

export class PeriodicTurn {
  readonly #options: PeriodicTurnOptions;
  /** When this process last asked for the turn (whoever got it, the next ask is a period on). */
  #askedAt = Number.NEGATIVE_INFINITY;

  constructor(options: PeriodicTurnOptions) {
    this.#options = options;
  }

  /** Whether a period has passed since this process last asked, so `take` would ask again. */
  due(nowMs: number): boolean {
    return nowMs - this.#askedAt >= this.#options.everyMs;
  }

  /**
   * Asks for the turn of the period starting at `nowMs`, unless this process asked less than a period
   * ago, and runs `work` when the turn is this process's; resolves to what `work` gave, or undefined
   * when it did not run.
   */
  async take<T>(nowMs: number, work: () => T | Promise<T>): Promise<T | undefined> {
    if (!this.due(nowMs)) return undefined;
    this.#askedAt = nowMs;
    const { periodicJobs, job, everyMs, owner } = this.#options;
    if (!(await periodicJobs.tryRun(job, nowMs, everyMs, owner))) return undefined;
    return work();
  }
}
