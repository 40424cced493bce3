/**
 * The boundary between the scheduler (which decides what is due) and whatever executes runs
 * (DESIGN §10): here an in-process queue with a concurrency cap; later a PostgreSQL job queue that
 * runner agents per location pull from. The scheduler only ever calls `submit`.
 */
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

/**
 * Runs jobs in this process, at most `concurrency` at once, the rest waiting in submission order. A
 * slow or hanging target occupies one slot of the cap, never the scheduler's clock, and the runner
 * bounds each run by the check's own timeout.
 */
export class InProcessRunQueue implements RunQueue {
  readonly #waiting: RunJob[] = [];
  #running = 0;
  #idle: Array<() => void> = [];

  constructor(
    private readonly execute: (job: RunJob) => Promise<void>,
    private readonly concurrency: number,
    private readonly onError: (error: unknown, job: RunJob) => void,
  ) {}

  get pending(): number {
    return this.#waiting.length + this.#running;
  }

  submit(job: RunJob): void {
    this.#waiting.push(job);
    this.#pump();
  }

  drain(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #pump(): void {
    while (this.#running < this.concurrency && this.#waiting.length > 0) {
      const job = this.#waiting.shift()!;
      this.#running++;
      this.execute(job)
        .catch((error: unknown) => this.onError(error, job))
        .finally(() => {
          this.#running--;
          this.#pump();
          if (this.pending === 0) for (const resolve of this.#idle.splice(0)) resolve();
        });
    }
  }
}
