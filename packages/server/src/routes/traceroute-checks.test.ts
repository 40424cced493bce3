import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCheckBody, startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

const tracerouteBody = (overrides: Record<string, unknown> = {}) => ({ name: 'Edge route', request: { url: 'edge.example.com' }, ...overrides });
const request = (extra: Record<string, unknown>) => tracerouteBody({ request: { url: 'edge.example.com', ...extra } });

describe('POST /v1/checks/traceroute', () => {
  it("creates a traceroute monitor with the real service's defaults", async () => {
    const reply = await api.post('/v1/checks/traceroute', tracerouteBody());
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      checkType: 'TRACEROUTE',
      frequency: 10,
      degradedResponseTime: 10000,
      maxResponseTime: 20000,
      request: { url: 'edge.example.com', protocol: 'TCP', port: null, ipFamily: 'IPv4', maxHops: 30, maxUnknownHops: 15, ptrLookup: true, timeout: 10, assertions: [] },
    });
    expect((await api.get(`/v1/checks/${reply.body.id}`)).body.request).toEqual(reply.body.request);
    expect((await api.get('/v1/checks?checkType=TRACEROUTE')).body.map((check: { id: string }) => check.id)).toContain(reply.body.id);
  });

  it.each([
    [tracerouteBody({ request: {} }), 'request.url', '"request.url" is required'],
    [request({ maxHops: 65 }), 'request.maxHops', '"request.maxHops" must be less than or equal to 64'],
    [request({ maxUnknownHops: 31 }), 'request.maxUnknownHops', '"request.maxUnknownHops" must be less than or equal to 30'],
    [request({ timeout: 0 }), 'request.timeout', '"request.timeout" must be greater than or equal to 1'],
    [request({ port: 0 }), 'request.port', '"request.port" must be greater than or equal to 1'],
    [request({ protocol: 'QUIC' }), 'request.protocol', '"request.protocol" must be one of [TCP, ICMP, UDP, SCTP]'],
    [tracerouteBody({ maxResponseTime: 40000 }), 'maxResponseTime', '"maxResponseTime" must be less than or equal to 30000'],
    [
      request({ assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] }),
      'request.assertions.0.source',
      '"request.assertions[0].source" must be one of [RESPONSE_TIME, HOP_COUNT, PACKET_LOSS]',
    ],
  ])('refuses %j with 400 naming %s', async (body, key, message) => {
    const reply = await api.post('/v1/checks/traceroute', body);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ statusCode: 400, message, validation: { source: 'payload', keys: [key] } });
  });
});

describe('PUT /v1/checks/traceroute/{id}', () => {
  it('merges an update and keeps what it leaves out', async () => {
    const created = await api.post('/v1/checks/traceroute', tracerouteBody({ tags: ['net'] }));
    const updated = await api.put(`/v1/checks/traceroute/${created.body.id}`, { request: { url: 'api.example.com', protocol: 'UDP', maxHops: 10 } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ tags: ['net'], request: { url: 'api.example.com', protocol: 'UDP', maxHops: 10 } });
  });

  it('reads a check of another type as missing', async () => {
    const other = await api.post('/v1/checks/api', apiCheckBody());
    const reply = await api.put(`/v1/checks/traceroute/${other.body.id}`, { name: 'x' });
    expect(reply.status).toBe(404);
    expect(reply.body.message).toBe(`Traceroute monitor ${other.body.id} not found`);
  });
});
