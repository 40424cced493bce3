/**
 * The service's run queue: one fair queue (queue.ts) per lane of check kinds (concurrency.ts), each
 * with its own limit on runs in flight and its own bound on runs waiting. Lanes, not one queue with
 * a count per kind: inside an account runs start first come first served, so a browser run waiting
 * for the browser cap at the front of an account's line would hold that account's API runs behind
 * it, however many network slots were free.
 */
import { AdaptiveLimit, FixedLimit, runLaneOf, type RunLane, type RunLimit } from './concurrency.js';
import { InProcessRunQueue, type ExecuteRun, type RunJob, type RunQueue, type StopReport } from './queue.js';

export interface LanedRunQueueOptions {
  /** Network runs in flight at most; the adaptive limit grows up to it. */
  maxRunsInFlight: number;
  /** Instead of the adaptive limit, exactly this many network runs in flight (embedding, tests). */
  fixedRunsInFlight?: number;
  /** Sandboxed runs (browser, multi-step, Playwright) in flight at most. */
  sandboxedRuns: number;
  /** Process runs (ICMP, traceroute) in flight at most. */
  processRuns: number;
  /** The network lane's reserve for accounts holding few runs (queue.ts); default a tenth of its limit. */
  reserve?: number;
  onError: (error: unknown, job: RunJob) => void;
  /** Told of each slot dropped from a full line (missed), with its lane. */
  onDropped?: (job: RunJob, lane: RunLane) => void;
  now?: () => number;
}

/**
 * Runs waiting at most in a lane whose limit is `max`: four times the limit, at least 100. The bound
 * is about lateness, not memory (a waiting run is a few hundred bytes; its check's document is the
 * scheduler's): with the lane at its limit, the last of them starts about four run durations after
 * its slot, and a run later than that reports on a moment long past. The floor of 100 lets a lane
 * with a cap of two take a step's worth of browser checks falling due together without dropping any.
 */
export function waitingBound(max: number): number {
  return Math.max(100, 4 * max);
}

export class LanedRunQueue implements RunQueue {
  readonly lanes: Readonly<Record<RunLane, InProcessRunQueue>>;

  constructor(execute: ExecuteRun, options: LanedRunQueueOptions) {
    const lane = (name: RunLane, limit: RunLimit, reserve?: number) =>
      new InProcessRunQueue(execute, {
        concurrency: limit,
        maxWaiting: waitingBound(limit.max),
        ...(reserve === undefined ? {} : { reserve }),
        onError: options.onError,
        onDropped: (job) => options.onDropped?.(job, name),
        ...(options.now ? { now: options.now } : {}),
      });
    const network = options.fixedRunsInFlight === undefined ? new AdaptiveLimit({ max: options.maxRunsInFlight }) : new FixedLimit(options.fixedRunsInFlight);
    this.lanes = {
      network: lane('network', network, options.reserve),
      sandboxed: lane('sandboxed', new FixedLimit(options.sandboxedRuns)),
      process: lane('process', new FixedLimit(options.processRuns)),
    };
  }

  submit(job: RunJob): void {
    this.lanes[runLaneOf(job.check.checkType)].submit(job);
  }

  get pending(): number {
    return this.#sum((lane) => lane.pending);
  }

  get running(): number {
    return this.#sum((lane) => lane.running);
  }

  get waiting(): number {
    return this.#sum((lane) => lane.waiting);
  }

  get superseded(): number {
    return this.#sum((lane) => lane.superseded);
  }

  get dropped(): number {
    return this.#sum((lane) => lane.dropped);
  }

  async drain(): Promise<void> {
    await Promise.all(Object.values(this.lanes).map((lane) => lane.drain()));
  }

  /** Stops every lane at once (queue.ts `stop`); what they left behind, together. */
  async stop(drainMs: number, graceMs?: number): Promise<StopReport> {
    const reports = await Promise.all(Object.values(this.lanes).map((lane) => lane.stop(drainMs, graceMs)));
    return { dropped: reports.reduce((sum, report) => sum + report.dropped, 0), aborted: reports.reduce((sum, report) => sum + report.aborted, 0) };
  }

  #sum(pick: (lane: InProcessRunQueue) => number): number {
    let total = 0;
    for (const lane of Object.values(this.lanes)) total += pick(lane);
    return total;
  }
}
