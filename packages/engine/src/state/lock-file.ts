/**
 * The local backend's lock: a file next to the state, created exclusively (O_EXCL), holding who took
 * it. Waiting polls it; a lock whose owner process is gone on this host is reported as stale at once
 * (it would never be released), with the command that removes it.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, stat, unlink } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import { dirname, isAbsolute, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatDuration } from './duration.js';
import { StateError } from './errors.js';
import type { LockHolder, LockOwner } from './types.js';

/** What a lock file says: its owner, or that it cannot be read (mid-creation, or damaged). */
export type LockFileContent = { owner: LockOwner } | { unreadable: true; createdAt: string };

export interface AcquireLockOptions {
  lockPath: string;
  /** The state's display location, for messages. */
  location: string;
  timeoutMs: number;
  command: string;
  /** The exact command that removes a stale lock, e.g. `vigil state unlock --force`. */
  unlockCommand: string;
  /** How often to look again while waiting. */
  pollMs?: number;
  /** Called once, when waiting starts, with who holds the lock. */
  onWait?: (holder: LockHolder) => void;
}

function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env['USER'] ?? 'unknown';
  }
}

/**
 * The lock file as created: its inode and change time. While both are unchanged the file is the one
 * we wrote, so checking that the lock is still ours before each state write costs one stat instead of
 * reading the file (four calls), which was a fifth of an apply's CPU. A successor's lock file, made
 * after a forced unlock, differs in change time even if it reuses the inode.
 */
export interface LockFingerprint {
  ino: bigint;
  ctimeNs: bigint;
}

