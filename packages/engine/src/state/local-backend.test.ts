import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyState } from './document.js';
import { isStateError, type StateError } from './errors.js';
import { createLocalBackend } from './local-backend.js';
import { readLockFile } from './lock-file.js';
import type { LockOwner, StateDocument } from './types.js';

const CHILD = fileURLToPath(new URL('./test-support/state-child.ts', import.meta.url));
const TARGET = { baseUrl: 'http://127.0.0.1:4010', accountId: 'acc-1' };

let directory: string;
let statePath: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'vigil-state-'));
  statePath = join(directory, '.vigil', 'state.json');
});

afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await rm(directory, { recursive: true, force: true });
});

function location(): string {
  return relative(process.cwd(), statePath).startsWith('..') ? statePath : relative(process.cwd(), statePath);
}

function withResource(document: StateDocument, index: number): StateDocument {
  return {
    ...document,
    resources: { ...document.resources, [`api-check.c${index}`]: { kind: 'api-check', remoteId: index, applied: {}, dependsOn: [] } },
  };
}

async function caught(promise: Promise<unknown>): Promise<StateError> {
  try {
    await promise;
  } catch (error) {
    if (isStateError(error)) return error;
    throw error;
  }
  throw new Error('expected a StateError, but the call succeeded');
}

function startChild(mode: 'hold' | 'write-loop'): { child: ChildProcess; lines: string[]; waitForLine: (predicate: (line: string) => boolean) => Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, mode, statePath], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines: string[] = [];
  const waiters: Array<{ predicate: (line: string) => boolean; resolve: (line: string) => void }> = [];
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      for (const waiter of waiters.splice(0)) {
        if (waiter.predicate(line)) waiter.resolve(line);
        else waiters.push(waiter);
      }
    }
  });
  const waitForLine = (predicate: (line: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const seen = lines.find(predicate);
      if (seen !== undefined) return resolve(seen);
      waiters.push({ predicate, resolve });
      child.once('exit', (code, signal) => reject(new Error(`child exited (${code ?? signal}) before the expected line`)));
    });
  return { child, lines, waitForLine };
}

async function lockOwner(): Promise<LockOwner> {
  const content = await readLockFile(`${statePath}.lock`);
  if (content === undefined || !('owner' in content)) throw new Error('expected a lock with an owner');
  return content.owner;
}

