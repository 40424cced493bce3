/**
 * A scheduled run, from the wire job to the wire report: the group's defaults and variables applied
 * as the service does at run time, the run tried with the runner, and every try stamped with the
 * run's id. The service's in-process queue and a runner agent execute jobs through this one
 * function, so a run means the same wherever it happens.
 */
import { RUN_WIRE_VERSION, type RunJob, type RunReport } from '@vigil/schema';
import { applyGroupDefaults, groupVariables, resolveGroupBaseUrl, type GroupRunDefaults } from './group-defaults.js';
import type { RunResult, RunVariable, Runner } from './types.js';

/** The run's id, shared by all its tries: the second its slot was due. */
export function checkRunIdOf(job: Pick<RunJob, 'dueMs'>): number {
  return Math.floor(job.dueMs / 1000);
}

/** A report as this runner produces it: its tries keep the runner's richer type (assignable to the wire's). */
export type RunnerReport = Omit<RunReport, 'attempts' | 'final'> & { attempts: RunResult[]; final: RunResult };

export async function runJob(runner: Runner, job: RunJob, signal: AbortSignal): Promise<RunnerReport> {
  const group = (job.group ?? undefined) as GroupRunDefaults | undefined;
  const check = applyGroupDefaults(job.check, group);
  const variables = resolveGroupBaseUrl([...variablesOf(job.check.environmentVariables), ...variablesOf(groupVariables(group))]);
  const outcome = await runner.run(
    { ...check, checkType: String(check.checkType), id: job.checkId },
    { location: job.location, variables, signal, tenant: job.accountId },
  );
  const checkRunId = checkRunIdOf(job);
  const stamp = (result: RunResult): RunResult => ({ ...result, checkId: job.checkId, checkRunId });
  return { wireVersion: RUN_WIRE_VERSION, key: job.key, attempts: outcome.attempts.map(stamp), final: stamp(outcome.final) };
}

function variablesOf(value: unknown): RunVariable[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((variable): variable is { key: string; value: string; secret?: boolean } => typeof variable?.key === 'string' && typeof variable.value === 'string')
    .map((variable) => ({ key: variable.key, value: variable.value, ...(variable.secret ? { secret: true } : {}) }));
}
