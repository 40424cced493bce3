import type { ApiError } from './errors.js';

/** How hard the client tries before reporting a failure. */
export interface RetryOptions {
  /** Total attempts per call, the first included (1 = never retry). */
  attempts: number;
  /** No retry starts once this much time has passed since the first attempt (sleeps included). */
  maxTotalMs: number;
  /** First backoff ceiling; doubles per retry (full jitter picks a delay in [0, ceiling)). */
  baseDelayMs: number;
  /** Upper bound of one backoff delay; `Retry-After` is honoured even when larger. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { attempts: 6, maxTotalMs: 120_000, baseDelayMs: 250, maxDelayMs: 20_000 };

/** Why one attempt failed, as far as the retry decision cares. */
export type AttemptFailure =
  | { kind: 'status'; status: number; retryAfterMs: number | undefined }
  /** The connection was reset or dropped: the service may or may not have acted on the request. */
  | { kind: 'connection-lost' }
  | { kind: 'timeout' }
  /** Anything else without a response (refused, DNS): retrying would only repeat it. */
  | { kind: 'unreachable' };

export type AttemptResult<T> = { ok: true; value: T } | { ok: false; failure: AttemptFailure; error: ApiError };

// PUT replaces with the same payload, DELETE of a deleted id is a 404: repeating them cannot duplicate.
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);
const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * Whether a failed attempt may be repeated. A 429 always may: the service refused before acting. A
 * transient failure (502/503/504, lost connection, timeout) may have happened after the service acted,
 * so only an idempotent method, or a POST carrying an `Idempotency-Key` the service deduplicates on,
 * is repeated. A 409 on such a POST means "the first request with this key is still running" (as the
 * IETF Idempotency-Key draft specifies): typically our own earlier attempt that timed out on our
 * side; waiting and repeating gets its stored response.
 */
export function isRetryable(failure: AttemptFailure, request: { method: string; idempotencyKey: string | undefined }): boolean {
  const repeatable = IDEMPOTENT_METHODS.has(request.method) || (request.method === 'POST' && request.idempotencyKey !== undefined);
  switch (failure.kind) {
    case 'status':
      if (failure.status === 429) return true;
      if (failure.status === 409) return request.method === 'POST' && request.idempotencyKey !== undefined;
      return TRANSIENT_STATUSES.has(failure.status) && repeatable;
    case 'connection-lost':
    case 'timeout':
      return repeatable;
    case 'unreachable':
      return false;
    default:
      return assertNever(failure);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected retry failure ${JSON.stringify(value)}; this is a bug in vigil`);
}

/**
 * `Retry-After` in milliseconds: delta-seconds (`"2"`, `"0.5"`) or an HTTP date. Undefined when
 * absent or unreadable, so the caller falls back to backoff.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed.length === 0) return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/**
 * Exponential backoff with full jitter (a uniform pick in [0, ceiling)): spreads a burst of clients
 * that failed together, which equal-jitter or fixed delays would send back together.
 * `retry` counts from 1 (the delay before the second attempt).
 */
export function backoffDelayMs(retry: number, options: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs'>, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}

/** Time as the retry loop sees it; tests use fake timers, so the defaults are the real ones. */
export interface RetryClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: RetryClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Runs `attempt` until it succeeds, its failure is not retryable, or the attempts or total time run
 * out; then throws the last attempt's error. `attempt` receives its 1-based number.
 */
export async function runWithRetries<T>(options: {
  retry: RetryOptions;
  request: { method: string; idempotencyKey: string | undefined };
  attempt: (attemptNumber: number) => Promise<AttemptResult<T>>;
  clock?: RetryClock;
  random?: () => number;
  /**
   * The first attempt's result, when the caller made it itself (the transport does, so that a call
   * answered at once skips this loop); `startedAt` is then when that attempt began.
   */
  first?: { result: AttemptResult<T>; startedAt: number } | undefined;
}): Promise<T> {
  const clock = options.clock ?? realClock;
  const startedAt = options.first?.startedAt ?? clock.now();
  for (let attemptNumber = 1; ; attemptNumber++) {
    const result = attemptNumber === 1 && options.first !== undefined ? options.first.result : await options.attempt(attemptNumber);
    if (result.ok) return result.value;
    if (attemptNumber >= options.retry.attempts || !isRetryable(result.failure, options.request)) throw result.error;
    const delay =
      result.failure.kind === 'status' && result.failure.retryAfterMs !== undefined
        ? result.failure.retryAfterMs
        : backoffDelayMs(attemptNumber, options.retry, options.random);
    if (clock.now() + delay - startedAt > options.retry.maxTotalMs) throw result.error;
    await clock.sleep(delay);
  }
}
