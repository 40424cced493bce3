/**
 * What the in-process queue does with a claimed slot: run the check with `@vigil/runner` (which keeps
 * user scripts and Playwright specs in child processes with nothing of this process's environment),
 * then store every try (ATTEMPT results, then the FINAL one), the errors they fold into error
 * groups, the check's status and the FINAL result's alert evaluation as one unit of work through the
 * storage ports, which the read side then serves as check results and analytics.
 *
 * On SQLite a unit is a savepoint inside the store's group commit: every run that ends in the same
 * event-loop turn shares one commit with the API's writes of that turn. At 167 runs a second, a
 * commit of their own each (results, status, claim, alert state: four per run) was most of the
 * service's time and held the event loop in bursts that delayed the next runs' starts.
 */
import { RUN_WIRE_VERSION, type RunJob as WireRunJob } from '@vigil/schema';
import { runJob, type Runner, type RunnerReport, type RunResult } from '@vigil/runner';
import { EvaluationReadFailed, sslDaysRemaining, type AlertEvaluation, type Alerting, type FinalResultFacts } from '../alerting/index.js';
import { errorMessagesOf } from '../readside/error-groups.js';
import { boundResult } from '../readside/result-bounds.js';
import type { Repositories } from '../repositories.js';
import type { Store } from '../store/index.js';
import type { CheckResultDocument, ErrorOccurrence, StoragePorts, TransactionPorts } from '../store/ports.js';
import { sqlitePorts } from '../store/sqlite/index.js';
import type { ExecuteRun, RunJob } from './queue.js';
import { schedulable } from './scheduler.js';

