import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTHER_API_KEY, apiFor, startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
let other: TestApi;
beforeAll(async () => {
  api = await startTestServer();
  other = apiFor(api.server, OTHER_API_KEY);
});
afterAll(async () => {
  await api.close();
});

let projects = 0;
/** A project of its own per test, so tests do not see each other's state. */
const freshProject = () => `/v1/state/shop-${++projects}`;
const documentOf = (serial: number, extra: Record<string, unknown> = {}) => ({ version: 1, lineage: 'lin-1', serial, project: 'shop', resources: {}, journal: [], ...extra });
const lockInfo = (id: string) => ({ ID: id, Operation: 'apply', Info: JSON.stringify({ pid: 1, host: 'ci-1', user: 'ci', command: 'vigil apply' }), Who: 'ci@ci-1', Version: '0.1.0', Created: '2026-11-27T05:00:00Z', Path: '' });

describe('/v1/state/{project}', () => {
  it('answers 404 before anything is stored, then returns the document exactly as stored', async () => {
    const path = freshProject();
    expect(await api.get(path)).toMatchObject({ status: 404, body: { statusCode: 404, message: `no state is stored for project "${path.slice('/v1/state/'.length)}"` } });
    const raw = JSON.stringify(documentOf(1, { resources: { 'api-check.home': { remoteId: 'x' } } }), null, 2);
    expect((await api.call('POST', path, { rawBody: raw })).status).toBe(200);
    const response = await fetch(`${api.server.url}${path}`, { headers: { authorization: 'Bearer test-key' } });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.text()).toBe(raw);
  });

  it('keeps the lineage and lets the serial only grow, accepting an unchanged re-send', async () => {
    const path = freshProject();
    await api.post(path, documentOf(3));
    expect(await api.post(path, documentOf(3))).toMatchObject({ status: 200 });
    expect(await api.post(path, documentOf(3, { resources: { a: 1 } }))).toMatchObject({
      status: 409,
      body: { message: "the document's serial 3 is not newer than the stored state's 3: state moved on since it was read" },
    });
    expect(await api.post(path, documentOf(4, { lineage: 'lin-2' }))).toMatchObject({
      status: 409,
      body: { message: `the document's lineage "lin-2" is not the stored state's "lin-1": it belongs to another state` },
    });
    expect(await api.post(path, documentOf(4))).toMatchObject({ status: 200 });
    expect((await api.get(path)).body).toEqual(documentOf(4));
  });

  it.each([
    ['an array', [], 'the body must be a state document (a JSON object)'],
    ['no lineage', { serial: 1 }, '"lineage" must be a non-empty string'],
    ['a fractional serial', { lineage: 'l', serial: 1.5 }, '"serial" must be a whole number of at least 0'],
  ])('refuses a document with %s', async (_name, body, message) => {
    expect(await api.post(freshProject(), body)).toMatchObject({ status: 400, body: { message } });
  });

  it('lets only the lock holder write; another gets 423 with the holder, and takes it once released', async () => {
    const path = freshProject();
    expect(await api.call('LOCK', path, { body: lockInfo('lock-a') })).toMatchObject({ status: 200, body: lockInfo('lock-a') });
    // Taking it again under the same id is the same lock.
    expect((await api.call('LOCK', path, { body: lockInfo('lock-a') })).status).toBe(200);
    expect(await api.call('LOCK', path, { body: lockInfo('lock-b') })).toMatchObject({ status: 423, body: lockInfo('lock-a') });
    expect(await api.post(path, documentOf(1))).toMatchObject({ status: 423, body: lockInfo('lock-a') });
    expect(await api.post(`${path}?ID=lock-b`, documentOf(1))).toMatchObject({ status: 423 });
    expect((await api.post(`${path}?ID=lock-a`, documentOf(1))).status).toBe(200);
    expect(await api.call('UNLOCK', path, { body: lockInfo('lock-b') })).toMatchObject({ status: 423, body: lockInfo('lock-a') });
    expect((await api.call('UNLOCK', path, { body: lockInfo('lock-a') })).status).toBe(200);
    expect((await api.post(`${path}/lock`, lockInfo('lock-b'))).status).toBe(200);
    expect((await api.post(`${path}/unlock`, lockInfo('lock-b'))).status).toBe(200);
    expect((await api.post(path, documentOf(2))).status).toBe(200);
  });

  it('gives a lock to exactly one of many clients asking at once', async () => {
    const path = freshProject();
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => api.call('LOCK', path, { body: lockInfo(`lock-${i}`) })));
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1);
    expect(replies.filter((reply) => reply.status === 423)).toHaveLength(19);
  });

  it('tells the holder and every waiter how long the lock lasts and when it expires unless renewed', async () => {
    const path = freshProject();
    const before = Date.now();
    const taken = await api.call('LOCK', path, { body: lockInfo('lock-a') });
    const after = Date.now();
    expect(taken).toMatchObject({ status: 200, body: { ...lockInfo('lock-a'), ttlSeconds: 300, expired: false } });
    const expiresMs = Date.parse((taken.body as { expiresAt: string }).expiresAt);
    expect(expiresMs).toBeGreaterThanOrEqual(before + 300_000);
    expect(expiresMs).toBeLessThanOrEqual(after + 300_000);
    expect(await api.call('LOCK', path, { body: lockInfo('lock-b') })).toMatchObject({ status: 423, body: { ...lockInfo('lock-a'), ttlSeconds: 300, expiresAt: new Date(expiresMs).toISOString(), expired: false } });
    // Taking it again under its id renews it: the expiry moves on.
    const renewed = await api.call('LOCK', path, { body: lockInfo('lock-a') });
    expect(Date.parse((renewed.body as { expiresAt: string }).expiresAt)).toBeGreaterThanOrEqual(expiresMs);
  });

  it('keeps an expired lock held, reported as expired, until its holder renews it or an UNLOCK with its id breaks it', async () => {
    const path = freshProject();
    expect(await api.call('LOCK', path, { body: { ...lockInfo('lock-a'), ttlSeconds: 1 } })).toMatchObject({ status: 200, body: { ttlSeconds: 1, expired: false } });
    let refused = await api.call('LOCK', path, { body: lockInfo('lock-b') });
    // Waits for the lock's one second to pass, as the service sees it.
    while ((refused.body as { expired?: boolean }).expired !== true) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      refused = await api.call('LOCK', path, { body: lockInfo('lock-b') });
    }
    expect(refused).toMatchObject({ status: 423, body: { ...lockInfo('lock-a'), ttlSeconds: 1, expired: true } });
    expect((await api.post(`${path}?ID=lock-b`, documentOf(1))).status).toBe(423);
    expect(await api.call('LOCK', path, { body: { ...lockInfo('lock-a'), ttlSeconds: 1 } })).toMatchObject({ status: 200, body: { ID: 'lock-a', expired: false } });
    // What a breaker sends back is the lock info it was answered with, extension fields and all.
    expect((await api.call('UNLOCK', path, { body: refused.body as Record<string, unknown> })).status).toBe(200);
    expect((await api.call('LOCK', path, { body: lockInfo('lock-b') })).status).toBe(200);
  });

  it.each<[unknown, string]>([
    [0, 'zero'],
    [1.5, 'a fraction'],
    ['60', 'text'],
    [3601, 'more than an hour'],
  ])('refuses a lock info whose ttlSeconds is %s (%s)', async (ttlSeconds) => {
    expect(await api.call('LOCK', freshProject(), { body: { ...lockInfo('lock-a'), ttlSeconds } })).toMatchObject({
      status: 400,
      body: { message: '"ttlSeconds" of the lock info must be a whole number of seconds from 1 to 3600' },
    });
  });

  it('refuses lock info without an ID', async () => {
    expect(await api.call('LOCK', freshProject(), { body: { Operation: 'apply' } })).toMatchObject({ status: 400, body: { message: '"ID" of the lock info must be a string of 1 to 200 characters' } });
  });

  it('deletes the document, under the same lock rule as writes', async () => {
    const path = freshProject();
    await api.post(path, documentOf(1));
    await api.call('LOCK', path, { body: lockInfo('lock-a') });
    expect((await api.delete(path)).status).toBe(423);
    expect((await api.delete(`${path}?ID=lock-a`)).status).toBe(200);
    expect((await api.get(path)).status).toBe(404);
  });

  it("keeps accounts apart: another account neither reads nor locks this account's state", async () => {
    const path = freshProject();
    await api.post(path, documentOf(1));
    await api.call('LOCK', path, { body: lockInfo('lock-a') });
    expect((await other.get(path)).status).toBe(404);
    expect((await other.call('LOCK', path, { body: lockInfo('lock-z') })).status).toBe(200);
    expect((await other.post(`${path}?ID=lock-z`, documentOf(1, { lineage: 'theirs' }))).status).toBe(200);
    expect((await api.get(path)).body).toEqual(documentOf(1));
  });

  it('needs an API key', async () => {
    expect((await api.get(freshProject(), { headers: { authorization: null } })).status).toBe(401);
  });

  it('is described in the OpenAPI document', async () => {
    const document = (await api.get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(document.paths['/v1/state/{project}'] ?? {}).sort()).toEqual(['delete', 'get', 'post']);
    expect(Object.keys(document.paths['/v1/state/{project}/lock'] ?? {})).toEqual(['post']);
    const lock = document.paths['/v1/state/{project}/lock']!['post'] as {
      requestBody: { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } };
      responses: Record<string, { content?: { 'application/json': { schema: { required: string[]; properties: Record<string, unknown> } } } }>;
    };
    expect(lock.requestBody.content['application/json'].schema.properties['ttlSeconds']).toMatchObject({ type: 'integer', minimum: 1, maximum: 3600, default: 300 });
    for (const status of ['200', '423']) {
      expect(lock.responses[status]!.content!['application/json'].schema.required).toEqual(['ID', 'ttlSeconds', 'expiresAt', 'expired']);
    }
  });
});
