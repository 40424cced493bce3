/**
 * Waiting for a database that is not up yet. Replicas often start before their database (a
 * container starting beside it, a failover in progress), so `openPostgresPorts` tries it until it
 * answers: with exponential backoff (doubling, capped, with jitter so replicas restarting together do
 * not knock in step), a warning per failed try saying what failed and when the next try is, and a
 * final error naming `host:port/database` (never the password). Only the database being away is
 * retried: a refused login, a missing database or a server without the TLS the URL asks for fail at
 * once, since waiting would not mend them.
 */
import { sql, type Kysely } from 'kysely';
import { isUnavailable, reasonOf } from './connection-errors.js';

export interface ConnectRetryOptions {
  /** Tries in all, the first one included (default 10; 1 tries once). */
  readonly attempts?: number;
  /** The wait after the first failed try, doubled after each (default 250 ms). */
  readonly firstDelayMs?: number;
  /** The longest wait between two tries (default 30 s). */
  readonly maxDelayMs?: number;
  /** Gives up at once when aborted (a stop while waiting for the database). */
  readonly signal?: AbortSignal;
  /** A number in [0, 1), for the jitter (default Math.random); tests pass a fixed one. */
  readonly random?: () => number;
}

export const DEFAULT_CONNECT_ATTEMPTS = 10;

/**
 * The wait before try `attempt + 1`: `firstDelayMs · 2^(attempt-1)`, capped at `maxDelayMs`, then
 * between half of it and all of it ("equal jitter": never much shorter than the backoff, never longer
 * than the cap).
 */
export function retryDelayMs(attempt: number, options: { firstDelayMs: number; maxDelayMs: number; random: number }): number {
  const backoff = Math.min(options.maxDelayMs, options.firstDelayMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(backoff / 2 + (backoff / 2) * options.random);
}

/** Resolves once `SELECT 1` succeeds; rejects with the last error, told as the caller needs it. */
export async function waitUntilReachable(
  db: Kysely<any>,
  target: string,
  options: ConnectRetryOptions & { warn: (message: string) => void; mask: (text: string) => string },
): Promise<void> {
  const attempts = options.attempts ?? DEFAULT_CONNECT_ATTEMPTS;
  if (!Number.isInteger(attempts) || attempts < 1) throw new Error(`connectRetry.attempts must be a whole number of at least 1, got ${attempts}`);
  const firstDelayMs = options.firstDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const random = options.random ?? Math.random;
  for (let attempt = 1; ; attempt += 1) {
    if (options.signal?.aborted) throw gaveUp(target, attempt - 1, undefined);
    try {
      await sql`SELECT 1`.execute(db);
      return;
    } catch (error) {
      // The pool's errors already name the target (guarded-pool.ts); others are told with it here.
      if (!isUnavailable(error)) throw new Error(`could not connect to PostgreSQL at ${target}: ${options.mask(reasonOf(error))}`, { cause: error });
      if (attempt >= attempts) throw new Error(`${reasonOf(error)} (gave up after ${attempts} attempt${attempts === 1 ? '' : 's'})`, { cause: error });
      const delayMs = retryDelayMs(attempt, { firstDelayMs, maxDelayMs, random: random() });
      const nextAt = new Date(Date.now() + delayMs).toISOString();
      options.warn(`${reasonOf(error)} (attempt ${attempt} of ${attempts}); trying again in ${delayMs} ms, at ${nextAt}`);
      if (!(await sleep(delayMs, options.signal))) throw gaveUp(target, attempt, error);
    }
  }
}

function gaveUp(target: string, attempts: number, last: unknown): Error {
  if (last === undefined) return new Error(`stopped waiting for PostgreSQL at ${target}: aborted before the first attempt`);
  return new Error(`${reasonOf(last)} (stopped waiting: aborted after ${attempts} attempt${attempts === 1 ? '' : 's'})`, { cause: last });
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
