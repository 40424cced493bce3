/**
 * The s3 backend over loopback. The lock and the conditional writes are tested against
 * test/support/s3-conditional-server.ts, which answers If-None-Match / If-Match with 412 as AWS
 * does. Plain object reads and writes (ETags, NoSuchKey, keys with spaces and slashes) also run
 * against s3rver, an S3 server from npm written by others. s3rver 3.7.1 checks the access key but
 * not a SigV4 signature ("unimplemented" in its source), and ignores If-None-Match on PUT (the last
 * test shows it), so the signature is checked only against AWS's published example (s3-signing.test.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
// @ts-expect-error s3rver ships no types; only its constructor, run() and close() are used here.
import S3rver from 's3rver';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startS3ConditionalServer, type S3ConditionalServer } from '../../../../test/support/s3-conditional-server.js';
import { emptyState } from './document.js';
import { isStateError, type StateError } from './errors.js';
import { lockInfoOf } from './http-lock-info.js';
import { createS3Backend, type S3BackendOptions } from './s3-backend.js';
import type { StateDocument } from './types.js';

const TARGET = { baseUrl: 'http://127.0.0.1:4010', accountId: 'acc-1' };
const CREDENTIALS = { accessKeyId: 'AKIDVIGILTEST', secretAccessKey: 'secret-0f3b9e2c' };

async function caught(promise: Promise<unknown>): Promise<StateError> {
  try {
    await promise;
  } catch (error) {
    if (isStateError(error)) return error;
    throw error;
  }
  throw new Error('expected a StateError, but the call succeeded');
}

function withResource(document: StateDocument, index: number): StateDocument {
  return { ...document, resources: { ...document.resources, [`api-check.c${index}`]: { kind: 'api-check', remoteId: index, applied: {}, dependsOn: [] } } };
}

describe('the s3 backend, against a store with conditional writes', () => {
  let store: S3ConditionalServer;
  let key = 0;
  let options: S3BackendOptions;

  beforeAll(async () => {
    store = await startS3ConditionalServer({ accessKeyId: CREDENTIALS.accessKeyId, buckets: ['states'] });
  });
  afterAll(async () => {
    await store.close();
  });
  beforeEach(() => {
    key += 1;
    options = { bucket: 'states', key: `env/shop-${key}.json`, region: 'eu-west-1', endpoint: store.url, credentials: CREDENTIALS, pollMs: 20 };
  });

  it('locks with If-None-Match: *, writes with If-Match on the ETag it read, and removes its lock object', async () => {
    const backend = createS3Backend(options);
    expect(backend.describe()).toBe(`s3 state s3://states/env/shop-${key}.json at ${store.url}`);
    const lock = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    expect(JSON.parse(store.object('states', `${options.key}.lock`)!)).toMatchObject({ Operation: 'vigil apply', Who: expect.stringContaining('@') });
    const document = emptyState({ project: 'shop', target: TARGET });
    await lock.write(document);
    await lock.write(withResource(document, 1));
    await lock.release();
    expect(store.object('states', `${options.key}.lock`)).toBeUndefined();
    expect(await backend.read()).toMatchObject({ serial: 2, lineage: document.lineage, resources: { 'api-check.c1': { remoteId: 1 } } });
    const writes = store.requests.filter((request) => request.method === 'PUT' && request.path.startsWith(`/states/env/shop-${key}.json`));
    expect(writes.map(({ path: requestPath, ifMatch, ifNoneMatch, status }) => ({ lock: requestPath.endsWith('.lock'), ifMatch: ifMatch !== undefined, ifNoneMatch, status }))).toEqual([
      { lock: true, ifMatch: false, ifNoneMatch: '*', status: 200 },
      { lock: false, ifMatch: false, ifNoneMatch: '*', status: 200 },
      { lock: false, ifMatch: true, ifNoneMatch: undefined, status: 200 },
    ]);
  });

  it('makes a second vigil fail naming the holder, or wait for it and say whom it waits for', async () => {
    const first = createS3Backend(options);
    const second = createS3Backend(options);
    const held = await first.lock({ timeoutMs: 0, command: 'vigil apply' });
    const refused = await caught(second.lock({ timeoutMs: 0, command: 'vigil plan' }));
    expect(refused.code).toBe('state-locked');
    expect(refused.message).toMatch(
      /^state s3 state s3:\/\/states\/env\/shop-\d+\.json at http:\/\/127\.0\.0\.1:\d+ is locked by pid \d+ on .+ \(user .+, "vigil apply", since .+\); retry when it is done, or wait for it with --lock-timeout \(e\.g\. --lock-timeout 5m\)\. If that process is gone, remove the lock with: vigil state unlock --force$/,
    );
    expect((await second.lockHolder())?.owner?.pid).toBe(process.pid);
    const waits: string[] = [];
    const waiting = second.lock({ timeoutMs: 30_000, command: 'vigil apply', onWait: (holder) => waits.push(holder.description) });
    while (waits.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await held.release();
    await (await waiting).release();
    expect(waits).toEqual([expect.stringContaining(`pid ${process.pid} on ${hostname()}`)]);
  });

  it('refuses to overwrite a document someone changed without the lock, and writes nothing after its lock was broken', async () => {
    const backend = createS3Backend(options);
    const lock = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    const document = emptyState({ project: 'shop', target: TARGET });
    await lock.write(document);
    store.putObject('states', options.key, `${JSON.stringify({ ...document, serial: 9 })}\n`);
    const stale = await caught(lock.write(withResource(document, 1)));
    expect(stale.code).toBe('state-serial-stale');
    expect(stale.message).toMatch(/^refusing to write state s3 state .+: it changed since this lock read it \(ETag "[0-9a-f]+"\), so something wrote it without the lock; not overwriting it$/);

    const removed = await createS3Backend(options).forceUnlock();
    expect(removed).toMatchObject({ removed: true, owner: { pid: process.pid, command: 'vigil apply' } });
    const lost = await caught(lock.write(withResource(document, 2)));
    expect(lost.message).toBe(
      `lost the lock on state ${backend.describe()} (nobody holds it now; it was broken, e.g. by vigil state unlock --force); not writing, so whoever holds it now is not overwritten`,
    );
    await lock.release();
    expect(await createS3Backend(options).forceUnlock()).toEqual({ removed: false });
  });

  it('reports at once a lock whose holder died on this host, with the command that removes it', async () => {
    const dead = { id: 'dead-holder', pid: 2 ** 22 + 7, host: hostname(), user: 'ci', command: 'vigil apply', createdAt: '2026-11-22T03:00:00.000Z' };
    store.putObject('states', `${options.key}.lock`, JSON.stringify(lockInfoOf(dead, '1')));
    const stale = await caught(createS3Backend(options).lock({ timeoutMs: 60_000, command: 'vigil apply' }));
    expect(stale.code).toBe('state-lock-stale');
    expect(stale.message).toBe(
      `state s3 state s3://states/${options.key} at ${store.url} is locked by pid ${dead.pid} on ${hostname()} (user ci, "vigil apply", since 2026-11-22T03:00:00.000Z), ` +
        'but that process is no longer running (it crashed or was killed), so the lock is stale. If no other vigil is using this state, remove the lock with: vigil state unlock --force',
    );
  });

  it('names the credential variables when the store refuses the key, and never the secret', async () => {
    const refused = await caught(createS3Backend({ ...options, credentials: { accessKeyId: 'AKIDOTHER', secretAccessKey: 'other-secret-77' } }).read());
    expect(refused.message).toBe(
      `cannot read s3 state s3://states/${options.key} at ${store.url}: GET answered 403: InvalidAccessKeyId (The AWS Access Key Id you provided does not exist in our records.) ` +
        '(check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, and the bucket policy)',
    );
  });
});

describe('the s3 backend, against s3rver', () => {
  let directory: string;
  let server: { run(): Promise<{ port: number }>; close(): Promise<void> };
  let endpoint: string;

  beforeAll(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'vigil-s3rver-'));
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: 'states' }] });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await server.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('locks, writes, reads and releases a key with spaces and slashes, and an unknown access key is refused', async () => {
    const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
    const backend = createS3Backend({ bucket: 'states', key: 'teams/shop state.json', region: 'us-east-1', endpoint, credentials });
    const lock = await backend.lock({ timeoutMs: 0, command: 'vigil apply' });
    const document = emptyState({ project: 'shop', target: TARGET });
    await lock.write(document);
    await lock.write(withResource(document, 1));
    await lock.release();
    expect(await backend.read()).toMatchObject({ serial: 2, resources: { 'api-check.c1': { remoteId: 1 } } });
    expect(await backend.lockHolder()).toBeUndefined();

    const wrong = await caught(createS3Backend({ bucket: 'states', key: 'teams/shop state.json', region: 'us-east-1', endpoint, credentials: { accessKeyId: 'AKIDUNKNOWN', secretAccessKey: 'not-it' } }).read());
    expect(wrong.message).toBe(
      `cannot read s3 state s3://states/teams/shop state.json at ${endpoint}: GET answered 403: InvalidAccessKeyId (The AWS Access Key Id you provided does not exist in our records.) ` +
        '(check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, and the bucket policy)',
    );
  });

  it('is not a store the lock can rely on: s3rver 3.7.1 accepts a PUT with If-None-Match: * over an existing object', async () => {
    const { signRequest } = await import('./s3-signing.js');
    const url = new URL(`${endpoint}/states/probe.lock`);
    const put = (body: string) =>
      fetch(url, { method: 'PUT', body, headers: signRequest({ method: 'PUT', url, headers: { 'if-none-match': '*' }, body, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, region: 'us-east-1', now: new Date() }) });
    expect((await put('first')).status).toBe(200);
    expect((await put('second')).status).toBe(200);
  });
});
