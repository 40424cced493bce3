import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateWriter } from '../apply/state-writer.js';
import { emptyState } from './document.js';
import { isStateError } from './errors.js';
import { newJournalEntry } from './journal.js';
import { createLocalBackend } from './local-backend.js';
import { encodeSteps } from './step-log.js';
import type { JournalStep, StateDocument, StateResource } from './types.js';

const TARGET = { baseUrl: 'http://127.0.0.1:4010', accountId: 'acc-1' };

let directory: string;
let statePath: string;
let logPath: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'vigil-step-log-'));
  statePath = join(directory, 'state.json');
  logPath = `${statePath}.wal`;
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const resource = (remoteId: number): StateResource => ({ kind: 'api-check', remoteId, applied: { name: `c${remoteId}` }, dependsOn: [] });

/** A begin and its complete that records `api-check.c<n>`. */
function createSteps(n: number): JournalStep[] {
  const entry = newJournalEntry({ operation: 'create', address: `api-check.c${n}`, kind: 'api-check', idempotencyKey: `key-${n}` });
  return [
    { type: 'begin', entry },
    { type: 'complete', id: entry.id, address: entry.address, resource: resource(n) },
  ];
}

/** A stored checkpoint (serial 1) with nothing in it, and an open lock on it. */
async function checkpointed() {
  const backend = createLocalBackend({ path: statePath });
  const lock = await backend.lock({ timeoutMs: 0, command: 'test' });
  const document = emptyState({ project: 'p', target: TARGET });
  await lock.write(document);
  return { backend, lock, document: { ...document, serial: lock.serial } };
}

const exists = (path: string) => stat(path).then(() => true, () => false);
const logLocation = () => (relative(process.cwd(), logPath).startsWith('..') ? logPath : relative(process.cwd(), logPath));

describe('local backend: the step log', () => {
  it('appends steps without rewriting state.json, and reads them back applied, one serial per step', async () => {
    const { backend, lock, document } = await checkpointed();
    const checkpoint = await readFile(statePath, 'utf8');
    await lock.appendSteps!(createSteps(1));
    await lock.appendSteps!(createSteps(2));
    expect(await readFile(statePath, 'utf8')).toBe(checkpoint);
    expect(lock.serial).toBe(5);
    const read = await backend.read();
    expect(read).toMatchObject({ serial: 5, journal: [], resources: { 'api-check.c1': resource(1), 'api-check.c2': resource(2) } });
    await lock.release();
  });

  it('keeps a begun, unfinished operation pending, as recovery needs it', async () => {
    const { backend, lock, document } = await checkpointed();
    const [begin] = createSteps(1);
    await lock.appendSteps!([begin!]);
    await lock.release();
    const read = await backend.read();
    expect(read?.journal).toEqual([(begin as { entry: unknown }).entry]);
    expect(read?.resources).toEqual({});
  });

  it('folds the log into state.json on a whole write and removes it', async () => {
    const { backend, lock, document } = await checkpointed();
    await lock.appendSteps!(createSteps(1));
    const withSteps = (await backend.read())!;
    await lock.write(withSteps);
    expect(await exists(logPath)).toBe(false);
    expect(JSON.parse(await readFile(statePath, 'utf8'))).toMatchObject({ serial: 4, resources: { 'api-check.c1': resource(1) } });
    await lock.release();
  });

  it('refuses an append once the lock was forced away and taken by a successor, leaving its log alone', async () => {
    const { backend, lock } = await checkpointed();
    await lock.appendSteps!(createSteps(1));
    await backend.forceUnlock();
    const successor = await backend.lock({ timeoutMs: 0, command: 'test' });
    const log = await readFile(logPath, 'utf8');
    await expect(lock.appendSteps!(createSteps(2))).rejects.toThrow(/^lost the lock on state .*state\.json \(it was removed, e\.g\. by vigil state unlock --force\); not writing/);
    expect(await readFile(logPath, 'utf8')).toBe(log);
    await lock.release();
    await successor.release();
  });

  it('cannot append before a checkpoint exists to extend', async () => {
    const backend = createLocalBackend({ path: statePath });
    const lock = await backend.lock({ timeoutMs: 0, command: 'test' });
    expect(lock.canAppendSteps).toBe(false);
    await expect(lock.appendSteps!(createSteps(1))).rejects.toThrow('this is a bug in vigil: journal steps appended while the state needs a whole write');
    await lock.write(emptyState({ project: 'p', target: TARGET }));
    expect(lock.canAppendSteps).toBe(true);
    await lock.release();
  });

  it('drops a last line cut short by a crash: that step was never acknowledged', async () => {
    const { backend, lock, document } = await checkpointed();
    await lock.appendSteps!(createSteps(1));
    await lock.release();
    const torn = encodeSteps(document.lineage, document.serial, createSteps(2)).slice(0, 40);
    await appendFile(logPath, torn);
    const read = await backend.read();
    expect(Object.keys(read!.resources)).toEqual(['api-check.c1']);
    expect(read!.journal).toEqual([]);
  });

  it('wants a whole write before appending to a log left by an earlier run, so a torn line is never glued to a new one', async () => {
    const first = await checkpointed();
    await first.lock.appendSteps!(createSteps(1));
    await first.lock.release();
    await appendFile(logPath, '{"lineage":"torn');

    const lock = await first.backend.lock({ timeoutMs: 0, command: 'test' });
    expect(lock.canAppendSteps).toBe(false);
    await lock.write((await first.backend.read())!);
    expect(await exists(logPath)).toBe(false);
    await lock.appendSteps!(createSteps(2));
    await lock.release();
    expect(Object.keys((await first.backend.read())!.resources).sort()).toEqual(['api-check.c1', 'api-check.c2']);
  });

  it('skips lines of an older checkpoint left by a crash between the checkpoint and removing the log', async () => {
    const { backend, lock, document } = await checkpointed();
    await lock.release();
    // Lines that extend serial 0, while state.json is at serial 1.
    await writeFile(logPath, encodeSteps(document.lineage, 0, createSteps(9)));
    expect(await backend.read()).toMatchObject({ serial: 1, resources: {}, journal: [] });
  });

  it('reports a damaged line that is not the last by its line number, and leaves the files untouched', async () => {
    const { backend, lock, document } = await checkpointed();
    await lock.appendSteps!(createSteps(1));
    await lock.release();
    const lines = (await readFile(logPath, 'utf8')).split('\n');
    await writeFile(logPath, [lines[0], '{"lineage": 12}', lines[1], ''].join('\n'));
    const error = await backend.read().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(isStateError(error)).toBe(true);
    expect((error as Error).message).toBe(
      `state log ${logLocation()} line 2 is not a journal step (lineage: Invalid input: expected string, received number); vigil left it untouched: fix or remove it (removing it forgets the steps it holds)`,
    );
  });

  it('reports a step that cannot follow the state (completing an operation never begun)', async () => {
    const { backend, lock, document } = await checkpointed();
    await lock.release();
    await writeFile(logPath, encodeSteps(document.lineage, document.serial, [{ type: 'complete', id: 'never-begun' }]));
    await expect(backend.read()).rejects.toThrow(
      `state log ${logLocation()} line 1 does not follow the state: no pending journal entry never-begun; vigil left it untouched: fix or remove it (removing it forgets the steps it holds)`,
    );
  });
});

