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
import type { Runner, RunResult, RunVariable } from '@vigil/runner';
import { applyGroupDefaults, groupVariables, resolveGroupBaseUrl, type GroupRunDefaults } from '@vigil/runner/group-defaults';
import { sslDaysRemaining, type Alerting } from '../alerting/index.js';
import { readSideOf } from '../readside/context.js';
import { statusesOf } from '../readside/statuses.js';
import type { Store } from '../store/index.js';
import type { ExecuteRun, RunJob } from './queue.js';
import { schedulable } from './scheduler.js';

export interface ExecuteOptions {
  store: Store;
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
  const results = readSideOf(options.store).results;
  const statuses = statusesOf(options.store);
  return async (job, signal) => {
    const group = job.group as GroupRunDefaults | undefined;
    const check = applyGroupDefaults(job.check, group);
    const variables = resolveGroupBaseUrl([...variablesOf(job.check.environmentVariables), ...variablesOf(groupVariables(group))]);
    const outcome = await options.runner.run({ ...check, checkType: String(check.checkType), id: job.slot.checkId }, { location: job.slot.location, variables, signal, tenant: job.slot.accountId });
    if (signal.aborted) return;
    // The slot's moment identifies the run: all tries of one slot share it.
    const checkRunId = Math.floor(job.slot.dueMs / 1000);
    const { final } = outcome;
    const certificateExpiresAt = final.certificateExpiresAt ?? null;
    const stored = options.store.writeBatched(() => {
      // The certificate's expiry feeds statuses and SSL alerts; it is not part of a stored result.
      for (const { certificateExpiresAt: _expiry, ...result } of [...outcome.attempts, outcome.final]) {
        results.recordResult(job.slot.accountId, { ...result, checkId: job.slot.checkId, checkRunId });
      }
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
    // In a savepoint of its own after the results: an alerting failure is reported, and neither
    // undoes the stored run nor re-runs the slot.
    let alertingFailure: { error: unknown } | undefined;
    try {
      const alerting = options.alerting;
      if (alerting) options.store.writeBatched(() => alerting.onFinalResult(job.slot.accountId, job.slot.checkId, facts, parallel));
    } catch (error) {
      alertingFailure = { error };
    }
    await stored.committed;
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

function variablesOf(value: unknown): RunVariable[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((variable): variable is { key: string; value: string; secret?: boolean } => typeof variable?.key === 'string' && typeof variable.value === 'string')
    .map((variable) => ({ key: variable.key, value: variable.value, ...(variable.secret ? { secret: true } : {}) }));
}
