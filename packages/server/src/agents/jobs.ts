/**
 * A claimed slot as it travels to an agent and back: the wire job (what the agent executes and the
 * lease table keeps), the slot it came from (what recording needs), and the report of a run no
 * runner executed.
 */
import { randomUUID } from 'node:crypto';
import { RUN_WIRE_VERSION, type RunJob as WireRunJob } from '@vigil/schema';
import { checkRunIdOf, type RunnerReport, type RunResult } from '@vigil/runner';
import { wireJobOf } from '../scheduler/execute.js';
import type { RunJob } from '../scheduler/queue.js';

export const wireJobOfRun = wireJobOf;

/** The claimed slot a wire job was made from (the inverse of `wireJobOf`). */
export function runJobOfWire(job: WireRunJob): RunJob {
  return {
    slot: { accountId: job.accountId, checkId: job.checkId, dueMs: job.dueMs, location: job.location, key: job.key },
    check: job.check,
    ...(job.group ? { group: job.group } : {}),
  };
}

/**
 * The FINAL result of a run no runner executed: `hasErrors` (the service, not the check, failed),
 * no tries (`attempts` 0, `startedAt` null, `responseTime` 0), and `notExecuted: {reason}`, so the
 * check's status, its results and `vigil status` all show it.
 */
export function notExecutedReport(job: RunJob, reason: string, nowMs: number): RunnerReport {
  const at = new Date(nowMs).toISOString();
  const final = {
    id: randomUUID(),
    name: String(job.check.name ?? ''),
    checkId: job.slot.checkId,
    hasFailures: false,
    hasErrors: true,
    isDegraded: null,
    overMaxResponseTime: null,
    runLocation: job.slot.location,
    startedAt: null,
    stoppedAt: at,
    created_at: at,
    responseTime: 0,
    apiCheckResult: null,
    browserCheckResult: null,
    multiStepCheckResult: null,
    checkRunId: checkRunIdOf(job.slot),
    attempts: 0,
    resultType: 'FINAL',
    sequenceId: null,
    error: `not executed: ${reason}`,
    notExecuted: { reason },
  } as RunResult;
  return { wireVersion: RUN_WIRE_VERSION, key: job.slot.key, attempts: [], final };
}
