import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCheckBody, startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

const tcpBody = (overrides: Record<string, unknown> = {}) => ({ name: 'Database port', request: { hostname: 'db.example.com', port: 5432 }, ...overrides });
const urlBody = (overrides: Record<string, unknown> = {}) => ({ name: 'Homepage', request: { url: 'https://example.com/' }, ...overrides });

describe('POST /v1/checks/tcp and /v1/checks/url', () => {
  it('creates a TCP monitor with the real service\'s defaults', async () => {
    const reply = await api.post('/v1/checks/tcp', tcpBody());
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      checkType: 'TCP',
      frequency: 10,
      degradedResponseTime: 3000,
      maxResponseTime: 5000,
      request: { hostname: 'db.example.com', port: 5432, data: null, ipFamily: 'IPv4', assertions: [] },
    });
    expect((await api.get(`/v1/checks/${reply.body.id}`)).body.request).toEqual(reply.body.request);
  });

  it('creates a URL monitor as a GET with the real service\'s defaults', async () => {
    const reply = await api.post('/v1/checks/url', urlBody());
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      checkType: 'URL',
      degradedResponseTime: 3000,
      maxResponseTime: 5000,
      request: { method: 'GET', url: 'https://example.com/', followRedirects: true, skipSSL: false, ipFamily: 'IPv4', assertions: [] },
    });
  });

  it.each([
    ['/v1/checks/url', urlBody({ frequency: 0, frequencyOffset: 20 })],
    ['/v1/checks/dns', { name: 'Resolver', request: { recordType: 'A', query: 'example.com' }, frequency: 0, frequencyOffset: 30 }],
  ])('%s runs sub-minute (frequency 0, offset 10/20/30), as the real document allows', async (route, body) => {
    const reply = await api.post(route, body);
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ frequency: 0, frequencyOffset: (body as { frequencyOffset: number }).frequencyOffset });
    const moved = await api.put(`${route}/${reply.body.id}`, { name: body.name, frequency: 1 });
    expect(moved.body).toMatchObject({ frequency: 1 });
    const back = await api.put(`${route}/${reply.body.id}`, { name: body.name, frequency: 0 });
    // An offset the caller never chose for sub-minute runs is re-assigned: 10 seconds.
    expect(back.body).toMatchObject({ frequency: 0, frequencyOffset: 10 });
  });

  it.each([
    ['/v1/checks/tcp', tcpBody({ request: { hostname: 'db.example.com' } }), 'request.port', '"request.port" is required'],
    ['/v1/checks/tcp', tcpBody({ request: { hostname: 'db.example.com', port: 70000 } }), 'request.port', '"request.port" must be less than or equal to 65535'],
    ['/v1/checks/tcp', tcpBody({ maxResponseTime: 6000 }), 'maxResponseTime', '"maxResponseTime" must be less than or equal to 5000'],
    [
      '/v1/checks/tcp',
      tcpBody({ request: { hostname: 'h', port: 1, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] } }),
      'request.assertions.0.source',
      '"request.assertions[0].source" must be one of [RESPONSE_DATA, RESPONSE_TIME]',
    ],
    ['/v1/checks/url', urlBody({ request: { url: 'https://example.com/', method: 'POST' } }), 'request.method', '"request.method" must be [GET]'],
    ['/v1/checks/url', urlBody({ frequency: 0, frequencyOffset: 15 }), 'frequencyOffset', '"frequencyOffset" must be 10, 20 or 30 when frequency is 0'],
    [
      '/v1/checks/url',
      urlBody({ request: { url: 'https://example.com/', assertions: [{ source: 'STATUS_CODE', comparison: 'CONTAINS', target: '2' }] } }),
      'request.assertions.0.comparison',
      '"request.assertions[0].comparison" must be one of [EQUALS, NOT_EQUALS, LESS_THAN, GREATER_THAN]',
    ],
  ])('%s refuses %j with 400 naming %s', async (route, body, key, message) => {
    const reply = await api.post(route, body);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ statusCode: 400, message, validation: { source: 'payload', keys: [key] } });
  });
});

describe('PUT /v1/checks/tcp/{id} and /v1/checks/url/{id}', () => {
  it('merges an update and keeps what it leaves out', async () => {
    const created = await api.post('/v1/checks/tcp', tcpBody({ tags: ['db'] }));
    const updated = await api.put(`/v1/checks/tcp/${created.body.id}`, { request: { hostname: 'db2.example.com', port: 5433, data: 'PING' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ tags: ['db'], request: { hostname: 'db2.example.com', port: 5433, data: 'PING' } });
  });

  it('reads a check of another type as missing', async () => {
    const other = await api.post('/v1/checks/api', apiCheckBody());
    const reply = await api.put(`/v1/checks/url/${other.body.id}`, { name: 'x' });
    expect(reply.status).toBe(404);
    expect(reply.body.message).toBe(`URL monitor ${other.body.id} not found`);
  });
});
