import type { RetryOnlyOn, RetryStrategyType } from './values.js';

/** How a failing check is retried before it counts as failed (spec §2.2 retryStrategy). */
export interface RetryStrategy {
  /** `FIXED`, `LINEAR`, `EXPONENTIAL` or `SINGLE_RETRY`. */
  type: RetryStrategyType;
  /** Seconds to wait before the first retry. */
  baseBackoffSeconds?: number;
  /** How many retries at most (1..10). */
  maxRetries?: number;
  /** Total seconds to keep retrying (at most 600). */
  maxDurationSeconds?: number;
  /** Whether retries run in the region of the failed run. */
  sameRegion?: boolean;
  /** Retry only on these failure kinds, e.g. `['NETWORK_ERROR']`; every failure when omitted. */
  onlyOn?: RetryOnlyOn[];
}

/** Options shared by the builder's strategies; omitted ones get the builder's defaults. */
export type RetryStrategyOptions = Omit<RetryStrategy, 'type'>;

const DEFAULTS = { baseBackoffSeconds: 60, maxRetries: 2, maxDurationSeconds: 600, sameRegion: true } as const;

function strategy(type: RetryStrategyType, options: RetryStrategyOptions): RetryStrategy {
  const built: RetryStrategy = {
    type,
    baseBackoffSeconds: options.baseBackoffSeconds ?? DEFAULTS.baseBackoffSeconds,
    maxRetries: options.maxRetries ?? DEFAULTS.maxRetries,
    maxDurationSeconds: options.maxDurationSeconds ?? DEFAULTS.maxDurationSeconds,
    sameRegion: options.sameRegion ?? DEFAULTS.sameRegion,
  };
  if (options.onlyOn !== undefined) built.onlyOn = options.onlyOn;
  return built;
}

/** Builds retry strategies for checks and groups. */
export class RetryStrategyBuilder {
  /** Every retry waits `baseBackoffSeconds`. */
  static fixedStrategy(options: RetryStrategyOptions = {}): RetryStrategy {
    return strategy('FIXED', options);
  }
  /** Retry n waits `baseBackoffSeconds * n` (10 s, 20 s, 30 s, ...). */
  static linearStrategy(options: RetryStrategyOptions = {}): RetryStrategy {
    return strategy('LINEAR', options);
  }
  /** Retry n waits `baseBackoffSeconds ^ n` (10 s, 100 s, 1000 s, ...). */
  static exponentialStrategy(options: RetryStrategyOptions = {}): RetryStrategy {
    return strategy('EXPONENTIAL', options);
  }
  /** One retry after `baseBackoffSeconds` (default 0: immediately). */
  static singleRetry(options: Pick<RetryStrategyOptions, 'baseBackoffSeconds' | 'sameRegion' | 'onlyOn'> = {}): RetryStrategy {
    return strategy('SINGLE_RETRY', { ...options, baseBackoffSeconds: options.baseBackoffSeconds ?? 0, maxRetries: 1 });
  }
  /**
   * Never retry. This is `null`, the spec's "no strategy"; unlike leaving `retryStrategy` out, it
   * stops a group's or the config's strategy from applying.
   */
  static noRetries(): null {
    return null;
  }
}
