/**
 * Waiting for a state lock held elsewhere, shared by the backends whose lock lives on a server
 * (postgres, s3): poll with jitter and a growing pause, tell the caller once who it waits for, and
 * fail naming the holder, as the local and http backends do. A holder whose process is gone on this
 * host is reported as stale at once, with the command that breaks the lock; so is one whose lock the
 * server reports as expired (not renewed in time), by `lockedError`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { formatDuration } from './duration.js';
import { StateError } from './errors.js';
import { isDeadOnThisHost } from './lock-file.js';
import type { LockHolder, LockOptions } from './types.js';

const MAX_POLL_MS = 2000;

/** `holder` absent: the lock was released between the attempt and the look at who held it; try again now. */
export type LockAttempt<T> = { taken: true; value: T } | { taken: false; holder?: LockHolder | undefined };

export interface LockWaitOptions<T> extends LockOptions {
  /** `state <location>` in messages. */
  location: string;
  unlockCommand: string;
  /** One attempt to take the lock. */
  attempt(): Promise<LockAttempt<T>>;
  /** The first pause between two attempts (ms); it doubles up to 2 s. */
  pollMs?: number;
  /**
   * How long a holder whose process is dead may keep the lock before it is reported stale (ms).
   * A server that releases a dead holder's lock itself (PostgreSQL ends its session) needs a moment
   * to notice; default 0: stale at once.
   */
  deadHolderGraceMs?: number;
}

export function lockedError(options: { location: string; unlockCommand: string; timeoutMs: number }, holder: LockHolder): StateError {
  if (holder.owner && isDeadOnThisHost(holder.owner)) {
    return new StateError(
      'state-lock-stale',
      `state ${options.location} is locked by ${holder.description}, but that process is no longer running (it crashed or was killed), so the lock is stale. ` +
        `If no other vigil is using this state, remove the lock with: ${options.unlockCommand}`,
    );
  }
  if (holder.expired && holder.expiresAt !== undefined) {
    return new StateError(
      'state-lock-stale',
      `state ${options.location} is locked by ${holder.description}, but that lock expired at ${holder.expiresAt} without being renewed (a running vigil renews its lock), ` +
        `so it is stale: its holder was killed or lost its connection. If no other vigil is using this state, remove the lock with: ${options.unlockCommand}`,
    );
  }
  const waited =
    options.timeoutMs > 0
      ? `gave up after waiting ${formatDuration(options.timeoutMs)} (--lock-timeout)`
      : 'retry when it is done, or wait for it with --lock-timeout (e.g. --lock-timeout 5m)';
  return new StateError('state-locked', `state ${options.location} is locked by ${holder.description}; ${waited}. If that process is gone, remove the lock with: ${options.unlockCommand}`);
}

/** Takes the lock, waiting up to `timeoutMs`; resolves to what the successful attempt returned. */
export async function waitForLock<T>(options: LockWaitOptions<T>): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let pollMs = options.pollMs ?? 250;
  let waiting = false;
  let deadSince: number | undefined;
  for (;;) {
    const attempt = await options.attempt();
    if (attempt.taken) return attempt.value;
    if (attempt.holder === undefined) {
      if (Date.now() >= deadline + 1000) throw lockedError(options, { description: 'a holder that never finished taking it' });
      // Nobody to name yet: a short pause keeps a flapping lock from spinning this loop.
      await sleep(10);
      continue;
    }
    const now = Date.now();
    const dead = attempt.holder.owner !== undefined && isDeadOnThisHost(attempt.holder.owner);
    deadSince = dead ? (deadSince ?? now) : undefined;
    const staleNow = deadSince !== undefined && now - deadSince >= (options.deadHolderGraceMs ?? 0);
    const remaining = deadline - now;
    // A dead holder is waited for only through its grace, whatever the timeout.
    if (staleNow || (remaining <= 0 && !dead)) throw lockedError(options, attempt.holder);
    if (!waiting && !dead) {
      waiting = true;
      options.onWait?.(attempt.holder);
    }
    // Jitter keeps two waiters from asking in lockstep; the doubling spares the server.
    await sleep(Math.max(10, Math.min(dead ? 100 : Math.max(remaining, 0), pollMs * (0.5 + Math.random()))));
    pollMs = Math.min(MAX_POLL_MS, pollMs * 2);
  }
}