describe('local backend: reading and writing', () => {
  it('reads no document before the first write', async () => {
    expect(await createLocalBackend({ path: statePath }).read()).toBeUndefined();
  });

  it('stores each write with the next serial, leaving the given document unchanged', async () => {
    const backend = createLocalBackend({ path: statePath });
    const lock = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    const document = emptyState({ project: 'shop', target: TARGET });
    await lock.write(document);
    await lock.write(withResource(document, 1));
    await lock.release();
    expect(document.serial).toBe(0);
    expect(lock.serial).toBe(2);
    const stored = await backend.read();
    expect(stored?.serial).toBe(2);
    expect(Object.keys(stored?.resources ?? {})).toEqual(['api-check.c1']);
  });

  it('continues the serial of the stored document in a later lock', async () => {
    const backend = createLocalBackend({ path: statePath });
    const first = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    await first.write(emptyState({ project: 'shop', target: TARGET }));
    await first.release();
    const second = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    expect(second.serial).toBe(1);
    await second.write((await backend.read())!);
    await second.release();
    expect((await backend.read())?.serial).toBe(2);
  });

  it('lands writes made without awaiting each other in the order they were made', async () => {
    const backend = createLocalBackend({ path: statePath });
    const lock = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    let document = emptyState({ project: 'shop', target: TARGET });
    const writes: Promise<void>[] = [];
    for (let index = 0; index < 20; index++) {
      document = withResource(document, index);
      writes.push(lock.write(document));
    }
    await Promise.all(writes);
    await lock.release();
    const stored = await backend.read();
    expect(stored?.serial).toBe(20);
    expect(Object.keys(stored?.resources ?? {})).toHaveLength(20);
  });

  it('refuses to overwrite a state with a document of another lineage', async () => {
    const backend = createLocalBackend({ path: statePath });
    const lock = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    const original = emptyState({ project: 'shop', target: TARGET });
    await lock.write(original);
    const other = emptyState({ project: 'shop', target: TARGET });
    const error = await caught(lock.write(other));
    await lock.release();
    expect(error.code).toBe('state-lineage-mismatch');
    expect(error.message).toBe(
      `refusing to overwrite state ${location()} (lineage ${original.lineage}) with a document of lineage ${other.lineage}: they belong to different projects or targets`,
    );
  });

  it('reports a corrupt state file by name on read and on lock, and leaves it untouched', async () => {
    const backend = createLocalBackend({ path: statePath });
    const lock = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    await lock.release();
    await writeFile(statePath, '{"version": 1, "lineage": ');
    const expected = `state file ${location()} is not valid JSON`;
    expect((await caught(backend.read())).message).toContain(expected);
    expect((await caught(backend.lock({ timeoutMs: 0, command: 'vigil apply' }))).message).toContain(expected);
    expect(await readFile(statePath, 'utf8')).toBe('{"version": 1, "lineage": ');
    // The failed lock attempt did not leave its lock behind.
    expect(await readLockFile(`${statePath}.lock`)).toBeUndefined();
  });

  it('reports a file-system failure as a state error saying what it was doing', async () => {
    await writeFile(join(directory, 'not-a-directory'), '');
    const backend = createLocalBackend({ path: join(directory, 'not-a-directory', 'state.json') });
    const error = await caught(backend.lock({ timeoutMs: 0, command: 'vigil apply' }));
    expect(error.code).toBe('state-io');
    expect(error.message).toMatch(/^cannot lock state .*not-a-directory\/state\.json: (EEXIST|ENOTDIR)/);
  });

  it('removes temporary files left by a killed writer when it takes the lock', async () => {
    const backend = createLocalBackend({ path: statePath });
    const lock = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    await lock.release();
    await writeFile(join(directory, '.vigil', '.state.json.999999.abcdef.tmp'), '{"half');
    const again = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    await again.release();
    expect(await readdir(join(directory, '.vigil'))).toEqual([]);
  });
});

