/**
 * Pruning of heartbeat events (pings, once they became results), kept for the scheduler's retention as
 * check results are. Every heartbeat watch on a database asks for the turn once per period, and only
 * the one the PeriodicJobs port gives the period to deletes, as the scheduler's pruning of results
 * does: processes sharing the database would otherwise each run the same deletes every period.
 */
import { PeriodicTurn } from '../scheduler/periodic-turn.js';
import type { HeartbeatPings, PeriodicJobs } from '../store/ports.js';

/** The job's name in the PeriodicJobs port. */
export const PRUNE_HEARTBEAT_EVENTS_JOB = 'prune-heartbeat-events';
/** How often old events are pruned. */
export const PRUNE_EVERY_MS = 60_000;
/** Events deleted per call of the port (one statement), so a prune never holds the database for long. */
export const PRUNE_BATCH = 500;

export interface HeartbeatEventPruningOptions {
  /** The port whose `prune` deletes, `PRUNE_BATCH` events a call. */
  readonly pings: Pick<HeartbeatPings, 'prune'>;
  readonly periodicJobs: PeriodicJobs;
  /** Who this process asks for the turn as (its replica id). */
  readonly owner: string;
  readonly retentionMs: number;
}

export class HeartbeatEventPruning {
  readonly #options: HeartbeatEventPruningOptions;
  readonly #turn: PeriodicTurn;

  constructor(options: HeartbeatEventPruningOptions) {
    this.#options = options;
    this.#turn = new PeriodicTurn({ periodicJobs: options.periodicJobs, job: PRUNE_HEARTBEAT_EVENTS_JOB, everyMs: PRUNE_EVERY_MS, owner: options.owner });
  }

  /**
   * Asks for this period's turn, at most once per period, and prunes when it is this process's;
   * resolves to how many events went (0 when it was not its turn or not yet time to ask).
   */
  async takeTurn(nowMs: number): Promise<number> {
    return (await this.#turn.take(nowMs, () => this.prune(nowMs))) ?? 0;
  }

  /**
   * Deletes events older than the retention, a batch per statement; never one not yet processed, so a
   * ping always becomes its result first. Returns how many went.
   */
  async prune(nowMs: number): Promise<number> {
    const before = nowMs - this.#options.retentionMs;
    let removed = 0;
    for (;;) {
      const batch = await this.#options.pings.prune(before, PRUNE_BATCH);
      removed += batch;
      if (batch < PRUNE_BATCH) return removed;
    }
  }
}
