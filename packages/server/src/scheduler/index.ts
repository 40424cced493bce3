/**
 * Scheduled monitoring for a running service: scheduler → in-process run queue → `@vigil/runner`
 * → results on the read side. `vigil server` turns it on; the embedded service of plan/apply and
 * the tests that only exercise the API leave it off.
 */
import { createRunner, DEFAULT_SERVICE_DENY_NETWORKS, type Runner, type RunResult } from '@vigil/runner';
import { Alerting, type AlertingOptions } from '../alerting/index.js';
import { HeartbeatWatch } from '../heartbeats/watch.js';
import type { ServiceMetrics } from '../metrics/index.js';
import type { Repositories } from '../repositories.js';
import type { AgentHub } from '../agents/hub.js';
import { LocationRoutedQueue, type LocalLocations } from '../agents/routing.js';
import { defaultMaxRunsInFlight, defaultProcessRuns, defaultSandboxedRuns, type RunLane } from './concurrency.js';
import { executeRuns, reportRecorder } from './execute.js';
import { LanedRunQueue } from './lanes.js';
import type { ExecuteRun, RunJob, RunQueue } from './queue.js';
import { Scheduler } from './scheduler.js';

export { dueSlots, nextDueMs, DEFAULT_LOCATION, type Slot, type SchedulableCheck } from './slots.js';
export { Scheduler, schedulable } from './scheduler.js';
export type { RunJob, RunQueue } from './queue.js';
export { defaultMaxRunsInFlight } from './concurrency.js';

/** How long a stop waits for runs and deliveries in flight when not told (the HTTP server's drain). */
export const DEFAULT_DRAIN_MS = 5000;
/** How long a stop waits for what it aborted at the deadline to end before giving up on it. */
const ABORT_GRACE_MS = 1000;

export interface SchedulingOptions {
  /**
   * Network runs (API, TCP, DNS, …) in flight at most, all accounts together: the limit follows the
   * rate slots fall due times how long runs take, between 50 and this (concurrency.ts; default
   * `defaultMaxRunsInFlight()`, from the open-file limit and memory).
   */
  maxRunsInFlight?: number;
  /** Exactly this many network runs in flight instead of a limit that follows the load (tests, embedding). */
  concurrency?: number;
  /** Browser, multi-step and Playwright runs in flight at most (default one per core, at least two). */
  sandboxedRuns?: number;
  /** ICMP and traceroute runs in flight at most (default eight per core). */
  processRuns?: number;
  /**
   * Free run slots kept for accounts holding fewer runs than this (default a tenth of the network
   * limit of the moment, rounded down: 5 of 50), so an account filling the rest cannot make
   * another's next run wait (queue.ts).
   */
  reservedRuns?: number;
  /** Default: a runner of its own, closed on stop. */
  runner?: Runner;
  /** CIDRs the runner of its own never connects to (default: link-local and cloud metadata, DEFAULT_SERVICE_DENY_NETWORKS). */
  denyNetworks?: readonly string[];
  now?: () => number;
  tickMs?: number;
  refreshMs?: number;
  /** Days check results are kept (default 30). */
  retentionDays?: number;
  /** Days daily rollups of results are kept (default 400; hourly ones: Scheduler's `rollupRetentionDays`). */
  rollupRetentionDays?: number;
  /** Alert delivery (outbox worker) options; alerting runs with the scheduler. */
  alerting?: AlertingOptions;
  /** Where a run that failed inside the service (not a failing check) is reported; default stderr. */
  log?: (line: string) => void;
  /** Told each stored FINAL result of a check that failed (for the service's log). */
  onCheckFailed?: (event: CheckFailedEvent) => void;
  /** Told when runs start and are stored, how deliveries end, and given the queue to read (`GET /metrics`). */
  metrics?: ServiceMetrics;
  /**
   * Runner agents: runs of locations this process does not run itself are queued for the agents
   * of their location (agents/hub.ts) and recorded when an agent reports them. Without it, every
   * location runs in this process.
   */
  agents?: { hub: AgentHub; localLocations: LocalLocations };
}

/** Lines a full lane's drops are told in; at most one a minute per lane, so an overloaded service does not also flood its log. */
const DROP_LOG_EVERY_MS = 60_000;
const LANE_RUNS: Record<RunLane, string> = {
  network: 'network runs (raise --max-runs-in-flight if the machine has room)',
  sandboxed: 'browser and multi-step runs (one per core)',
  process: 'ICMP and traceroute runs',
};

function dropReporter(log: (line: string) => void, now: () => number): (lane: RunLane) => void {
  const counts = new Map<RunLane, { dropped: number; loggedAt: number }>();
  return (lane) => {
    const count = counts.get(lane) ?? { dropped: 0, loggedAt: Number.NEGATIVE_INFINITY };
    counts.set(lane, count);
    count.dropped++;
    if (now() - count.loggedAt < DROP_LOG_EVERY_MS) return;
    const since = count.loggedAt === Number.NEGATIVE_INFINITY ? '' : ' since the last such line';
    log(`vigil server: ${count.dropped} due run(s) dropped${since} because the line of ${LANE_RUNS[lane]} was full; their slots count as missed`);
    count.dropped = 0;
    count.loggedAt = now();
  };
}

export interface CheckFailedEvent {
  accountId: string;
  checkId: string;
  checkName: string;
  location: string;
  result: RunResult;
}

export interface Scheduling {
  readonly scheduler: Scheduler;
  /**
   * Claims no more slots and starts no more runs or deliveries; waits up to `drainMs` for those in
   * flight, then aborts them (their results are dropped, their slots count as missed; their
   * notifications stay queued for the next start). Resolves when nothing of the scheduling touches
   * the database any more: the caller may close it. Never rejects.
   */
  stop(drainMs?: number): Promise<void>;
}

