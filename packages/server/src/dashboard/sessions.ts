/**
 * Signed-in dashboard sessions, held in this process's memory.
 *
 * A session remembers the accounts the API key reached at sign-in and the one chosen, never the key
 * itself: nothing the dashboard does needs the key again, so there is no copy of it to leak through
 * a log line, a heap dump or an error message. Sessions end at sign-out, after `IDLE_MS` without a
 * request, after `LIFETIME_MS` in any case, and when the service restarts (then everyone signs in
 * again, which is what an operator who just changed the accounts file wants).
 *
 * The id sent in the cookie is 32 random bytes; the table is keyed by its SHA-256, so even the
 * process's own memory does not hold a cookie that could be replayed. Every session also carries
 * its own CSRF token, which every form of the signed-in pages sends back.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { BoundedMap } from '../bounded-map.js';

export const IDLE_MS = 8 * 3_600_000;
export const LIFETIME_MS = 7 * 24 * 3_600_000;
/** Sessions kept at once; the least recently used is forgotten first. */
export const MAX_SESSIONS = 10_000;

export interface Session {
  /** The accounts the key belonged to at sign-in, its own first. */
  readonly accountIds: readonly string[];
  /** The account the pages show; one of `accountIds`. */
  accountId: string;
  /** Sent back by every form of the signed-in pages. */
  readonly csrfToken: string;
  readonly createdMs: number;
  lastSeenMs: number;
}

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

function digest(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

/** Whether two tokens are equal, in time that does not depend on where they differ. */
export function sameToken(expected: string, given: string | undefined | null): boolean {
  if (typeof given !== 'string' || given === '') return false;
  const a = Buffer.from(digest(expected));
  const b = Buffer.from(digest(given));
  return timingSafeEqual(a, b);
}

export class SessionStore {
  readonly #sessions = new BoundedMap<string, Session>(MAX_SESSIONS);

  /** Opens a new session under a new id: an id known before sign-in never becomes a signed-in one. */
  create(accountIds: readonly string[], nowMs: number): { id: string; session: Session } {
    if (accountIds.length === 0) throw new Error('this is a bug in vigil: a session needs at least one account');
    const id = randomToken();
    const session: Session = { accountIds: [...accountIds], accountId: accountIds[0]!, csrfToken: randomToken(), createdMs: nowMs, lastSeenMs: nowMs };
    this.#sessions.set(digest(id), session);
    return { id, session };
  }

  /** The live session of a cookie's id, its idle clock restarted; undefined when unknown or expired. */
  get(id: string | undefined, nowMs: number): Session | undefined {
    if (!id) return undefined;
    const key = digest(id);
    const session = this.#sessions.get(key);
    if (!session) return undefined;
    if (nowMs - session.lastSeenMs >= IDLE_MS || nowMs - session.createdMs >= LIFETIME_MS) {
      this.#sessions.delete(key);
      return undefined;
    }
    session.lastSeenMs = nowMs;
    return session;
  }

  end(id: string | undefined): void {
    if (id) this.#sessions.delete(digest(id));
  }

  get size(): number {
    return this.#sessions.size;
  }
}
