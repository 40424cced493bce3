/**
 * What the in-process queue does with a claimed slot: run the check with `@vigil/runner` (which keeps
 * user scripts and Playwright specs in child processes with nothing of this process's environment),
 * then store every try (ATTEMPT results, then the FINAL one) through the read side, which folds
 * their errors into error groups and serves them as check results and analytics.
 *
 * The writes of a run go through the store's group commit (`writeBatched`): every run that ends in
 * the same event-loop turn shares one commit with the API's writes of that turn. At 167 runs a
 * second, a commit of their own each (results, status, claim, alert state: four per run) was most
 * of the service's time and held the event loop in bursts that delayed the next runs' starts.
 */
import { RUN_WIRE_VERSION, type RunJob as WireRunJob } from '@vigil/schema';
import { runJob, type Runner, type RunnerReport, type RunResult } from '@vigil/runner';
import { sslDaysRemaining, type Alerting } from '../alerting/index.js';
import { openReadSide } from '../readside/context.js';
import { StatusStore } from '../readside/statuses.js';
import type { Repositories } from '../repositories.js';
import type { Store } from '../store/index.js';
import type { ExecuteRun, RunJob } from './queue.js';
import { schedulable } from './scheduler.js';

export interface ExecuteOptions {
  /** Where results and statuses are stored. */
  repositories: Pick<Repositories, 'store' | 'readSide' | 'statuses'>;
  runner: Runner;
  /** Told every FINAL result after it is stored (alert state and notifications). */
  alerting?: Pick<Alerting, 'onFinalResult'>;
  /** Called when a run's results are stored (the scheduler marks the slot finished). */
  onStored?: (job: RunJob, final: RunResult) => void;
}

/**
 * `signal` aborts when a stopping service gives up waiting for the run: the runner ends it promptly
 * and what it returns is dropped (its slot counts as missed), because the database it would be
 * written to is about to close.
 */
export function executeRuns(options: ExecuteOptions): ExecuteRun {
  const record = reportRecorder(options);
  return async (job, signal) => {
    const report = await runJob(options.runner, wireJobOf(job), signal);
    if (signal.aborted) return;
    await record(job, report);
  };
}

export interface RecordOptions {
  /**
   * Runs first inside the transaction that stores the results; a throw refuses the report and
   * stores nothing (an agent's lease that is no longer its own).
   */
  guard?: () => void;
  /**
   * False for a run no runner executed: it is stored and shown, and moves no alert state (a
   * location's outage alerts through the other locations' results, not through its own silence).
   */
  alert?: boolean;
}

/**
 * COMPATIBILITY for the agents' tests (agents/ is being changed by other work) until they pass
 * `service.repositories`: a store alone gets a read side and statuses of its own.
 */
type StoreOnlyRecordOptions = Omit<ExecuteOptions, 'runner' | 'repositories'> & { store: Store };

/** Records a run's report for its claimed slot; the one way results are stored, wherever the run happened. */
export type RecordReport = (job: RunJob, report: RunnerReport, recordOptions?: RecordOptions) => Promise<void>;

/**
 * Stores a report's tries, updates the check's status, marks the slot finished and moves the alert
 * state: the same for a run in this process and a run an agent reported.
 */
export function reportRecorder(options: Omit<ExecuteOptions, 'runner'> | StoreOnlyRecordOptions): RecordReport {
  const repositories = 'repositories' in options ? options.repositories : { store: options.store, readSide: openReadSide(options.store.db), statuses: new StatusStore(options.store) };
  const { store, statuses } = repositories;
  const { results } = repositories.readSide;
  return async (job, report, recordOptions = {}) => {
    const { attempts } = report;
    const checkRunId = report.final.checkRunId;
    const certificateExpiresAt = report.final.certificateExpiresAt ?? null;
    // The store gives the tries the ids it derives (ResultsStore.recordRun); alerts name the FINAL result by the stored one.
    let final = report.final;
    const stored = store.writeBatched(() => {
      recordOptions.guard?.();
      // The certificate's expiry feeds statuses and SSL alerts; it is not part of a stored result.
      const tries = [...attempts, report.final].map(({ certificateExpiresAt: _expiry, ...result }) => result);
      final = { ...report.final, id: results.recordRun(job.slot.accountId, tries).at(-1)!.id };
      statuses.record(job.slot.accountId, {
        name: String(job.check.name ?? final.name),
        checkId: job.slot.checkId,
        hasFailures: final.hasFailures,
        hasErrors: final.hasErrors,
        isDegraded: final.isDegraded ?? null,
        responseTime: typeof final.responseTime === 'number' ? final.responseTime : null,
        runLocation: job.slot.location,
        checkRunId,
        stoppedAt: final.stoppedAt ?? null,
        ...(certificateExpiresAt ? { sslDaysRemaining: sslDaysRemaining(certificateExpiresAt, Date.parse(final.stoppedAt ?? '') || Date.now()) } : {}),
      });
      options.onStored?.(job, final);
    });
    const schedule = schedulable(job.slot.accountId, job.slot.checkId, job.check, job.group);
    const parallel = schedule?.runParallel ? { dueMs: job.slot.dueMs, locations: Math.max(1, schedule.locations.length) } : undefined;
    const facts = {
      id: final.id,
      hasFailures: final.hasFailures,
      hasErrors: final.hasErrors,
      isDegraded: final.isDegraded ?? null,
      responseTime: typeof final.responseTime === 'number' ? final.responseTime : null,
      runLocation: job.slot.location,
      startedAt: final.startedAt ?? null,
      stoppedAt: final.stoppedAt ?? null,
      error: final.error,
      statusCode: final.apiCheckResult?.response?.status ?? null,
      statusText: final.apiCheckResult?.response?.statusText ?? null,
      certificateExpiresAt,
      sslCheckDomain: certificateExpiresAt ? hostOf(final.apiCheckResult?.request?.url) : null,
    };
    // After the results, in transactions of its own (alerting moves the state through the ports;
    // one that starts in the results' turn joins their group commit): an alerting failure is
    // reported, and neither undoes the stored run nor re-runs the slot.
    const alerting = recordOptions.alert === false ? undefined : options.alerting;
    const alerted = alerting?.onFinalResult(job.slot.accountId, job.slot.checkId, facts, parallel).then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    await stored.committed;
    const alertingFailure = await alerted;
    if (alertingFailure) throw alertingFailure.error;
  };
}

function hostOf(url: string | undefined): string | null {
  try {
    return url ? new URL(url).hostname : null;
  } catch {
    return null;
  }
}

/** The claimed slot as the wire job every runner executes (in this process or an agent). */
export function wireJobOf(job: RunJob): WireRunJob {
  const { slot } = job;
  return {
    wireVersion: RUN_WIRE_VERSION,
    key: slot.key,
    accountId: slot.accountId,
    checkId: slot.checkId,
    location: slot.location,
    dueMs: slot.dueMs,
    check: job.check as WireRunJob['check'],
    group: job.group ?? null,
  };
}