describe('StateWriter over the step log', () => {
  it('appends journal steps, writes whole on checkpoint, and reads back the same document', async () => {
    const { backend, lock, document } = await checkpointed();
    const writer = new StateWriter(lock, document);
    const entries = [1, 2, 3].map((n) => newJournalEntry({ operation: 'create', address: `api-check.c${n}`, kind: 'api-check' }));
    await Promise.all(entries.map((entry) => writer.begin(entry)));
    await Promise.all(entries.map((entry, index) => writer.complete(entry.id, { address: entry.address, resource: resource(index + 1) })));
    expect(await exists(logPath)).toBe(true);
    expect(await backend.read()).toEqual(writer.document);

    await writer.checkpoint();
    expect(await exists(logPath)).toBe(false);
    const stored = JSON.parse(await readFile(statePath, 'utf8')) as StateDocument;
    expect(stored).toEqual(writer.document);
    expect(Object.keys(stored.resources)).toEqual(['api-check.c1', 'api-check.c2', 'api-check.c3']);
    await lock.release();
  });

  it('never logs a step that is already in a whole write (a fresh state, steps arriving during its first write)', async () => {
    const backend = createLocalBackend({ path: statePath });
    const lock = await backend.lock({ timeoutMs: 0, command: 'test' });
    const writer = new StateWriter(lock, emptyState({ project: 'p', target: TARGET }));
    const entries = Array.from({ length: 20 }, (_, n) => newJournalEntry({ operation: 'create', address: `api-check.c${n}`, kind: 'api-check' }));
    // Not awaited one by one: later begins land while the first (whole) write is in flight.
    await Promise.all(
      entries.map(async (entry, n) => {
        await writer.begin(entry);
        await writer.complete(entry.id, { address: entry.address, resource: resource(n) });
      }),
    );
    expect(await exists(logPath)).toBe(true);
    expect(await backend.read()).toEqual(writer.document);
    expect(writer.document.journal).toEqual([]);
    await lock.release();
  });

  it('writes whole for a change that is not a journal step', async () => {
    const { lock, document } = await checkpointed();
    const writer = new StateWriter(lock, document);
    await writer.update((current) => ({ ...current, resources: { 'api-check.kept': resource(7) } }));
    expect(await exists(logPath)).toBe(false);
    expect(JSON.parse(await readFile(statePath, 'utf8')).resources).toEqual({ 'api-check.kept': resource(7) });
    await lock.release();
  });
});
