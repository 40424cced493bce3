/**
 * Per-API-key rate limiting with fixed windows: `requests` per `windowSeconds`, and a separate, smaller
 * bucket for the analytics endpoints (the real service limits those more tightly).
 *
 * `SharedRateLimiter` counts in the database through the `RateLimitWindows` port (store/ports.ts), so
 * replicas on one database share one limit per key: what the API and the ping routes use.
 * `RateLimiter` counts in this process alone, for limits that only guard this process's own work.
 */
import type { RateLimitOptions } from '@vigil/schema';
import { BoundedMap } from '../bounded-map.js';
import type { RateDecision, RateLimitWindows } from '../store/ports.js';

export { parseRateLimit, RateLimitSpecError, type RateLimitOptions } from '@vigil/schema';
export type { RateDecision };

interface Window {
  startedAt: number;
  count: number;
}

export type RateBucket = 'default' | 'analytics' | 'ping';

/** The window's key: a bucket of its own per kind of limit, so an API key and a ping token never share a count. */
function windowKey(bucket: RateBucket, key: string): string {
  return `${bucket}\u0000${key}`;
}

/** The same decisions as `RateLimiter`, taken from the windows every replica on the database counts in. */
export class SharedRateLimiter {
  readonly #windows: RateLimitWindows;
  readonly #options: RateLimitOptions;

  constructor(windows: RateLimitWindows, options: RateLimitOptions) {
    this.#windows = windows;
    this.#options = options;
  }

  take(key: string, bucket: RateBucket, now: number): Promise<RateDecision> {
    const limit = bucket === 'analytics' ? (this.#options.analyticsRequests ?? 30) : this.#options.requests;
    return this.#windows.take({ key: windowKey(bucket, key), limit, windowMs: this.#options.windowSeconds * 1000, now });
  }
}

export class RateLimiter {
  readonly #options: RateLimitOptions;
  // Keyed by accepted keys only, so already bounded by the accounts file; the bound is a backstop.
  readonly #windows = new BoundedMap<string, Window>(10_000);

  constructor(options: RateLimitOptions) {
    this.#options = options;
  }

  take(apiKey: string, bucket: RateBucket, now: number): RateDecision {
    const limit = bucket === 'analytics' ? (this.#options.analyticsRequests ?? 30) : this.#options.requests;
    const windowMs = this.#options.windowSeconds * 1000;
    const id = windowKey(bucket, apiKey);
    let window = this.#windows.get(id);
    if (!window || now - window.startedAt >= windowMs) {
      window = { startedAt: now, count: 0 };
      this.#windows.set(id, window);
    }
    const resetSeconds = Math.max(1, Math.ceil((window.startedAt + windowMs - now) / 1000));
    if (window.count >= limit) return { allowed: false, limit, remaining: 0, resetSeconds };
    window.count += 1;
    return { allowed: true, limit, remaining: limit - window.count, resetSeconds };
  }
}
