/**
 * Failed authentication, limited apart from good traffic. The per-key rate limit runs only once a key
 * is accepted, so without this a caller could try keys at full speed; but a failure must only ever
 * cost the failing credential and the address that sent it, never a caller whose key is good: one
 * client's stale key used to lock every client behind the same address (a loopback, a NAT, a CI
 * runner) out of the service.
 *
 * So a presented credential is looked up first, and only a bad one meets these limits, counted twice:
 * per client address (one caller trying many keys) and per credential (one bad key retried, from
 * however many addresses). Past `failures` in a window the next bad attempt gets 429 with
 * `Retry-After` instead of 401. A success neither resets nor is held back by either count, so a right
 * key always gets through; what stops guessing is that keys must be long random secrets, the limit
 * only makes a guesser's answers cheap and tells a misconfigured client to back off.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { BoundedMap } from '../bounded-map.js';
import type { AppEnv } from './types.js';

export interface AuthFailureLimit {
  readonly failures: number;
  readonly windowSeconds: number;
}

/** On unless the app is told otherwise: a person mistyping a key never gets near it. */
export const DEFAULT_AUTH_FAILURE_LIMIT: AuthFailureLimit = { failures: 20, windowSeconds: 60 };

/**
 * Addresses or credentials remembered at once, per table. The least recently seen is forgotten first,
 * so one that is still failing keeps its count; ~150 bytes each, as credentials are kept as digests.
 */
export const MAX_TRACKED_FAILURES = 10_000;

interface Window {
  readonly startedAt: number;
  count: number;
}

/** Failures per id (an address, a credential digest) in fixed windows. */
export class AuthFailureLimiter {
  readonly #limit: AuthFailureLimit;
  readonly #windows = new BoundedMap<string, Window>(MAX_TRACKED_FAILURES);

  constructor(limit: AuthFailureLimit) {
    this.#limit = limit;
  }

  get size(): number {
    return this.#windows.size;
  }

  /** Whole seconds the id must wait before failing again, or undefined if it may try now. */
  blockedFor(id: string, now: number): number | undefined {
    const window = this.#current(id, now);
    if (!window || window.count < this.#limit.failures) return undefined;
    return Math.max(1, Math.ceil((window.startedAt + this.#limit.windowSeconds * 1000 - now) / 1000));
  }

  fail(id: string, now: number): void {
    const window = this.#current(id, now);
    if (window) window.count += 1;
    else this.#windows.set(id, { startedAt: now, count: 1 });
  }

  #current(id: string, now: number): Window | undefined {
    const window = this.#windows.get(id);
    if (window && now - window.startedAt >= this.#limit.windowSeconds * 1000) {
      this.#windows.delete(id);
      return undefined;
    }
    return window;
  }
}

export interface FailureRefusal {
  /** Which budget is spent: the sender's address, or the credential it presented. */
  readonly by: 'address' | 'credential';
  /** The `Retry-After` value. */
  readonly seconds: number;
}

/**
 * Bad credentials (API keys, ping tokens) counted per address and per credential. Ask only about a
 * credential already known to be bad: nothing here may stand between a good one and its answer.
 */
export class CredentialFailures {
  readonly #byAddress: AuthFailureLimiter;
  readonly #byCredential: AuthFailureLimiter;

  constructor(limit: AuthFailureLimit) {
    this.#byAddress = new AuthFailureLimiter(limit);
    this.#byCredential = new AuthFailureLimiter(limit);
  }

  /** Entries held, for tests of the memory bound. */
  get size(): { readonly addresses: number; readonly credentials: number } {
    return { addresses: this.#byAddress.size, credentials: this.#byCredential.size };
  }

  /** Why this bad attempt is refused rather than answered, or undefined if it may be answered. */
  refusal(address: string, credential: string | undefined, now: number): FailureRefusal | undefined {
    // The address first: a guesser cycling keys is told what it is being limited for.
    const byAddress = this.#byAddress.blockedFor(address, now);
    if (byAddress !== undefined) return { by: 'address', seconds: byAddress };
    const byCredential = credential === undefined ? undefined : this.#byCredential.blockedFor(digest(credential), now);
    return byCredential === undefined ? undefined : { by: 'credential', seconds: byCredential };
  }

  /** Counts a bad attempt; no credential at all (a missing header) is charged to the address only. */
  fail(address: string, credential: string | undefined, now: number): void {
    this.#byAddress.fail(address, now);
    if (credential !== undefined) this.#byCredential.fail(digest(credential), now);
  }
}

/**
 * Held instead of the credential itself: a caller chooses its length (up to the 16 KiB of a request
 * line), so raw keys would let a full table cost 160 MB, and a bad key is often a real one mistyped.
 */
function digest(credential: string): string {
  return createHash('sha256').update(credential).digest('base64url');
}

/** The peer address of the request; requests through `app.request()` (tests) have no socket and share one. */
export function clientAddress(c: Context<AppEnv>): string {
  return c.env?.incoming?.socket?.remoteAddress ?? 'in-process';
}
