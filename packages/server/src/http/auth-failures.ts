/**
 * Failed authentication, limited per client address (issue 15 item 6). The per-key rate limit runs
 * only once a key is accepted, so without this a caller could try keys at full speed. Every 401 from
 * an address counts; past `failures` in a window the address gets 429 with `Retry-After` before its
 * key is even looked at, so a guesser cannot tell a right key from a wrong one until the window ends.
 * A success does not reset the count: a caller holding one valid key could otherwise interleave it
 * with guesses.
 */
import { BoundedMap } from '../bounded-map.js';

export interface AuthFailureLimit {
  readonly failures: number;
  readonly windowSeconds: number;
}

/** On unless the app is told otherwise: a person mistyping a key never gets near it. */
export const DEFAULT_AUTH_FAILURE_LIMIT: AuthFailureLimit = { failures: 20, windowSeconds: 60 };

/**
 * Addresses remembered at once. The least recently seen is forgotten first, so an address that is
 * still failing keeps its count; ~100 bytes each.
 */
const MAX_TRACKED_ADDRESSES = 10_000;

interface Window {
  readonly startedAt: number;
  count: number;
}

export class AuthFailureLimiter {
  readonly #limit: AuthFailureLimit;
  readonly #windows = new BoundedMap<string, Window>(MAX_TRACKED_ADDRESSES);

  constructor(limit: AuthFailureLimit) {
    this.#limit = limit;
  }

  /** Whole seconds the address must wait before trying again, or undefined if it may try now. */
  blockedFor(address: string, now: number): number | undefined {
    const window = this.#current(address, now);
    if (!window || window.count < this.#limit.failures) return undefined;
    return Math.max(1, Math.ceil((window.startedAt + this.#limit.windowSeconds * 1000 - now) / 1000));
  }

  fail(address: string, now: number): void {
    const window = this.#current(address, now);
    if (window) window.count += 1;
    else this.#windows.set(address, { startedAt: now, count: 1 });
  }

  #current(address: string, now: number): Window | undefined {
    const window = this.#windows.get(address);
    if (window && now - window.startedAt >= this.#limit.windowSeconds * 1000) {
      this.#windows.delete(address);
      return undefined;
    }
    return window;
  }
}
