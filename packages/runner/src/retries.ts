/**
 * Which tries a run makes and how long it waits between them (`retryStrategy`, `doubleCheck`,
 * `vigil test --retries`). Pure: the runner owns the clock and the sleeping.
 */
import type { RetryStrategy } from '@vigil/schema';
import type { FailureKind } from './types.js';

export interface RetryPlan {
  /** Tries after the first one, at most. */
  maxRetries: number;
  /** Milliseconds to wait before retry number `retry` (1-based). */
  backoffMs(retry: number): number;
  /** No retry starts once the run (first try included) would pass this, in milliseconds. */
  maxDurationMs: number;
  /** Retry only when no response arrived (`onlyOn: ['NETWORK_ERROR']`). */
  onlyOnNetworkError: boolean;
}

const NO_RETRIES: RetryPlan = { maxRetries: 0, backoffMs: () => 0, maxDurationMs: 0, onlyOnNetworkError: false };

/** The real service's documented ceiling for `maxDurationSeconds` (of `retryStrategy`). */
const MAX_DURATION_SECONDS = 600;

/**
 * `retryStrategy` wins over `doubleCheck` (deprecated; it means one immediate retry). `override`
 * (`--retries`) replaces only the count: the spacing of the check's strategy stays, and without a
 * strategy the retries follow at once.
 */
export function retryPlan(
  check: { retryStrategy?: Partial<RetryStrategy> | null | undefined; doubleCheck?: boolean | undefined },
  override?: number,
): RetryPlan {
  const strategy = check.retryStrategy ?? null;
  const base = strategy !== null ? strategyPlan(strategy) : check.doubleCheck === true ? singleRetry(0) : NO_RETRIES;
  if (override === undefined) return base;
  const count = Math.max(0, Math.floor(override));
  if (count === 0) return NO_RETRIES;
  return {
    ...base,
    maxRetries: count,
    maxDurationMs: strategy !== null ? base.maxDurationMs : MAX_DURATION_SECONDS * 1000,
  };
}

function strategyPlan(strategy: Partial<RetryStrategy>): RetryPlan {
  const baseMs = (strategy.baseBackoffSeconds ?? 60) * 1000;
  const maxRetries = strategy.maxRetries ?? 2;
  const maxDurationMs = (strategy.maxDurationSeconds ?? MAX_DURATION_SECONDS) * 1000;
  const onlyOnNetworkError = (strategy.onlyOn ?? []).includes('NETWORK_ERROR');
  switch (strategy.type) {
    case 'FIXED':
      return { maxRetries, backoffMs: () => baseMs, maxDurationMs, onlyOnNetworkError };
    case 'LINEAR':
      return { maxRetries, backoffMs: (retry) => baseMs * retry, maxDurationMs, onlyOnNetworkError };
    case 'EXPONENTIAL':
      // Checkly: "baseBackoffSeconds ^ attempt" (5 → 5 s, 25 s, 125 s).
      return { maxRetries, backoffMs: (retry) => (baseMs / 1000) ** retry * 1000, maxDurationMs, onlyOnNetworkError };
    case 'SINGLE_RETRY':
      return { ...singleRetry(baseMs), maxDurationMs, onlyOnNetworkError };
    case undefined:
      return NO_RETRIES;
  }
}

function singleRetry(backoffMs: number): RetryPlan {
  return { maxRetries: 1, backoffMs: () => backoffMs, maxDurationMs: MAX_DURATION_SECONDS * 1000, onlyOnNetworkError: false };
}

/** Whether a failed try may be retried under `plan` (the count and the duration are the runner's). */
export function retryable(plan: RetryPlan, failure: FailureKind): boolean {
  if (failure === 'ABORTED') return false;
  return plan.onlyOnNetworkError ? failure === 'NETWORK_ERROR' : true;
}
