/** The cross-cutting rules of the service, checked over plain HTTP against a real server. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from './http/body.js';
import { startServer } from './start.js';
import {
  OTHER_API_KEY,
  apiCheckBody,
  apiFor,
  multiStepCheckBody,
  startTestServer,
  type TestApi,
} from './test-support.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-server-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

describe('authentication and accounts', () => {
  it.each([
    { name: 'no Authorization header', headers: { authorization: null }, message: 'Missing authentication' },
    { name: 'a non-bearer scheme', headers: { authorization: 'Basic abc' }, message: 'Missing authentication' },
    { name: 'an unknown key', headers: { authorization: 'Bearer nope' }, message: 'Bad Token' },
  ])('answers 401 "$message" to $name', async ({ headers, message }) => {
    const reply = await api.get('/v1/checks', { headers });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ statusCode: 401, error: 'Unauthorized', message });
  });

  it('answers 403 when x-service-account names an account the key does not belong to', async () => {
    const reply = await api.get('/v1/checks', { headers: { 'x-service-account': 'globex' } });
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ statusCode: 403, error: 'Forbidden', message: 'API key has no access to account globex' });
  });

  it('lets a key with several accounts pick one with x-service-account', async () => {
    const server = await startServer({
      accounts: [
        { apiKey: 'shared', accountId: 'one' },
        { apiKey: 'shared', accountId: 'two' },
      ],
    });
    const shared = apiFor(server, 'shared');
    try {
      await shared.post('/v1/checks/api', apiCheckBody({ name: 'in two' }), { headers: { 'x-service-account': 'two' } });
      expect((await shared.get('/v1/checks')).body).toEqual([]);
      expect((await shared.get('/v1/checks', { headers: { 'x-service-account': 'one' } })).body).toEqual([]);
      const two = await shared.get('/v1/checks', { headers: { 'x-service-account': 'two' } });
      expect(two.body.map((check: { name: string }) => check.name)).toEqual(['in two']);
    } finally {
      await shared.close();
    }
  });

  it('accepts the default key vigil-local for account local when no accounts are configured', async () => {
    const server = await startServer();
    try {
      expect((await apiFor(server, 'vigil-local').get('/v1/checks')).status).toBe(200);
      expect((await apiFor(server, 'test-key').get('/v1/checks')).status).toBe(401);
    } finally {
      await server.close();
    }
  });
});

describe('tenancy', () => {
  let ids: Record<string, string | number>;
  const other = (): TestApi => apiFor(api.server, OTHER_API_KEY);

  beforeAll(async () => {
    const channel = await api.post('/v1/alert-channels', { type: 'EMAIL', config: { address: 'a@example.com' } });
    const group = await api.post('/v2/check-groups', { name: 'g' });
    const check = await api.post('/v1/checks/api?autoAssignAlerts=false', apiCheckBody());
    const multi = await api.post('/v1/checks/multistep?autoAssignAlerts=false', multiStepCheckBody());
    const window = await api.post('/v1/maintenance-windows', { name: 'w', startsAt: '2030-01-01', endsAt: '2030-01-02', repeatUnit: 'DAY' });
    const service = await api.post('/v1/status-pages/services', { name: 's' });
    ids = {
      channel: channel.body.id,
      group: group.body.id,
      check: check.body.id,
      multi: multi.body.id,
      window: window.body.id,
      service: service.body.id,
    };
  });

  it.each([
    ['GET', '/v1/checks/{check}'],
    ['PUT', '/v1/checks/api/{check}', { name: 'stolen' }],
    ['PUT', '/v1/checks/multistep/{multi}', { name: 'stolen' }],
    ['PUT', '/v1/checks/{check}', { name: 'stolen' }],
    ['DELETE', '/v1/checks/{check}'],
    ['GET', '/v1/check-groups/{group}'],
    ['PUT', '/v2/check-groups/{group}', { name: 'stolen' }],
    ['DELETE', '/v1/check-groups/{group}'],
    ['GET', '/v1/maintenance-windows/{window}'],
    ['PUT', '/v1/maintenance-windows/{window}', { name: 'stolen' }],
    ['DELETE', '/v1/maintenance-windows/{window}'],
    ['GET', '/v1/status-pages/services/{service}'],
    ['PUT', '/v1/status-pages/services/{service}', { name: 'stolen' }],
    ['DELETE', '/v1/status-pages/services/{service}'],
    ['GET', '/v1/alert-channels/{channel}'],
    ['PUT', '/v1/alert-channels/{channel}', { type: 'EMAIL', config: { address: 'thief@example.com' }, sendDegraded: true }],
    ['DELETE', '/v1/alert-channels/{channel}'],
  ])("%s %s of another tenant's resource is 404 and changes nothing", async (method, template, body?: object) => {
    const target = template.replace(/\{(\w+)\}/, (_, name: string) => String(ids[name]));
    const reply = await other().call(method, target, body ? { body } : {});
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
    const readBack = template.startsWith('/v1/checks') ? `/v1/checks/${ids['check']}` : target.replace('/v2/', '/v1/').replace('/api/', '/');
    const own = await api.get(readBack);
    expect(own.status).toBe(200);
    expect(own.body.name).not.toBe('stolen');
  });

  it("never lists another tenant's resources", async () => {
    for (const list of ['/v1/checks', '/v1/check-groups', '/v1/maintenance-windows', '/v1/alert-channels']) {
      const reply = await other().get(list);
      expect(reply.body, list).toEqual([]);
      expect(reply.headers.get('content-range'), list).toBe('*/0');
    }
    expect((await other().get('/v1/status-pages/services')).body).toEqual({ length: 0, entries: [], nextId: null });
  });

  it("refuses references to another tenant's group as unknown", async () => {
    const reply = await other().post('/v1/checks/api', apiCheckBody({ groupId: ids['group'] }));
    expect(reply.status).toBe(400);
    expect(reply.body.validation).toEqual({ source: 'payload', keys: ['groupId'] });
  });
});