/** Takes the lock or throws a `StateError` (`state-locked` / `state-lock-stale`). */
export async function acquireLockFile(options: AcquireLockOptions): Promise<{ owner: LockOwner; fingerprint: LockFingerprint }> {
  const owner: LockOwner = {
    id: randomUUID(),
    pid: process.pid,
    host: hostname(),
    user: currentUser(),
    command: options.command,
    createdAt: new Date().toISOString(),
  };
  await mkdir(dirname(options.lockPath), { recursive: true });
  const deadline = Date.now() + options.timeoutMs;
  const pollMs = options.pollMs ?? 100;
  let waiting = false;
  for (;;) {
    const fingerprint = await tryCreate(options.lockPath, owner);
    if (fingerprint) return { owner, fingerprint };
    const content = await readLockFile(options.lockPath);
    if (content === undefined) continue; // released between our attempt and our look: try again now
    if ('owner' in content && isDeadOnThisHost(content.owner)) {
      throw new StateError('state-lock-stale', staleMessage(options, content.owner));
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new StateError('state-locked', lockedMessage(options, content));
    if (!waiting) {
      waiting = true;
      options.onWait?.('owner' in content ? { owner: content.owner, description: describeOwner(content.owner) } : { description: `an unknown holder (lock file created ${content.createdAt})` });
    }
    // Jitter keeps two waiters from retrying in lockstep.
    await sleep(Math.min(remaining, pollMs * (0.5 + Math.random())));
  }
}

async function tryCreate(lockPath: string, owner: LockOwner): Promise<LockFingerprint | undefined> {
  let handle;
  try {
    handle = await open(lockPath, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  }
  try {
    await handle.writeFile(`${JSON.stringify(owner, null, 2)}\n`, 'utf8');
    await handle.sync();
    const stats = await handle.stat({ bigint: true });
    return { ino: stats.ino, ctimeNs: stats.ctimeNs };
  } finally {
    await handle.close();
  }
}

/** The lock file's content; `undefined` when there is no lock. */
export async function readLockFile(lockPath: string): Promise<LockFileContent | undefined> {
  let text: string;
  let createdAt: string;
  try {
    [text, createdAt] = await Promise.all([
      readFile(lockPath, 'utf8'),
      stat(lockPath).then((stats) => stats.mtime.toISOString()),
    ]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') {
      // Not something vigil creates, so not something `unlock --force` should delete unasked.
      const shown = relative(process.cwd(), lockPath);
      const where = shown !== '' && !shown.startsWith('..') && !isAbsolute(shown) ? shown : lockPath;
      throw new StateError('state-io', `the state lock ${where} is a directory, not a lock file vigil wrote; if nothing else uses it, remove it yourself (rm -r ${where}) and try again`, {
        cause: error,
      });
    }
    throw error;
  }
  try {
    const owner = JSON.parse(text) as Partial<LockOwner>;
    if (typeof owner.id === 'string' && typeof owner.pid === 'number' && typeof owner.host === 'string') {
      return {
        owner: {
          id: owner.id,
          pid: owner.pid,
          host: owner.host,
          user: String(owner.user ?? 'unknown'),
          command: String(owner.command ?? 'unknown'),
          createdAt: String(owner.createdAt ?? createdAt),
        },
      };
    }
  } catch {
    // An empty or partial file: its writer is between creating it and writing its owner, or died there.
  }
  return { unreadable: true, createdAt };
}

/** Removes the lock only if it is still `ownerId`'s, so a force-unlocked holder cannot remove a successor's. */
export async function releaseLockFile(lockPath: string, ownerId: string): Promise<void> {
  const content = await readLockFile(lockPath);
  if (content !== undefined && 'owner' in content && content.owner.id === ownerId) {
    await unlink(lockPath).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}

/**
 * Whether the lock at `lockPath` is still `ownerId`'s. With the fingerprint taken when it was created,
 * an unchanged file answers from one stat; anything else is decided by reading who holds it.
 */
export async function holdsLock(lockPath: string, ownerId: string, fingerprint?: LockFingerprint): Promise<boolean> {
  if (fingerprint) {
    const stats = await stat(lockPath, { bigint: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (!stats) return false;
    if (stats.ino === fingerprint.ino && stats.ctimeNs === fingerprint.ctimeNs) return true;
  }
  const content = await readLockFile(lockPath);
  return content !== undefined && 'owner' in content && content.owner.id === ownerId;
}

/** Removes the lock whoever holds it, returning what it said. */
export async function removeLockFile(lockPath: string): Promise<LockFileContent | undefined> {
  const content = await readLockFile(lockPath);
  if (content === undefined) return undefined;
  try {
    await unlink(lockPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return content;
}

/**
 * True only when the owner ran on this host and its pid no longer exists. A reused pid makes a dead
 * owner look alive, which errs on the safe side (wait, never steal).
 */
export function isDeadOnThisHost(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return false;
  return !isProcessAlive(owner.pid);
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `pid 4242 on build-7 (user ci, "vigil apply", since 2026-11-22T03:00:00.000Z)` */
export function describeOwner(owner: LockOwner): string {
  return `pid ${owner.pid} on ${owner.host} (user ${owner.user}, "${owner.command}", since ${owner.createdAt})`;
}

function lockedMessage(options: AcquireLockOptions, content: LockFileContent): string {
  const waited =
    options.timeoutMs > 0
      ? `gave up after waiting ${formatDuration(options.timeoutMs)} (--lock-timeout)`
      : 'retry when it is done, or wait for it with --lock-timeout (e.g. --lock-timeout 5m)';
  if ('unreadable' in content) {
    return (
      `state ${options.location} is locked (lock file ${options.lockPath}, created ${content.createdAt}), but the lock names no owner; ` +
      `${waited}. If no vigil is running on this state, remove the lock with: ${options.unlockCommand}`
    );
  }
  const elsewhere =
    content.owner.host === hostname()
      ? ''
      : ` If that process is gone, remove the lock with: ${options.unlockCommand}`;
  return `state ${options.location} is locked by ${describeOwner(content.owner)}; ${waited}.${elsewhere}`;
}

function staleMessage(options: AcquireLockOptions, owner: LockOwner): string {
  return (
    `state ${options.location} is locked by ${describeOwner(owner)}, but that process is no longer running ` +
    `(it crashed or was killed), so the lock is stale. If no other vigil is using this state, remove the lock with: ${options.unlockCommand}`
  );
}
