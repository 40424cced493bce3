/** Operator switches of the service: the request log and fault injection, over plain HTTP. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from './start.js';
import { TEST_ACCOUNT, apiCheckBody, startTestServer } from './test-support.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-server-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('request log', () => {
  it('writes one JSON line per request with time, method, path, status and account', async () => {
    const requestLog = path.join(tempDir(), 'requests.jsonl');
    const logged = await startTestServer({ requestLog });
    try {
      await logged.post('/v1/checks/api', apiCheckBody());
      await logged.get('/v1/checks?limit=5');
      await logged.get('/v1/checks', { headers: { authorization: 'Bearer wrong' } });
    } finally {
      await logged.close();
    }
    const lines = readFileSync(requestLog, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map(({ method, path: p, status, account }) => ({ method, path: p, status, account }))).toEqual([
      { method: 'POST', path: '/v1/checks/api', status: 201, account: TEST_ACCOUNT },
      { method: 'GET', path: '/v1/checks', status: 200, account: TEST_ACCOUNT },
      { method: 'GET', path: '/v1/checks', status: 401, account: null },
    ]);
    expect(Number.isNaN(Date.parse(lines[0].t))).toBe(false);
    // The service's own time per request, in milliseconds with two decimals at most.
    for (const { ms } of lines) {
      expect(typeof ms).toBe('number');
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(Math.round(ms * 100) / 100).toBe(ms);
    }
  });
});

describe('fault injection', () => {
  it('error=1 answers 503 before handling, so nothing is written', async () => {
    const faulty = await startTestServer({ faults: 'error=1' });
    try {
      const reply = await faulty.post('/v1/checks/api', apiCheckBody());
      expect(reply.status).toBe(503);
      expect(reply.body).toMatchObject({ statusCode: 503, error: 'Service Unavailable' });
    } finally {
      await faulty.close();
    }
  });

  it('429=1 answers 429 with Retry-After before handling', async () => {
    const faulty = await startTestServer({ faults: '429=1' });
    try {
      const reply = await faulty.get('/v1/checks');
      expect(reply.status).toBe(429);
      expect(reply.headers.get('retry-after')).toBe('1');
    } finally {
      await faulty.close();
    }
  });

  it('drop=1 commits the write and cuts the connection before the response', async () => {
    const dataDir = tempDir();
    const faulty = await startTestServer({ faults: 'drop=1', dataDir });
    await expect(faulty.post('/v1/checks/api', apiCheckBody({ name: 'dropped but saved' }), { headers: { 'idempotency-key': 'drop-1' } })).rejects.toThrow();
    await faulty.close();
    const healthy = await startTestServer({ dataDir });
    try {
      const list = await healthy.get('/v1/checks');
      expect(list.body.map((check: { name: string }) => check.name)).toEqual(['dropped but saved']);
      const retry = await healthy.post('/v1/checks/api', apiCheckBody({ name: 'dropped but saved' }), { headers: { 'idempotency-key': 'drop-1' } });
      expect(retry.status).toBe(201);
      expect(retry.body.id).toBe(list.body[0].id);
    } finally {
      await healthy.close();
    }
  });

  it('latency delays every request', async () => {
    const slow = await startTestServer({ faults: 'latency=150ms' });
    try {
      const started = performance.now();
      expect((await slow.get('/v1/checks')).status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    } finally {
      await slow.close();
    }
  });

  it('refuses a bad SPEC at startup, naming the bad part', async () => {
    await expect(startServer({ faults: 'error=2' })).rejects.toThrow('invalid fault "error=2": expected a fraction between 0 and 1');
  });
});

describe('shutdown', () => {
  it('finishes a request in flight before close() resolves, then refuses new connections', async () => {
    const slow = await startTestServer({ faults: 'latency=300ms' });
    const inFlight = slow.post('/v1/checks/api', apiCheckBody({ name: 'in flight' }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await slow.close();
    const reply = await inFlight;
    expect(reply.status).toBe(201);
    await expect(fetch(`${slow.server.url}/v1/checks`)).rejects.toThrow();
  });
});
