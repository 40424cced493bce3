/**
 * The service's rate limit as `vigil server --rate-limit` takes it and `VIGIL_RATE_LIMIT` tells the
 * CLI: `N/S`, N requests per S seconds (the hosted service's default is 600/60).
 */

export interface RateLimitOptions {
  readonly requests: number;
  readonly windowSeconds: number;
  /** Requests per window for `/v1/analytics/*`; default 30. */
  readonly analyticsRequests?: number;
}

export class RateLimitSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RateLimitSpecError';
  }
}

/** Parses `N/S` (e.g. `600/60`) as N requests per S seconds. */
export function parseRateLimit(spec: string): RateLimitOptions {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(spec);
  const requests = Number(match?.[1]);
  const windowSeconds = Number(match?.[2]);
  if (!match || requests < 1 || windowSeconds < 1) {
    throw new RateLimitSpecError(`invalid rate limit "${spec}": expected REQUESTS/SECONDS with both at least 1, e.g. 600/60`);
  }
  return { requests, windowSeconds };
}
