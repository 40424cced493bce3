/**
 * The `local` backend: state in one JSON file (default `<root>/.vigil/state.json`), guarded by a lock
 * file beside it (`state.json.lock`), replaced atomically on every write.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { removeLeftoverTempFiles, writeFileAtomically } from './atomic-file.js';
import { parseStateDocument, serializeState } from './document.js';
import { StateError, isStateError } from './errors.js';
import { acquireLockFile, holdsLock, releaseLockFile, removeLockFile } from './lock-file.js';
import type { LockOwner, StateBackend, StateDocument, StateLock } from './types.js';

/** Where state lives by default, relative to the project root. */
export const DEFAULT_STATE_PATH = '.vigil/state.json';

export interface LocalBackendOptions {
  /** The state file; relative paths resolve against the current directory. */
  path: string;
  /** The command that removes a stale lock, quoted in lock errors. */
  unlockCommand?: string;
  /** How often a waiting lock looks again (ms). */
  pollMs?: number;
}

/** Relative to the current directory when inside it (what a user can paste), absolute otherwise. */
function displayPath(path: string): string {
  const fromHere = relative(process.cwd(), path);
  return fromHere !== '' && !fromHere.startsWith('..') && !isAbsolute(fromHere) ? fromHere : path;
}

/**
 * A file-system failure (permissions, a full disk, a path through a file) is the user's to fix, so it
 * becomes a `StateError` saying what vigil was doing and where.
 */
async function asStateError<T>(doing: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isStateError(error) || typeof (error as NodeJS.ErrnoException).code !== 'string') throw error;
    throw new StateError('state-io', `cannot ${doing}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * The `local` backend. `lock()` creates `<path>.lock` exclusively and waits for a live holder up to
 * the timeout; `write()` replaces the file atomically (temp + fsync + rename + directory fsync) with
 * the next serial, refusing a document of another lineage or a lock taken away by force.
 */
export function createLocalBackend(options: LocalBackendOptions): StateBackend {
  const path = resolve(options.path);
  const lockPath = `${path}.lock`;
  const location = displayPath(path);
  const unlockCommand = options.unlockCommand ?? 'vigil state unlock --force';

  async function read(): Promise<StateDocument | undefined> {
    const text = await asStateError(`read state ${location}`, async () => {
      try {
        return await readFile(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    });
    return text === undefined ? undefined : parseStateDocument(text, location);
  }

  async function lock(lockOptions: { timeoutMs: number; command: string }): Promise<StateLock> {
    const owner = await asStateError(`lock state ${location}`, () =>
      acquireLockFile({
        lockPath,
        location,
        timeoutMs: lockOptions.timeoutMs,
        command: lockOptions.command,
        unlockCommand,
        ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
      }),
    );
    try {
      await removeLeftoverTempFiles(path);
      const stored = await read();
      return createLock(owner, stored);
    } catch (error) {
      await releaseLockFile(lockPath, owner.id);
      throw error;
    }
  }

  function createLock(owner: LockOwner, stored: StateDocument | undefined): StateLock {
    let serial = stored?.serial ?? 0;
    let lineage = stored?.lineage;
    let released = false;
    // Writes run one after another, so with concurrent callers the last write called is the last
    // one on disk and serials stay in call order.
    let queue: Promise<void> = Promise.resolve();

    async function writeNow(document: StateDocument): Promise<void> {
      if (released) throw new Error('this is a bug in vigil: state written after its lock was released');
      if (lineage !== undefined && document.lineage !== lineage) {
        throw new StateError(
          'state-lineage-mismatch',
          `refusing to overwrite state ${location} (lineage ${lineage}) with a document of lineage ${document.lineage}: they belong to different projects or targets`,
        );
      }
      if (!(await holdsLock(lockPath, owner.id))) {
        throw new StateError(
          'state-locked',
          `lost the lock on state ${location} (it was removed, e.g. by vigil state unlock --force); not writing, so whoever holds it now is not overwritten`,
        );
      }
      const next = { ...document, serial: serial + 1 };
      await asStateError(`write state ${location}`, () => writeFileAtomically(path, `${serializeState(next)}\n`));
      serial = next.serial;
      lineage = next.lineage;
    }

    return {
      get serial() {
        return serial;
      },
      write(document) {
        const result = queue.then(() => writeNow(document));
        queue = result.catch(() => undefined);
        return result;
      },
      async release() {
        if (released) return;
        released = true;
        await queue;
        await releaseLockFile(lockPath, owner.id);
      },
    };
  }

  return {
    describe: () => location,
    read,
    lock,
    async forceUnlock() {
      const content = await removeLockFile(lockPath);
      if (content === undefined) return { removed: false };
      return 'owner' in content ? { removed: true, owner: content.owner } : { removed: true };
    },
  };
}
