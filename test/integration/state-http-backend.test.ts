/**
 * The http state backend against a loopback server speaking Terraform's http backend protocol:
 * reads, locks, writes and unlocks, waits for a held lock and names its holder, keeps the local
 * backend's lineage and serial rules, retries what a flaky server causes, and never lets a credential
 * into an error.
 */
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { createHttpBackend, emptyState, isStateError, type HttpBackendOptions, type LockHolder, type StateDocument } from '@vigil/engine';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTerraformStateServer, type TerraformStateServer } from '../support/terraform-http-state-server.js';

let server: TerraformStateServer;
const PATH = '/states/shop';

beforeEach(async () => {
  server = await startTerraformStateServer();
});

afterEach(async () => {
  await server.close();
});

function backend(options: Partial<HttpBackendOptions> = {}) {
  return createHttpBackend({ address: `${server.url}${PATH}`, retryWaitMinMs: 1, retryWaitMaxMs: 5, pollMs: 5, ...options });
}

function document(): StateDocument {
  return emptyState({ project: 'shop', target: { baseUrl: 'http://127.0.0.1:4010', accountId: 'acme' } });
}

async function failure(run: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await run();
  } catch (error) {
    if (isStateError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a StateError');
}

/** Takes the lock as another vigil would: LOCK with lock info naming a live process elsewhere. */
async function lockAsAnotherHost(): Promise<void> {
  const info = { pid: 4242, host: 'build-7', user: 'ci', command: 'vigil apply', createdAt: '2026-11-22T03:00:00.000Z' };
  const response = await fetch(`${server.url}${PATH}`, {
    method: 'LOCK',
    body: JSON.stringify({ ID: 'other-lock', Operation: 'vigil apply', Info: JSON.stringify(info), Who: 'ci@build-7', Version: '1', Created: info.createdAt, Path: '' }),
  });
  expect(response.status).toBe(200);
}

describe('http state backend', () => {
  it('reads nothing before the first write, then writes under the lock with serials 1, 2 and releases it', async () => {
    const state = backend();
    expect(await state.read()).toBeUndefined();
    const lock = await state.lock({ timeoutMs: 0, command: 'vigil apply' });
    expect(server.lock(PATH)).toContain('"Operation":"vigil apply"');
    const initial = document();
    await lock.write(initial);
    await lock.write({ ...initial, resources: {} });
    expect(lock.serial).toBe(2);
    expect(lock.canAppendSteps).toBe(false);
    await lock.release();
    await lock.release();
    expect(server.lock(PATH)).toBeUndefined();
    expect(await state.read()).toEqual({ ...initial, serial: 2 });
    const posts = server.requests.filter((request) => request.method === 'POST').map((request) => request.path);
    expect(posts).toHaveLength(2);
    for (const path of posts) expect(path).toMatch(/^\/states\/shop\?ID=[0-9a-f-]{36}$/);
    expect(state.describe()).toBe(`http state at ${server.url}${PATH}`);
  });

  it('waits for a held lock, saying who holds it, then fails with state-locked naming the holder and the backend', async () => {
    await lockAsAnotherHost();
    const waits: LockHolder[] = [];
    const error = await failure(() => backend().lock({ timeoutMs: 50, command: 'vigil apply', onWait: (holder) => waits.push(holder) }));
    expect(waits).toHaveLength(1);
    expect(waits[0]!.description).toBe('pid 4242 on build-7 (user ci, "vigil apply", since 2026-11-22T03:00:00.000Z)');
    expect(error.code).toBe('state-locked');
    expect(error.message).toBe(
      `state http state at ${server.url}${PATH} is locked by pid 4242 on build-7 (user ci, "vigil apply", since 2026-11-22T03:00:00.000Z); ` +
        'gave up after waiting 50ms (--lock-timeout). If that process is gone, remove the lock with: vigil state unlock --force',
    );
  });

  it('takes the lock once its holder releases it while waiting', async () => {
    const first = await backend().lock({ timeoutMs: 0, command: 'vigil apply' });
    const waiting = backend().lock({ timeoutMs: 30_000, command: 'vigil apply' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    await first.release();
    const second = await waiting;
    await second.write(document());
    await second.release();
    expect(server.lock(PATH)).toBeUndefined();
  });

  it('reports a lock held by a dead process of this host as stale at once', async () => {
    const info = { pid: 2 ** 22 + 12345, host: hostname(), user: 'me', command: 'vigil apply', createdAt: '2026-11-22T03:00:00.000Z' };
    await fetch(`${server.url}${PATH}`, { method: 'LOCK', body: JSON.stringify({ ID: 'dead', Operation: 'x', Info: JSON.stringify(info), Who: 'me', Version: '1', Created: '', Path: '' }) });
    const error = await failure(() => backend().lock({ timeoutMs: 60_000, command: 'vigil apply' }));
    expect(error.code).toBe('state-lock-stale');
    expect(error.message).toContain('but that process is no longer running');
  });

  it('breaks a lock naming its owner, and finds nothing to break when nobody holds it', async () => {
    await lockAsAnotherHost();
    expect((await backend().lockHolder())?.owner?.host).toBe('build-7');
    expect(await backend().forceUnlock()).toMatchObject({ removed: true, owner: { pid: 4242, host: 'build-7', command: 'vigil apply' } });
    expect(server.lock(PATH)).toBeUndefined();
    expect(await backend().forceUnlock()).toEqual({ removed: false });
    expect(await backend().lockHolder()).toBeUndefined();
    expect(server.lock(PATH)).toBeUndefined();
  });

  it('stops writing once its lock was broken, naming who holds it now', async () => {
    const lock = await backend().lock({ timeoutMs: 0, command: 'vigil apply' });
    await backend().forceUnlock();
    await lockAsAnotherHost();
    const error = await failure(() => lock.write(document()));
    expect(error.code).toBe('state-locked');
    expect(error.message).toContain('lost the lock on state http state at');
    expect(error.message).toContain('held by pid 4242 on build-7');
    expect(server.document(PATH)).toBeUndefined();
  });

  it('refuses another lineage, and a serial that is not newer when the serial is kept, unless forced', async () => {
    const lock = await backend().lock({ timeoutMs: 0, command: 'vigil state push' });
    const stored = document();
    await lock.write({ ...stored, serial: 5 }, { keepSerial: true });
    expect(lock.serial).toBe(5);
    const other = document();
    expect((await failure(() => lock.write(other))).code).toBe('state-lineage-mismatch');
    expect((await failure(() => lock.write({ ...stored, serial: 5 }, { keepSerial: true }))).code).toBe('state-serial-stale');
    await lock.write({ ...stored, serial: 3 }, { keepSerial: true, force: true });
    expect(lock.serial).toBe(6);
    await lock.write({ ...other, serial: 1 }, { keepSerial: true, force: true });
    await lock.release();
    expect(await backend().read()).toMatchObject({ lineage: other.lineage, serial: 7 });
  });

  it("reports the server's refusal of a write (409) as a lineage conflict", async () => {
    const lock = await backend().lock({ timeoutMs: 0, command: 'vigil apply' });
    const stored = document();
    await lock.write(stored);
    const id = JSON.parse(server.lock(PATH)!).ID as string;
    await fetch(`${server.url}${PATH}?ID=${id}`, { method: 'POST', body: JSON.stringify({ ...stored, serial: 9 }) });
    const error = await failure(() => lock.write(stored));
    expect(error.code).toBe('state-lineage-mismatch');
    expect(error.message).toContain('409 Conflict: {"error":"serial 2 is not newer than the stored 9"}');
    await lock.release();
  });

  it('retries a 500 and succeeds; fails naming the address and the answer after retryMax retries', async () => {
    const state = backend({ retryMax: 2 });
    server.failNext(2);
    expect(await state.read()).toBeUndefined();
    server.failNext(3, 503);
    const error = await failure(() => state.read());
    expect(error).toEqual({
      code: 'state-io',
      message: `cannot read http state at ${server.url}${PATH}: GET answered 503 Service Unavailable: {"error":"injected failure"}`,
    });
  });

  it('names the address of a server that cannot be reached, after its retries', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const error = await failure(() => createHttpBackend({ address: `http://127.0.0.1:${port}/s`, retryMax: 1, retryWaitMinMs: 1 }).read());
    expect(error.code).toBe('state-io');
    expect(error.message).toMatch(new RegExp(`^cannot reach the state server: GET http://127\\.0\\.0\\.1:${port}/s failed \\(.*ECONNREFUSED.*\\) 2 times$`));
  });
});

describe('http state backend credentials', () => {
  it('sends basic auth and bearer tokens, and never puts them in an error', async () => {
    await server.close();
    server = await startTerraformStateServer({ credentials: { username: 'ci', password: 's3cret-pass' } });
    const good = backend({ credentials: { username: 'ci', password: 's3cret-pass' } });
    const lock = await good.lock({ timeoutMs: 0, command: 'vigil apply' });
    await lock.write(document());
    await lock.release();

    const wrong = await failure(() => backend({ credentials: { username: 'ci', password: 'wrong-pass-value' }, address: `http://ci:wrong-pass-value@${server.url.slice(7)}${PATH}?token=tok-in-query` }).read());
    expect(wrong.message).toContain('GET answered 401 Unauthorized');
    expect(wrong.message).toContain('VIGIL_STATE_HTTP_USERNAME');
    expect(wrong.message).not.toContain('wrong-pass-value');
    expect(wrong.message).not.toContain('tok-in-query');
    expect(wrong.message).not.toContain(Buffer.from('ci:wrong-pass-value').toString('base64'));

    const token = await failure(() => backend({ credentials: { token: 'tok-abc-123' } }).lock({ timeoutMs: 0, command: 'vigil apply' }));
    expect(token.message).not.toContain('tok-abc-123');
    expect(server.requests.at(-1)?.authorization).toBe('Bearer tok-abc-123');
  });

  it('redacts a credential that the server echoes in its answer', async () => {
    server.failNext(1, 400, { echoAuthorization: true });
    const error = await failure(() => backend({ credentials: { token: 'tok-echoed' }, retryMax: 0 }).read());
    expect(error.message).toBe(`cannot read http state at ${server.url}${PATH}: GET answered 400 Bad Request: {"error":"injected failure","authorization":"Bearer (redacted)"}`);
  });
});

describe('http state backend against vigil server', () => {
  it('uses separate lock and unlock addresses and methods, as the service offers them for proxies (POST …/lock, POST …/unlock)', async () => {
    const { startServer } = await import('@vigil/server');
    const service = await startServer({ port: 0, dataDir: ':memory:' });
    try {
      const address = `${service.url}/v1/state/shop`;
      const options = { address, lockAddress: `${address}/lock`, unlockAddress: `${address}/unlock`, lockMethod: 'POST', unlockMethod: 'POST', credentials: { token: 'vigil-local' }, pollMs: 5 };
      const first = createHttpBackend(options);
      const lock = await first.lock({ timeoutMs: 0, command: 'vigil apply' });
      await lock.write(document());
      const error = await failure(() => createHttpBackend(options).lock({ timeoutMs: 0, command: 'vigil apply' }));
      expect(error.code).toBe('state-locked');
      expect(error.message).toContain(`state http state at ${address} is locked by pid ${process.pid} on ${hostname()}`);
      await lock.release();
      expect(await createHttpBackend(options).read()).toMatchObject({ serial: 1 });
      expect(await createHttpBackend(options).forceUnlock()).toEqual({ removed: false });
    } finally {
      await service.close();
    }
  });
});