export function startScheduling(repositories: Repositories, options: SchedulingOptions = {}): Scheduling {
  const runner = options.runner ?? createRunner({ denyNetworks: options.denyNetworks ?? DEFAULT_SERVICE_DENY_NETWORKS });
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const { metrics } = options;
  const now = options.now ?? Date.now;
  const onDelivery = options.alerting?.onDelivery;
  const alerting = new Alerting(repositories, {
    denyNetworks: options.denyNetworks,
    log,
    ...options.alerting,
    onDelivery: (event) => {
      metrics?.delivered(event);
      onDelivery?.(event);
    },
  });
  alerting.start();
  const recording = {
    repositories,
    alerting,
    now,
    onStored: (job: RunJob, final: RunResult) => {
      metrics?.runStored({
        accountId: job.slot.accountId,
        checkId: job.slot.checkId,
        location: job.slot.location,
        hasFailures: final.hasFailures,
        hasErrors: final.hasErrors,
        isDegraded: final.isDegraded === true,
        responseTime: typeof final.responseTime === 'number' ? final.responseTime : null,
      });
      if (!final.hasFailures && !final.hasErrors) return;
      const { accountId, checkId, location } = job.slot;
      try {
        options.onCheckFailed?.({ accountId, checkId, checkName: String(job.check.name ?? ''), location, result: final });
      } catch (error) {
        log(`vigil server: logging a failed run failed: ${String((error as Error)?.stack ?? error)}`);
      }
    },
  };
  const executeStored = executeRuns({ ...recording, runner });
  const execute: ExecuteRun = (job, signal) => {
    metrics?.runStarted(job.slot.dueMs, now());
    return executeStored(job, signal);
  };
  const droppedLog = dropReporter(log, now);
  const queue = new LanedRunQueue(execute, {
    maxRunsInFlight: options.maxRunsInFlight ?? defaultMaxRunsInFlight(),
    ...(options.concurrency !== undefined ? { fixedRunsInFlight: options.concurrency } : {}),
    sandboxedRuns: options.sandboxedRuns ?? defaultSandboxedRuns(),
    processRuns: options.processRuns ?? defaultProcessRuns(),
    ...(options.reservedRuns !== undefined ? { reserve: options.reservedRuns } : {}),
    onError: (error, job) =>
      log(`vigil server: the run of check ${job.slot.checkId} at ${new Date(job.slot.dueMs).toISOString()} (${job.slot.location}) failed inside the service: ${String((error as Error)?.stack ?? error)}`),
    onDropped: (_job, lane) => {
      metrics?.slotMissed('queue-full');
      droppedLog(lane);
    },
  });
  const agents = options.agents;
  agents?.hub.start(reportRecorder(recording));
  const routed = agents ? new LocationRoutedQueue(queue, agents.hub, agents.localLocations) : undefined;
  // Runs leased to agents count in the same gauges as runs executing here.
  metrics?.watchQueue(routed ?? queue);
  const handOff: RunQueue = routed ?? queue;
  const heartbeats = new HeartbeatWatch({
    repositories,
    alerting,
    ...(options.refreshMs !== undefined ? { refreshMs: options.refreshMs } : {}),
    ...(options.retentionDays !== undefined ? { retentionDays: options.retentionDays } : {}),
  });
  // A heartbeat tick waits on the database's claims: the next one is skipped while it goes on, and a stop waits for it.
  let heartbeatTick: Promise<void> | undefined;
  const scheduler = new Scheduler({
    repositories,
    queue: handOff,
    log,
    onTick: (nowMs) => {
      heartbeatTick ??= heartbeats
        .tick(nowMs)
        .then(
          () => undefined,
          (error: unknown) => log(`vigil server: the heartbeat watch failed inside the service: ${String((error as Error)?.stack ?? error)}`),
        )
        .finally(() => (heartbeatTick = undefined));
    },
    ...(options.now ? { now: options.now } : {}),
    ...(options.tickMs !== undefined ? { tickMs: options.tickMs } : {}),
    ...(options.refreshMs !== undefined ? { refreshMs: options.refreshMs } : {}),
    ...(options.retentionDays !== undefined ? { retentionDays: options.retentionDays } : {}),
    ...(options.rollupRetentionDays !== undefined ? { rollupRetentionDays: options.rollupRetentionDays } : {}),
  });
  scheduler.start();
  const started = scheduler;
  let stopping: Promise<void> | undefined;
  const stop = async (drainMs: number) => {
    const pruning = started.stop();
    agents?.hub.stop();
    // Deliveries stop with the runs, not after them: the outbox's timer would otherwise still poll
    // a database the caller closes when the runs' drain gives up.
    const [runs] = await Promise.all([queue.stop(drainMs, ABORT_GRACE_MS), alerting.stop(drainMs), heartbeatTick, pruning]);
    if (runs.aborted > 0) log(`vigil server: stopped ${runs.aborted} run(s) still going after ${drainMs} ms; their slots count as missed`);
    if (!options.runner) await Promise.race([runner.close(), new Promise((resolve) => setTimeout(resolve, ABORT_GRACE_MS).unref())]);
  };
  return {
    scheduler: started,
    stop(drainMs = DEFAULT_DRAIN_MS) {
      stopping ??= stop(drainMs).catch((error: unknown) => log(`vigil server: stopping the scheduler failed: ${String((error as Error)?.stack ?? error)}`));
      return stopping;
    },
  };
}
