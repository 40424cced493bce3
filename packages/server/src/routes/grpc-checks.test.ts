import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCheckBody, startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

const grpcBody = (overrides: Record<string, unknown> = {}) => ({ name: 'Orders health', request: { url: 'orders.example.com', port: 50051, grpcConfig: { mode: 'HEALTH' } }, ...overrides });
const request = (extra: Record<string, unknown>) => grpcBody({ request: { url: 'orders.example.com', port: 50051, grpcConfig: { mode: 'HEALTH' }, ...extra } });

describe('POST /v1/checks/grpc', () => {
  it("creates a gRPC monitor with the real service's defaults", async () => {
    const reply = await api.post('/v1/checks/grpc', grpcBody());
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      checkType: 'GRPC',
      degradedResponseTime: 10000,
      maxResponseTime: 20000,
      request: { url: 'orders.example.com', port: 50051, ipFamily: 'IPv4', skipSSL: false, timeout: 60, grpcConfig: { mode: 'HEALTH', tls: true, metadata: [] }, assertions: [] },
    });
    expect((await api.get(`/v1/checks/${reply.body.id}`)).body.request).toEqual(reply.body.request);
    expect((await api.get('/v1/checks?checkType=GRPC')).body.map((check: { id: string }) => check.id)).toContain(reply.body.id);
  });

  it.each([
    [grpcBody({ request: { url: 'h', port: 1 } }), 'request.grpcConfig', '"request.grpcConfig" is required'],
    [request({ port: 70000 }), 'request.port', '"request.port" must be less than or equal to 65535'],
    [request({ timeout: 181 }), 'request.timeout', '"request.timeout" must be less than or equal to 180'],
    [request({ grpcConfig: { mode: 'STREAM' } }), 'request.grpcConfig.mode', '"request.grpcConfig.mode" must be one of [BEHAVIOR, HEALTH]'],
    [request({ grpcConfig: { metadata: [{ key: '', value: 'x' }] } }), 'request.grpcConfig.metadata.0.key', '"request.grpcConfig.metadata[0].key" is not allowed to be empty'],
    [grpcBody({ maxResponseTime: 180001 }), 'maxResponseTime', '"maxResponseTime" must be less than or equal to 180000'],
    [
      request({ assertions: [{ source: 'GRPC_STATUS_CODE', comparison: 'MATCHES', target: '0' }] }),
      'request.assertions.0.comparison',
      '"request.assertions[0].comparison" must be one of [EQUALS, NOT_EQUALS, HAS_KEY, NOT_HAS_KEY, HAS_VALUE, NOT_HAS_VALUE, IS_EMPTY, NOT_EMPTY, GREATER_THAN, LESS_THAN, CONTAINS, NOT_CONTAINS, IS_NULL, NOT_NULL]',
    ],
  ])('refuses %j with 400 naming %s', async (body, key, message) => {
    const reply = await api.post('/v1/checks/grpc', body);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ statusCode: 400, message, validation: { source: 'payload', keys: [key] } });
  });
});

describe('PUT /v1/checks/grpc/{id}', () => {
  it('merges an update and keeps what it leaves out', async () => {
    const created = await api.post('/v1/checks/grpc', grpcBody({ tags: ['rpc'] }));
    const updated = await api.put(`/v1/checks/grpc/${created.body.id}`, { request: { url: 'api.example.com', port: 443, grpcConfig: { mode: 'HEALTH', service: 'orders' } } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ tags: ['rpc'], request: { url: 'api.example.com', port: 443, grpcConfig: { mode: 'HEALTH', service: 'orders' } } });
  });

  it('reads a check of another type as missing', async () => {
    const other = await api.post('/v1/checks/api', apiCheckBody());
    const reply = await api.put(`/v1/checks/grpc/${other.body.id}`, { name: 'x' });
    expect(reply.status).toBe(404);
    expect(reply.body.message).toBe(`gRPC monitor ${other.body.id} not found`);
  });
});
