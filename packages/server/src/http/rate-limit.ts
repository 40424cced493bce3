/**
 * Per-API-key rate limiting with fixed windows: `requests` per `windowSeconds`, and a separate, smaller
 * bucket for the analytics endpoints (the real service limits those more tightly). Each process counts
 * on its own; the `RateLimitWindows` port (store/ports.ts) makes the same decisions from a shared database.
 */
import type { RateLimitOptions } from '@vigil/schema';
import { BoundedMap } from '../bounded-map.js';
import type { RateDecision } from '../store/ports.js';

export { parseRateLimit, RateLimitSpecError, type RateLimitOptions } from '@vigil/schema';
export type { RateDecision };

interface Window {
  startedAt: number;
  count: number;
}

export class RateLimiter {
  readonly #options: RateLimitOptions;
  // Keyed by accepted keys only, so already bounded by the accounts file; the bound is a backstop.
  readonly #windows = new BoundedMap<string, Window>(10_000);

  constructor(options: RateLimitOptions) {
    this.#options = options;
  }

  take(apiKey: string, bucket: 'default' | 'analytics', now: number): RateDecision {
    const limit = bucket === 'analytics' ? (this.#options.analyticsRequests ?? 30) : this.#options.requests;
    const windowMs = this.#options.windowSeconds * 1000;
    const id = `${bucket}\u0000${apiKey}`;
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
