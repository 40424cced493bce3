import type { RetryOnlyOn, RetryStrategyType } from './values.js';

/**
 * Which failures a strategy retries: `'NETWORK_ERROR'` (no response arrived) or a list of them, as
 * Checkly's constructs take it. API checks only.
 */
export type RetryCondition = RetryOnlyOn | RetryOnlyOn[];

/** How a failing check is retried before it counts as failed (`retryStrategy`). */
export interface RetryStrategy {
  /** `FIXED`, `LINEAR`, `EXPONENTIAL` or `SINGLE_RETRY`. */
  type: RetryStrategyType;
  /** Seconds to wait before the first retry. Default 60. */
  baseBackoffSeconds?: number;
  /** How many retries at most (1..10). Default 2. Not for `SINGLE_RETRY`. */
  maxRetries?: number;
  /** Total seconds to keep retrying (at most 600). Default 600. Not for `SINGLE_RETRY`. */
  maxDurationSeconds?: number;
  /** Whether retries run in the region of the failed run. Default true. */
  sameRegion?: boolean;
  /**
   * Retry only on this failure, `'NETWORK_ERROR'` (or `['NETWORK_ERROR']`); every failure when
   * omitted. Only API checks support it.
   */
  onlyOn?: RetryCondition;
}

/** Options shared by the builder's strategies; omitted ones get the builder's defaults. */
export type RetryStrategyOptions = Omit<RetryStrategy, 'type'>;

/** Options of {@link RetryStrategyBuilder.singleRetry}: one retry has no count or time limit. */
export type SingleRetryStrategyOptions = Pick<RetryStrategyOptions, 'baseBackoffSeconds' | 'sameRegion' | 'onlyOn'>;

/** The defaults of Checkly's builder, which the service also applies when a field is left out. */
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

/** Builds retry strategies for checks, groups and the config's check defaults. */
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
  /**
   * One retry after `baseBackoffSeconds` (default 60), in the same region by default. The service
   * takes no `maxRetries` or `maxDurationSeconds` with it.
   */
  static singleRetry(options: SingleRetryStrategyOptions = {}): RetryStrategy {
    const built: RetryStrategy = {
      type: 'SINGLE_RETRY',
      baseBackoffSeconds: options.baseBackoffSeconds ?? DEFAULTS.baseBackoffSeconds,
      sameRegion: options.sameRegion ?? DEFAULTS.sameRegion,
    };
    if (options.onlyOn !== undefined) built.onlyOn = options.onlyOn;
    return built;
  }
  /**
   * Never retry. This is `null`, the spec's "no strategy": a check sends it with `doubleCheck:
   * false` (the service would otherwise retry once), and a group sends it so none of its checks
   * retries. Unlike leaving `retryStrategy` out, it stops a group's or the config's strategy from
   * applying.
   */
  static noRetries(): null {
    return null;
  }
}

/** Checkly's spelling of "no retries" in plain data: `{ type: 'NO_RETRIES' }`. */
function isNoRetriesObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'NO_RETRIES';
}

/**
 * A `retryStrategy` prop as the payload holds it: Checkly's `{ type: 'NO_RETRIES' }` becomes
 * `null`; anything else is left for the schema to check.
 */
export function retryStrategyPayload(value: unknown): unknown {
  return isNoRetriesObject(value) ? null : value;
}

/** The conditions of a strategy's `onlyOn`, whichever form it was given in. */
export function retryConditions(value: unknown): unknown[] {
  if (typeof value !== 'object' || value === null) return [];
  const onlyOn = (value as { onlyOn?: unknown }).onlyOn;
  if (onlyOn === undefined || onlyOn === null) return [];
  return Array.isArray(onlyOn) ? onlyOn : [onlyOn];
}