export interface ExecuteOptions {
  /** Where results, statuses and slots' finishes are stored. */
  repositories: Pick<Repositories, 'ports'>;
  runner: Runner;
  /** Evaluates every FINAL result in the unit that stores it (alert state and notifications). */
  alerting?: Pick<Alerting, 'evaluateIn' | 'notify'>;
  /** Called once a run's results are stored, its slot marked finished with them (metrics, the failure log). */
  onStored?: (job: RunJob, final: RunResult) => void;
  /** Milliseconds since the epoch, as a slot's finish records them (default `Date.now`). */
  now?: () => number;
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
   * Runs first inside the unit of work that stores the results, through its ports; a rejection refuses
   * the report and stores nothing (an agent's lease that is no longer its own).
   */
  guard?: (tx: TransactionPorts) => Promise<void>;
  /**
   * False for a run no runner executed: it is stored and shown, and moves no alert state (a
   * location's outage alerts through the other locations' results, not through its own silence).
   */
  alert?: boolean;
}

/**
 * COMPATIBILITY for the agents' tests (agents/ is being changed by other work) until they pass
 * `service.repositories`: a store alone gets storage ports of its own on it.
 */
type StoreOnlyRecordOptions = Omit<ExecuteOptions, 'runner' | 'repositories'> & { store: Store };

/** Records a run's report for its claimed slot; the one way results are stored, wherever the run happened. */
export type RecordReport = (job: RunJob, report: RunnerReport, recordOptions?: RecordOptions) => Promise<void>;

/**
 * Stores a report's tries, their error groups and the check's status, evaluates the FINAL result's
 * alert and marks the slot finished, as one unit of work, then tells `onStored` and the outbox: the
 * same for a run in this process and a run an agent reported.
 */
export function reportRecorder(options: Omit<ExecuteOptions, 'runner'> | StoreOnlyRecordOptions): RecordReport {
  const { ports } = 'repositories' in options ? options.repositories : { ports: sqlitePorts(options.store) };
  const now = options.now ?? Date.now;
  return async (job, report, recordOptions = {}) => {
    const { accountId } = job.slot;
    const certificateExpiresAt = report.final.certificateExpiresAt ?? null;
    // The certificate's expiry feeds statuses and SSL alerts; it is not part of a stored result.
    // What is stored, and what its errors are folded from, is bounded first (result-bounds.ts).
    const tries = [...report.attempts, report.final].map(({ certificateExpiresAt: _expiry, ...result }) => boundResult(result) as unknown as CheckResultDocument);
    const schedule = schedulable(job.slot.accountId, job.slot.checkId, job.check, job.group);
    const parallel = schedule?.runParallel ? { dueMs: job.slot.dueMs, locations: Math.max(1, schedule.locations.length) } : undefined;
    const alerting = recordOptions.alert === false ? undefined : options.alerting;
    // One unit: a failure anywhere (the guard, the results, the groups, the status) stores nothing,
    // and a run stored is a run evaluated: no process dies between the two.
    const recordUnit = (afterFailedRead?: EvaluationReadFailed) => ports.transaction(async (tx) => {
      await recordOptions.guard?.(tx);
      const stored = await tx.checkResults.appendRun(accountId, tries);
      await tx.errorGroups.fold(accountId, errorOccurrencesOf(tries));
      // The store gives the tries the ids it derives; alerts name the FINAL result by the stored one.
      const final: RunResult = { ...report.final, id: stored.at(-1)!.id };
      await tx.checkStatuses.record(accountId, {
        name: String(job.check.name ?? final.name),
        checkId: job.slot.checkId,
        hasFailures: final.hasFailures,
        hasErrors: final.hasErrors,
        isDegraded: final.isDegraded ?? null,
        responseTime: typeof final.responseTime === 'number' ? final.responseTime : null,
        runLocation: job.slot.location,
        checkRunId: report.final.checkRunId,
        stoppedAt: final.stoppedAt ?? null,
        ...(certificateExpiresAt ? { sslDaysRemaining: sslDaysRemaining(certificateExpiresAt, Date.parse(final.stoppedAt ?? '') || Date.now()) } : {}),
      });
      let evaluated: { evaluation?: AlertEvaluation; alertingFailure?: { error: unknown } } = {};
      // An alerting failure undoes only the evaluation's writes (they are in a savepoint of the unit)
      // and is reported once the run is stored. It neither undoes the stored run nor re-runs the slot:
      // the run happened, and its results and status are true whatever became of its alert. Only a
      // failed read of its first pass, outside a savepoint, fails the unit: it is run once more below.
      if (alerting) {
        try {
          evaluated = { evaluation: await alerting.evaluateIn(tx, accountId, job.slot.checkId, alertFactsOf(job, final, certificateExpiresAt), parallel, afterFailedRead) };
        } catch (error) {
          if (error instanceof EvaluationReadFailed) throw error;
          evaluated = { alertingFailure: { error } };
        }
      }
      // Last: the claim's row stays locked from here to the commit, and a tick claiming the check's
      // next slot (a statement for all its slots, on any replica) waits for it meanwhile.
      await tx.slotClaims.finish(job.slot, now());
      return { final, ...evaluated };
    });
    // The failed read may have aborted the unit's transaction (PostgreSQL): nothing of it stayed, and
    // the same run is stored by a unit whose evaluation starts in a savepoint.
    const recorded = await recordUnit().catch((error: unknown) => {
      if (error instanceof EvaluationReadFailed) return recordUnit(error);
      throw error;
    });
    options.onStored?.(job, recorded.final);
    const evaluation: AlertEvaluation | undefined = recorded.evaluation;
    if (evaluation) alerting?.notify(evaluation);
    if (recorded.alertingFailure) throw recorded.alertingFailure.error;
  };
}

/** What alerting uses of a stored FINAL result. */
function alertFactsOf(job: RunJob, final: RunResult, certificateExpiresAt: string | null): FinalResultFacts {
  return {
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
}

/** The errors the tries record, as their check's error groups fold them. */
function errorOccurrencesOf(tries: readonly CheckResultDocument[]): ErrorOccurrence[] {
  const occurrences: ErrorOccurrence[] = [];
  for (const tried of tries) {
    const at = Date.parse(tried.created_at);
    for (const message of errorMessagesOf(tried as Parameters<typeof errorMessagesOf>[0])) occurrences.push({ checkId: tried.checkId, message, at });
  }
  return occurrences;
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
