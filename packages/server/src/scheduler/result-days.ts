/**
 * Making raw results' days ready ahead of time: on PostgreSQL each UTC day of results is a partition,
 * and an append to a day without one makes it at that append's cost (under a lock every replica's
 * first append of the day would queue on). Every scheduler asks for the turn once per period, and the
 * replica the PeriodicJobs port gives the period to prepares today and the next days, as pruning takes
 * its turn. On SQLite `prepareDays` has nothing to do; the turn is still asked for, once an hour.
 */
import type { CheckResults, PeriodicJobs } from '../store/ports.js';
import { DAY_MS, dayOf } from '../store/port-rules.js';
import { PeriodicTurn } from './periodic-turn.js';

/** The job's name in the PeriodicJobs port. */
export const PREPARE_RESULT_DAYS_JOB = 'prepare-result-days';
/** How often the days are prepared: often enough that a missed turn (a replica gone) costs nothing. */
export const PREPARE_EVERY_MS = 3_600_000;
/** Days prepared after today, so a day is ready long before it starts even if several turns are missed. */
export const DAYS_AHEAD = 3;

export interface ResultDayPreparationOptions {
  readonly checkResults: Pick<CheckResults, 'prepareDays'>;
  readonly periodicJobs: PeriodicJobs;
  /** Who this process asks for the turn as (its replica id). */
  readonly owner: string;
}

export class ResultDayPreparation {
  readonly #checkResults: Pick<CheckResults, 'prepareDays'>;
  readonly #turn: PeriodicTurn;

  constructor(options: ResultDayPreparationOptions) {
    this.#checkResults = options.checkResults;
    this.#turn = new PeriodicTurn({ periodicJobs: options.periodicJobs, job: PREPARE_RESULT_DAYS_JOB, everyMs: PREPARE_EVERY_MS, owner: options.owner });
  }

  /** Whether a period has passed since this process last asked for the turn. */
  due(nowMs: number): boolean {
    return this.#turn.due(nowMs);
  }

  /**
   * Asks for this period's turn, at most once per period, and prepares today and the next
   * `DAYS_AHEAD` days when it is this process's; resolves to whether it prepared them.
   */
  async takeTurn(nowMs: number): Promise<boolean> {
    const prepared = await this.#turn.take(nowMs, async () => {
      await this.#checkResults.prepareDays(dayOf(nowMs), dayOf(nowMs) + DAYS_AHEAD * DAY_MS);
      return true;
    });
    return prepared === true;
  }
}
