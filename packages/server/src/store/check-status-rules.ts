/**
 * How a FINAL result moves its check's status, once for every engine: the status is the last result's
 * state, with the longest and shortest run seen so far and the days left on the last certificate
 * known. Engines store what `nextCheckStatus` returns; none computes a status of its own.
 */
import type { CheckStatus } from '@vigil/schema';
import type { FinalResultFacts } from './ports.js';
import { text } from './port-rules.js';

export type { FinalResultFacts } from './ports.js';

export type CheckState = 'passing' | 'failing' | 'degraded';

/** A status's state: failing with failures or errors, else degraded when degraded, else passing (SQLite's step 30 backfills by the same rule). */
export function checkStateOf(status: { hasFailures: boolean; hasErrors: boolean; isDegraded: boolean }): CheckState {
  if (status.hasFailures || status.hasErrors) return 'failing';
  return status.isDegraded ? 'degraded' : 'passing';
}

/** The status after `result`, given the one stored before it (if any). `nowIso`: the time when the result has no `stoppedAt`. */
export function nextCheckStatus(previous: CheckStatus | undefined, result: FinalResultFacts, nowIso: string): CheckStatus {
  const time = result.responseTime;
  const at = result.stoppedAt ?? nowIso;
  return {
    name: result.name,
    checkId: result.checkId,
    hasFailures: result.hasFailures,
    hasErrors: result.hasErrors,
    isDegraded: result.isDegraded === true,
    longestRun: maxOf(previous?.longestRun ?? null, time),
    shortestRun: minOf(previous?.shortestRun ?? null, time),
    lastRunLocation: result.runLocation,
    lastCheckRunId: result.checkRunId === null ? null : String(result.checkRunId),
    sslDaysRemaining: result.sslDaysRemaining ?? previous?.sslDaysRemaining ?? null,
    created_at: previous?.created_at ?? at,
    updated_at: at,
  };
}

/** Refuses a status write without the account, check or location it is for, with the same message on every engine. */
export function checkStatusWrite(accountId: string, result: FinalResultFacts): void {
  text('accountId', accountId);
  text('checkId', result.checkId);
  text('runLocation', result.runLocation);
}

function maxOf(previous: number | null, value: number | null): number | null {
  if (value === null) return previous;
  return previous === null ? value : Math.max(previous, value);
}

function minOf(previous: number | null, value: number | null): number | null {
  if (value === null) return previous;
  return previous === null ? value : Math.min(previous, value);
}