describe('local backend: the lock', () => {
  it('records pid, host, user, command and time in the lock file while held, and removes it on release', async () => {
    const backend = createLocalBackend({ path: statePath });
    const lock = await backend.lock({ timeoutMs: 0, command: 'vigil state mv a b' });
    const owner = await lockOwner();
    expect(owner).toMatchObject({ pid: process.pid, host: hostname(), user: userInfo().username, command: 'vigil state mv a b' });
    expect(Date.parse(owner.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    await lock.release();
    expect(await readLockFile(`${statePath}.lock`)).toBeUndefined();
  });

  it('fails at once with a timeout of 0, naming the owner and how to wait', async () => {
    const backend = createLocalBackend({ path: statePath });
    const held = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    const owner = await lockOwner();
    const error = await caught(backend.lock({ timeoutMs: 0, command: 'vigil plan' }));
    await held.release();
    expect(error.code).toBe('state-locked');
    expect(error.message).toBe(
      `state ${location()} is locked by pid ${process.pid} on ${hostname()} (user ${owner.user}, "vigil apply", since ${owner.createdAt}); ` +
        'retry when it is done, or wait for it with --lock-timeout (e.g. --lock-timeout 5m).',
    );
  });

  it('waits up to the timeout, then fails saying how long it waited', async () => {
    const backend = createLocalBackend({ path: statePath, pollMs: 20 });
    const held = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    const owner = await lockOwner();
    const error = await caught(backend.lock({ timeoutMs: 300, command: 'vigil plan' }));
    await held.release();
    expect(error.message).toBe(
      `state ${location()} is locked by pid ${process.pid} on ${hostname()} (user ${owner.user}, "vigil apply", since ${owner.createdAt}); ` +
        'gave up after waiting 300ms (--lock-timeout).',
    );
  });

  it('makes a second process wait for the first and take the lock once it is released', async () => {
    const holder = startChild('hold');
    await holder.waitForLine((line) => line === 'locked');
    const backend = createLocalBackend({ path: statePath, pollMs: 20 });
    const refused = await caught(backend.lock({ timeoutMs: 0, command: 'vigil apply' }));
    expect(refused.message).toContain(`is locked by pid ${holder.child.pid} on ${hostname()}`);

    const waiting = backend.lock({ timeoutMs: 10_000, command: 'vigil apply' });
    setTimeout(() => holder.child.stdin?.end(), 200);
    const lock = await waiting;
    expect((await lockOwner()).pid).toBe(process.pid);
    await lock.release();
  });

  it('reports a lock whose owner was killed as stale at once, with the force-unlock command', async () => {
    const holder = startChild('hold');
    await holder.waitForLine((line) => line === 'locked');
    const owner = await lockOwner();
    const exited = new Promise((resolve) => holder.child.once('exit', resolve));
    holder.child.kill('SIGKILL');
    await exited;

    const backend = createLocalBackend({ path: statePath, unlockCommand: 'vigil state unlock --force --config site/vigil.config.ts' });
    // A wait far beyond the test's own timeout: a backend that polled a dead owner's lock instead of
    // reporting it at once would never get here.
    const error = await caught(backend.lock({ timeoutMs: 24 * 3_600_000, command: 'vigil apply' }));
    expect(error.code).toBe('state-lock-stale');
    expect(error.message).toBe(
      `state ${location()} is locked by pid ${owner.pid} on ${hostname()} (user ${owner.user}, "vigil apply", since ${owner.createdAt}), ` +
        'but that process is no longer running (it crashed or was killed), so the lock is stale. ' +
        'If no other vigil is using this state, remove the lock with: vigil state unlock --force --config site/vigil.config.ts',
    );

    expect(await backend.forceUnlock()).toEqual({ removed: true, owner });
    const lock = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    await lock.release();
  });

  it('does not report a lock held on another host as stale, and suggests force-unlock if its owner is gone', async () => {
    const lockPath = `${statePath}.lock`;
    const backend = createLocalBackend({ path: statePath });
    await backend.lock({ timeoutMs: 0, command: 'x' }).then((lock) => lock.release());
    const owner: LockOwner = { id: 'other', pid: 999_999_999, host: 'build-7', user: 'ci', command: 'vigil apply', createdAt: '2026-11-22T03:00:00.000Z' };
    await writeFile(lockPath, JSON.stringify(owner));
    const error = await caught(backend.lock({ timeoutMs: 0, command: 'vigil plan' }));
    expect(error.message).toBe(
      `state ${location()} is locked by pid 999999999 on build-7 (user ci, "vigil apply", since 2026-11-22T03:00:00.000Z); ` +
        'retry when it is done, or wait for it with --lock-timeout (e.g. --lock-timeout 5m). ' +
        'If that process is gone, remove the lock with: vigil state unlock --force',
    );
  });

  it('reports a lock file that names no owner', async () => {
    const backend = createLocalBackend({ path: statePath });
    await backend.lock({ timeoutMs: 0, command: 'x' }).then((lock) => lock.release());
    await writeFile(`${statePath}.lock`, '');
    const error = await caught(backend.lock({ timeoutMs: 0, command: 'vigil plan' }));
    expect(error.message).toMatch(
      /^state .*state\.json is locked \(lock file .*state\.json\.lock, created [0-9T:.Z-]+\), but the lock names no owner; retry when it is done, or wait for it with --lock-timeout \(e\.g\. --lock-timeout 5m\)\. If no vigil is running on this state, remove the lock with: vigil state unlock --force$/,
    );
    expect(await backend.forceUnlock()).toEqual({ removed: true });
    expect(await backend.forceUnlock()).toEqual({ removed: false });
  });

  it('after a force-unlock, the old holder neither writes nor removes its successor\'s lock', async () => {
    const backend = createLocalBackend({ path: statePath });
    const old = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    await backend.forceUnlock();
    const successor = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    const successorOwner = await lockOwner();

    const error = await caught(old.write(emptyState({ project: 'shop', target: TARGET })));
    expect(error.message).toBe(
      `lost the lock on state ${location()} (it was removed, e.g. by vigil state unlock --force); not writing, so whoever holds it now is not overwritten`,
    );
    await old.release();
    expect(await lockOwner()).toEqual(successorOwner);
    expect(await backend.read()).toBeUndefined();
    await successor.release();
  });
});

describe('local backend: crash safety', () => {
  it('leaves a readable document, old or new, whenever a writer is killed', async () => {
    const backend = createLocalBackend({ path: statePath });
    for (let trial = 0; trial < 10; trial++) {
      const writer = startChild('write-loop');
      const target = 3 + Math.floor(Math.random() * 15);
      const lastSeen = Number(await writer.waitForLine((line) => Number(line) >= target));
      // Land the kill at a random moment inside the following writes.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 15));
      const exited = new Promise((resolve) => writer.child.once('exit', resolve));
      writer.child.kill('SIGKILL');
      await exited;

      const stored = await backend.read();
      expect(stored).toBeDefined();
      expect(stored!.serial).toBeGreaterThanOrEqual(lastSeen);
      // Every write added exactly one resource, so a consistent document has as many as its serial.
      expect(Object.keys(stored!.resources)).toHaveLength(stored!.serial);
      expect((await backend.forceUnlock()).removed).toBe(true);
    }
  }, 60_000);
});

describe('local backend with a symlinked state file', () => {
  it('writes and locks through the link: the link stays a link, its target gets the state and the lock', async () => {
    const { lstat, mkdir, symlink } = await import('node:fs/promises');
    const shared = join(directory, 'shared');
    await mkdir(shared);
    await mkdir(join(directory, '.vigil'));
    await symlink(join('..', 'shared', 'state.json'), statePath);
    const backend = createLocalBackend({ path: statePath });
    const lock = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    expect(await readLockFile(join(shared, 'state.json.lock'))).toBeDefined();
    expect(await readdir(join(directory, '.vigil'))).toEqual(['state.json']);
    await lock.write(withResource(emptyState({ project: 'shop', target: TARGET }), 1));
    await lock.write(withResource((await backend.read())!, 2));
    await lock.release();

    expect((await lstat(statePath)).isSymbolicLink()).toBe(true);
    const stored = JSON.parse(await readFile(join(shared, 'state.json'), 'utf8')) as StateDocument;
    expect(Object.keys(stored.resources)).toEqual(['api-check.c1', 'api-check.c2']);
    expect((await backend.read())?.serial).toBe(2);
    expect(await readdir(shared)).toEqual(['state.json']);
  });

  it('refuses a link that leads to itself, naming it', async () => {
    const { mkdir, symlink } = await import('node:fs/promises');
    await mkdir(join(directory, '.vigil'));
    await symlink('state.json', statePath);
    expect(() => createLocalBackend({ path: statePath })).toThrow(`cannot read state ${location()}: it is a symbolic link that leads to itself (a loop)`);
  });
});

describe('local backend with a directory where the lock file goes', () => {
  it('refuses to lock or force-unlock, saying what is there', async () => {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(`${statePath}.lock`, { recursive: true });
    const backend = createLocalBackend({ path: statePath });
    const message = `the state lock ${location()}.lock is a directory, not a lock file vigil wrote; if nothing else uses it, remove it yourself (rm -r ${location()}.lock) and try again`;
    await expect(backend.forceUnlock()).rejects.toThrow(message);
    await expect(backend.lock({ timeoutMs: 0, command: 'vigil apply' })).rejects.toThrow(message);
  });
});