describe('request bodies and routing', () => {
  it('answers 413 to a body over MAX_BODY_BYTES (2 MiB)', async () => {
    const reply = await api.post('/v1/checks/api', apiCheckBody({ script: 'x'.repeat(MAX_BODY_BYTES) }));
    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
  });

  it('answers 413 to a chunked body over MAX_BODY_BYTES (2 MiB)', async () => {
    const big = new TextEncoder().encode(JSON.stringify(apiCheckBody({ script: 'x'.repeat(MAX_BODY_BYTES) })));
    const stream = new ReadableStream({
      start(controller) {
        for (let offset = 0; offset < big.length; offset += 64 * 1024) controller.enqueue(big.slice(offset, offset + 64 * 1024));
        controller.close();
      },
    });
    const response = await fetch(`${api.server.url}/v1/checks/api`, {
      method: 'POST',
      headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
  });

  it('answers 400 to malformed JSON', async () => {
    const reply = await api.call('POST', '/v1/checks/api', { rawBody: '{"name": ' });
    expect(reply.status).toBe(400);
    expect(reply.body.statusCode).toBe(400);
    expect(reply.body.error).toBe('Bad Request');
    expect(reply.body.message).toMatch(/^Invalid request payload JSON format/);
  });

  it('answers 400 naming the payload when the body is missing', async () => {
    const reply = await api.call('POST', '/v1/maintenance-windows');
    expect(reply.status).toBe(400);
    expect(reply.body.validation.source).toBe('payload');
  });

  it('answers unknown routes with a 404 JSON body', async () => {
    const reply = await api.get('/v1/nothing-here');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Route GET /v1/nothing-here not found' });
  });

  it('answers 400 naming params for a non-numeric numeric id', async () => {
    const reply = await api.get('/v1/check-groups/abc');
    expect(reply.status).toBe(400);
    expect(reply.body.validation).toEqual({ source: 'params', keys: ['id'] });
  });

  it('serves the OpenAPI document without authentication', async () => {
    const response = await fetch(`${api.server.url}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths)).toContain('/v1/checks/api');
  });
});

describe('Idempotency-Key', () => {
  it('answers a repeated key with the original response and creates one resource', async () => {
    const fresh = await startTestServer();
    try {
      const body = apiCheckBody({ name: 'once' });
      const first = await fresh.post('/v1/checks/api', body, { headers: { 'idempotency-key': 'k-1' } });
      const second = await fresh.post('/v1/checks/api', body, { headers: { 'idempotency-key': 'k-1' } });
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.body).toEqual(first.body);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect((await fresh.get('/v1/checks')).body).toHaveLength(1);
    } finally {
      await fresh.close();
    }
  });

  it('refuses the same key with a different body with 422', async () => {
    const first = await api.post('/v1/checks/api', apiCheckBody({ name: 'a' }), { headers: { 'idempotency-key': 'k-2' } });
    expect(first.status).toBe(201);
    const reuse = await api.post('/v1/checks/api', apiCheckBody({ name: 'b' }), { headers: { 'idempotency-key': 'k-2' } });
    expect(reuse.status).toBe(422);
    expect(reuse.body).toEqual({
      statusCode: 422,
      error: 'Unprocessable Entity',
      message: 'Idempotency-Key "k-2" was already used for a different request',
    });
  });

  it('keeps keys per account', async () => {
    const body = { name: 'svc' };
    const mine = await api.post('/v1/status-pages/services', body, { headers: { 'idempotency-key': 'shared-key' } });
    const theirs = await apiFor(api.server, OTHER_API_KEY).post('/v1/status-pages/services', body, { headers: { 'idempotency-key': 'shared-key' } });
    expect(theirs.status).toBe(200);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('does not store failed responses, so a corrected retry with the same key succeeds', async () => {
    const bad = await api.post('/v1/checks/api', { name: 'no request' }, { headers: { 'idempotency-key': 'k-3' } });
    expect(bad.status).toBe(400);
    const fixed = await api.post('/v1/checks/api', apiCheckBody(), { headers: { 'idempotency-key': 'k-3' } });
    expect(fixed.status).toBe(201);
  });

  it('survives a restart', async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir });
    const created = await first.post('/v1/checks/api', apiCheckBody(), { headers: { 'idempotency-key': 'k-4' } });
    await first.close();
    const second = await startTestServer({ dataDir });
    try {
      const replay = await second.post('/v1/checks/api', apiCheckBody(), { headers: { 'idempotency-key': 'k-4' } });
      expect(replay.body.id).toBe(created.body.id);
      expect((await second.get('/v1/checks')).body).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After once a key used its window, per key', async () => {
    const limited = await startTestServer({ rateLimit: { requests: 3, windowSeconds: 60 } });
    try {
      for (let i = 0; i < 3; i += 1) {
        const reply = await limited.get('/v1/checks');
        expect(reply.status).toBe(200);
        expect(reply.headers.get('x-ratelimit-remaining')).toBe(String(2 - i));
      }
      const refused = await limited.get('/v1/checks');
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect((await apiFor(limited.server, OTHER_API_KEY).get('/v1/checks')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('limits analytics in their own bucket', async () => {
    const limited = await startTestServer({ rateLimit: { requests: 100, windowSeconds: 60, analyticsRequests: 1 } });
    try {
      const check = await limited.post('/v1/checks/api', apiCheckBody());
      const analytics = `/v1/analytics/api-checks/${check.body.id}?metrics=responseTime_avg`;
      expect((await limited.get(analytics)).status).not.toBe(429);
      const refused = await limited.get(analytics);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).not.toBeNull();
      expect((await limited.get('/v1/checks')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('is off unless configured', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => api.get('/v1/checks?limit=1')));
    expect(new Set(results.map((reply) => reply.status))).toEqual(new Set([200]));
  });
});

describe('persistence', () => {
  it('keeps every acknowledged write across a restart on the same data directory', async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir });
    const group = await first.post('/v2/check-groups', { name: 'kept group' });
    const check = await first.post('/v1/checks/api', apiCheckBody({ groupId: group.body.id }));
    const channel = await first.post('/v1/alert-channels', { type: 'EMAIL', config: { address: 'a@example.com' } });
    await first.close();

    const second = await startTestServer({ dataDir });
    try {
      expect((await second.get(`/v1/checks/${check.body.id}`)).body).toMatchObject({ name: 'Homepage', groupId: group.body.id });
      expect((await second.get(`/v1/check-groups/${group.body.id}`)).body.name).toBe('kept group');
      expect((await second.get(`/v1/alert-channels/${channel.body.id}`)).body.config).toEqual({ address: 'a@example.com' });
      const next = await second.post('/v2/check-groups', { name: 'new' });
      expect(next.body.id).toBeGreaterThan(group.body.id);
    } finally {
      await second.close();
    }
  });
});
