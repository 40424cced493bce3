import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCheckBody, startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

const sslBody = (overrides: Record<string, unknown> = {}) => ({ name: 'Shop certificate', request: { sslConfig: { hostname: 'shop.example.com' } }, ...overrides });

describe('POST /v1/checks/ssl', () => {
  it("creates an SSL monitor with the real service's defaults", async () => {
    const reply = await api.post('/v1/checks/ssl', sslBody());
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      checkType: 'SSL',
      frequency: 10,
      degradedResponseTime: 3000,
      maxResponseTime: 10000,
      request: {
        sslConfig: { hostname: 'shop.example.com', port: 443, ipFamily: 'IPv4', skipChainValidation: false, handshakeTimeoutMs: 10000, alertDaysBeforeExpiry: 20 },
        assertions: [],
      },
    });
    expect((await api.get(`/v1/checks/${reply.body.id}`)).body.request).toEqual(reply.body.request);
    expect((await api.get('/v1/checks?checkType=SSL')).body.map((check: { id: string }) => check.id)).toContain(reply.body.id);
  });

  it.each([
    [sslBody({ request: {} }), 'request.sslConfig', '"request.sslConfig" is required'],
    [sslBody({ request: { sslConfig: { hostname: 'h', port: 70000 } } }), 'request.sslConfig.port', '"request.sslConfig.port" must be less than or equal to 65535'],
    [sslBody({ request: { sslConfig: { hostname: 'h', alertDaysBeforeExpiry: 400 } } }), 'request.sslConfig.alertDaysBeforeExpiry', '"request.sslConfig.alertDaysBeforeExpiry" must be less than or equal to 365'],
    [sslBody({ request: { sslConfig: { hostname: 'h', handshakeTimeoutMs: 500 } } }), 'request.sslConfig.handshakeTimeoutMs', '"request.sslConfig.handshakeTimeoutMs" must be greater than or equal to 1000'],
    [sslBody({ maxResponseTime: 40000 }), 'maxResponseTime', '"maxResponseTime" must be less than or equal to 30000'],
    [
      sslBody({ request: { sslConfig: { hostname: 'h' }, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] } }),
      'request.assertions.0.source',
      '"request.assertions[0].source" must be one of [CERTIFICATE, CONNECTION, RESPONSE_TIME, JSON_RESPONSE, TEXT_RESPONSE]',
    ],
  ])('refuses %j with 400 naming %s', async (body, key, message) => {
    const reply = await api.post('/v1/checks/ssl', body);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ statusCode: 400, message, validation: { source: 'payload', keys: [key] } });
  });
});

describe('PUT /v1/checks/ssl/{id}', () => {
  it('merges an update and keeps what it leaves out', async () => {
    const created = await api.post('/v1/checks/ssl', sslBody({ tags: ['tls'] }));
    const updated = await api.put(`/v1/checks/ssl/${created.body.id}`, { request: { sslConfig: { hostname: 'api.example.com', port: 8443 } } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ tags: ['tls'], request: { sslConfig: { hostname: 'api.example.com', port: 8443 } } });
  });

  it('reads a check of another type as missing', async () => {
    const other = await api.post('/v1/checks/api', apiCheckBody());
    const reply = await api.put(`/v1/checks/ssl/${other.body.id}`, { name: 'x' });
    expect(reply.status).toBe(404);
    expect(reply.body.message).toBe(`SSL monitor ${other.body.id} not found`);
  });
});
