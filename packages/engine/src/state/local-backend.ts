/**
 * The `local` backend: state in one JSON file (default `<root>/.vigil/state.json`), guarded by a lock
 * file beside it (`state.json.lock`), replaced atomically on every write.
 */
import { constants as fsConstants, readlinkSync } from 'node:fs';
import { open, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { removeLeftoverTempFiles, syncDirectory, writeFileAtomically } from './atomic-file.js';
import { parseStateDocument, serialForWrite, serializeState } from './document.js';
import { StateError, isStateError } from './errors.js';
import { acquireLockFile, describeOwner, holdsLock, readLockFile, releaseLockFile, removeLockFile, type LockFingerprint } from './lock-file.js';
import { STEP_LOG_SUFFIX, encodeSteps, replaySteps } from './step-log.js';
import type { JournalStep, LockOptions, LockOwner, StateBackend, StateDocument, StateLock, StateWriteOptions } from './types.js';
import { inTurn } from './in-turn.js';

/**
 * The step log is opened for synchronous data writes where the platform has them, so a step is
 * durable when its one write returns: half the file-system calls of write + fdatasync, and each
 * apply step waits for two of these appends.
 */
const SYNCHRONOUS_LOG_WRITES = fsConstants.O_DSYNC !== undefined;
const LOG_OPEN_FLAGS = SYNCHRONOUS_LOG_WRITES
  ? fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_APPEND | fsConstants.O_DSYNC
  : 'a';

/** Where state lives by default, relative to the project root. */
export const DEFAULT_STATE_PATH = '.vigil/state.json';

/** Appended steps after which the whole document is written again, bounding the log and its replay. */
const CHECKPOINT_STEPS = 5000;

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The stored document and the serial of its checkpoint (the document's serial counts logged steps too). */
interface Stored {
  readonly document: StateDocument;
  readonly checkpointSerial: number;
  /** A step log exists (its steps, if any still apply, are in `document`). */
  readonly hasLog: boolean;
}

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
 * `path` with symbolic links to the state file followed, even to a target that does not exist yet.
 * Writes replace the file by renaming a new one over it, which would replace a link with a regular
 * file and leave its target stale; the lock would sit beside the link, not guarding the target for
 * another project that links to it. So everything is done at the end of the links.
 */
function followLinks(path: string): string {
  let current = path;
  for (let hops = 0; hops < 40; hops += 1) {
    let target: string;
    try {
      target = readlinkSync(current);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // EINVAL: not a link; ENOENT: nothing there yet (or a missing directory, reported when used).
      if (code === 'EINVAL' || code === 'ENOENT' || code === 'ENOTDIR') return current;
      throw new StateError('state-io', `cannot read state ${displayPath(path)}: ${(error as Error).message}`, { cause: error });
    }
    current = resolve(dirname(current), target);
  }
  throw new StateError('state-io', `cannot read state ${displayPath(path)}: it is a symbolic link that leads to itself (a loop)`);
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
 * the next serial, refusing a document of another lineage or a lock taken away by force;
 * `appendSteps()` appends journal steps to `<path>.wal` (see step-log.ts), which `write()` empties.
 */
export function createLocalBackend(options: LocalBackendOptions): StateBackend {
  const path = followLinks(resolve(options.path));
  const lockPath = `${path}.lock`;
  const logPath = `${path}${STEP_LOG_SUFFIX}`;
  // Messages name the path the user configured (the link), which is what they look for.
  const location = displayPath(resolve(options.path));
  const unlockCommand = options.unlockCommand ?? 'vigil state unlock --force';

  async function readStored(): Promise<Stored | undefined> {
    const text = await asStateError(`read state ${location}`, () => readIfExists(path));
    // The first write of a state is always whole, so a log without a checkpoint holds nothing to keep.
    if (text === undefined) return undefined;
    const document = parseStateDocument(text, location);
    const checkpointSerial = document.serial;
    const log = await asStateError(`read state log ${displayPath(logPath)}`, () => readIfExists(logPath));
    if (log !== undefined) replaySteps(document, log, displayPath(logPath));
    return { document, checkpointSerial, hasLog: log !== undefined };
  }

  async function read(): Promise<StateDocument | undefined> {
    return (await readStored())?.document;
  }

  async function lock(lockOptions: LockOptions): Promise<StateLock> {
    const { owner, fingerprint } = await asStateError(`lock state ${location}`, () =>
      acquireLockFile({
        lockPath,
        location,
        timeoutMs: lockOptions.timeoutMs,
        command: lockOptions.command,
        unlockCommand,
        ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
        ...(lockOptions.onWait === undefined ? {} : { onWait: lockOptions.onWait }),
      }),
    );
    try {
      await removeLeftoverTempFiles(path);
      const stored = await readStored();
      return createLock(owner, fingerprint, stored);
    } catch (error) {
      await releaseLockFile(lockPath, owner.id);
      throw error;
    }
  }

  function createLock(owner: LockOwner, fingerprint: LockFingerprint, stored: Stored | undefined): StateLock {
    let serial = stored?.document.serial ?? 0;
    let checkpointSerial = stored?.checkpointSerial;
    let lineage = stored?.document.lineage;
    let stepsSinceCheckpoint = serial - (checkpointSerial ?? 0);
    let log: FileHandle | undefined;
    /**
     * A log is on disk. One left by an earlier run may end in a line cut short by a crash, which an
     * append would glue to its own first line, so such a log is folded into a checkpoint first.
     */
    let logOnDisk = stored?.hasLog ?? false;
    let released = false;
    // Writes run one after another, so with concurrent callers the last write called is the last
    // one on disk and serials stay in call order.
    const run = inTurn();

    async function assertWritable(document: Pick<StateDocument, 'lineage' | 'serial'>, writeOptions: StateWriteOptions = {}): Promise<number> {
      if (released) throw new Error('this is a bug in vigil: state written after its lock was released');
      const nextSerial = serialForWrite({ lineage, serial }, document, { ...writeOptions, location });
      if (!(await holdsLock(lockPath, owner.id, fingerprint))) {
        throw new StateError(
          'state-locked',
          `lost the lock on state ${location} (it was removed, e.g. by vigil state unlock --force); not writing, so whoever holds it now is not overwritten`,
        );
      }
      return nextSerial;
    }

    async function writeNow(document: StateDocument, writeOptions?: StateWriteOptions): Promise<void> {
      const next = { ...document, serial: await assertWritable(document, writeOptions) };
      await asStateError(`write state ${location}`, () => writeFileAtomically(path, `${serializeState(next)}\n`));
      serial = next.serial;
      checkpointSerial = next.serial;
      lineage = next.lineage;
      // Its steps are in the checkpoint now; were this cut short, the new serial makes them stale.
      if (logOnDisk) {
        await closeLog();
        await asStateError(`remove state log ${displayPath(logPath)}`, () => unlink(logPath).catch(ignoreMissing));
        logOnDisk = false;
      }
      stepsSinceCheckpoint = 0;
    }

    function canAppend(): boolean {
      const earlierLog = logOnDisk && !log;
      return checkpointSerial !== undefined && lineage !== undefined && !earlierLog && stepsSinceCheckpoint < CHECKPOINT_STEPS;
    }

    async function appendNow(steps: readonly JournalStep[]): Promise<void> {
      if (!canAppend()) throw new Error('this is a bug in vigil: journal steps appended while the state needs a whole write');
      await assertWritable({ lineage: lineage!, serial });
      const base = checkpointSerial!;
      await asStateError(`append to state log ${displayPath(logPath)}`, async () => {
        if (!log) {
          log = await open(logPath, LOG_OPEN_FLAGS, 0o644);
          logOnDisk = true;
          // The log's directory entry must survive a power loss as its lines do.
          await syncDirectory(dirname(logPath));
        }
        await log.write(encodeSteps(lineage!, base, steps));
        if (!SYNCHRONOUS_LOG_WRITES) await log.datasync();
      });
      serial += steps.length;
      stepsSinceCheckpoint += steps.length;
    }

    async function closeLog(): Promise<void> {
      const handle = log;
      log = undefined;
      await handle?.close();
    }

    return {
      get serial() {
        return serial;
      },
      write(document, writeOptions) {
        return run(() => writeNow(document, writeOptions));
      },
      get canAppendSteps() {
        return canAppend();
      },
      appendSteps(steps) {
        return run(() => appendNow(steps));
      },
      async release() {
        if (released) return;
        released = true;
        await run.settled();
        await closeLog();
        await releaseLockFile(lockPath, owner.id);
      },
    };
  }

  return {
    describe: () => location,
    read,
    lock,
    async forceUnlock(options) {
      // Its locks never expire: only an explicit --force removes one.
      if (options?.onlyExpired) return { removed: false };
      const content = await removeLockFile(lockPath);
      if (content === undefined) return { removed: false };
      return 'owner' in content ? { removed: true, owner: content.owner } : { removed: true };
    },
    async lockHolder() {
      const content = await readLockFile(lockPath);
      if (content === undefined) return undefined;
      return 'owner' in content
        ? { owner: content.owner, description: describeOwner(content.owner) }
        : { description: `an unknown holder (the lock file ${displayPath(lockPath)}, created ${content.createdAt}, names no owner)` };
    },
  };
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}
