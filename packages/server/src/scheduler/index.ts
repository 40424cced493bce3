/**
 * Scheduled monitoring for a running service: scheduler → in-process run queue → `@vigil/runner`
 * → results on the read side. `vigil server` turns it on; the embedded service of plan/apply and
 * the tests that only exercise the API leave it off.
 */
import { createRunner, DEFAULT_SERVICE_DENY_NETWORKS, type Runner } from '@vigil/runner';
import { Alerting, type AlertingOptions } from '../alerting/index.js';
import { HeartbeatWatch } from '../heartbeats/watch.js';
import type { Store } from '../store/index.js';
import { executeRuns } from './execute.js';
import { InProcessRunQueue } from './queue.js';
import { Scheduler } from './scheduler.js';

export { dueSlots, nextDueMs, DEFAULT_LOCATION, type Slot, type SchedulableCheck } from './slots.js';
export { Scheduler, schedulable } from './scheduler.js';
export type { RunJob, RunQueue } from './queue.js';

export interface SchedulingOptions {
  /** Runs in flight at once (default 50). */
  concurrency?: number;
  /** Default: a runner of its own, closed on stop. */
  runner?: Runner;
  /** CIDRs the runner of its own never connects to (default: link-local and cloud metadata, DEFAULT_SERVICE_DENY_NETWORKS). */
  denyNetworks?: readonly string[];
  now?: () => number;
  tickMs?: number;
  refreshMs?: number;
  /** Days check results are kept (default 30). */
  retentionDays?: number;
  /** Alert delivery (outbox worker) options; alerting runs with the scheduler. */
  alerting?: AlertingOptions;
  /** Where a run that failed inside the service (not a failing check) is reported; default stderr. */
  log?: (line: string) => void;
}

export interface Scheduling {
  readonly scheduler: Scheduler;
  /** Stops scheduling, waits for runs in flight and closes the runner's script pool. */
  stop(): Promise<void>;
  /** Runs that end from now on are dropped: the database is about to close (a stop that timed out). */
  abandon(): void;
}

export function startScheduling(store: Store, options: SchedulingOptions = {}): Scheduling {
  const runner = options.runner ?? createRunner({ denyNetworks: options.denyNetworks ?? DEFAULT_SERVICE_DENY_NETWORKS });
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let scheduler: Scheduler | undefined;
  const alerting = new Alerting(store, { denyNetworks: options.denyNetworks, ...options.alerting });
  alerting.start();
  let abandoned = false;
  const execute = executeRuns({ store, runner, alerting, onStored: (job) => scheduler?.finished(job.slot), abandoned: () => abandoned });
  const queue = new InProcessRunQueue(execute, options.concurrency ?? 50, (error, job) =>
    log(`vigil server: the run of check ${job.slot.checkId} at ${new Date(job.slot.dueMs).toISOString()} (${job.slot.location}) failed inside the service: ${String((error as Error)?.stack ?? error)}`),
  );
  const heartbeats = new HeartbeatWatch({
    store,
    alerting,
    ...(options.refreshMs !== undefined ? { refreshMs: options.refreshMs } : {}),
    ...(options.retentionDays !== undefined ? { retentionDays: options.retentionDays } : {}),
  });
  scheduler = new Scheduler({
    store,
    queue,
    onTick: (nowMs) => {
      try {
        heartbeats.tick(nowMs);
      } catch (error) {
        log(`vigil server: heartbeat deadlines failed inside the service: ${String((error as Error)?.stack ?? error)}`);
      }
    },
    ...(options.now ? { now: options.now } : {}),
    ...(options.tickMs !== undefined ? { tickMs: options.tickMs } : {}),
    ...(options.refreshMs !== undefined ? { refreshMs: options.refreshMs } : {}),
    ...(options.retentionDays !== undefined ? { retentionDays: options.retentionDays } : {}),
  });
  scheduler.start();
  const started = scheduler;
  return {
    scheduler: started,
    abandon() {
      abandoned = true;
    },
    async stop() {
      await started.stop();
      await alerting.stop();
      if (!options.runner) await runner.close();
    },
  };
}
