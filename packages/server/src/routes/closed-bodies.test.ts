/**
 * Unknown properties and required fields as the real service's OpenAPI document has them: bodies it
 * closes (`additionalProperties: false`) refuse an unknown property with a 400 naming it; the others
 * accept it and drop it (docs/local-service.md); PUTs require what the document requires.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCheckBody, startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(() => api.close());

const dnsBody = (extra: Record<string, unknown> = {}) => ({ name: 'Resolver', request: { recordType: 'A', query: 'example.com' }, ...extra });

describe('closed bodies refuse unknown properties, naming each', () => {
  it.each([
    ['POST', '/v1/checks/dns', dnsBody({ colour: 'blue' }), ['colour'], '"colour" is not allowed'],
    ['POST', '/v1/checks/dns', dnsBody({ retryStrategy: { type: 'FIXED', jitter: 1 } }), ['retryStrategy.jitter'], '"retryStrategy.jitter" is not allowed'],
    ['POST', '/v1/analytics/checks', { checkIds: ['x'], colour: 'blue' }, ['colour'], '"colour" is not allowed'],
  ] as const)('%s %s %j', async (method, path, body, keys, message) => {
    const reply = await api.call(method, path, { body });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ statusCode: 400, message, validation: { source: 'payload', keys } });
  });

  it('accepts, and does not store, a property the document lists that a DNS monitor does not use', async () => {
    const reply = await api.post('/v1/checks/dns', dnsBody({ aiAutoRepairEnabled: true }));
    expect(reply.status).toBe(201);
    expect(reply.body).not.toHaveProperty('aiAutoRepairEnabled');
  });
});

describe('open bodies accept an unknown property and drop it', () => {
  it('POST /v1/checks/api', async () => {
    const reply = await api.post('/v1/checks/api', apiCheckBody({ colour: 'blue' }));
    expect(reply.status).toBe(201);
    expect(reply.body).not.toHaveProperty('colour');
    expect((await api.get(`/v1/checks/${reply.body.id}`)).body).not.toHaveProperty('colour');
  });
});

describe('the generic check calls take the real document\'s frequency set', () => {
  const generic = { name: 'Generic', checkType: 'HEARTBEAT', heartbeat: { period: 5, periodUnit: 'minutes', grace: 1, graceUnit: 'minutes' }, script: null };
  const message = '"frequency" must be one of [0, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440]';

  it('POST /v1/checks refuses frequency 7', async () => {
    const reply = await api.post('/v1/checks', { ...generic, frequency: 7 });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ message, validation: { source: 'payload', keys: ['frequency'] } });
  });

  it('PUT /v1/checks/{id} refuses frequency 7', async () => {
    const created = await api.post('/v1/checks/api', apiCheckBody());
    const reply = await api.put(`/v1/checks/${created.body.id}`, { frequency: 7 });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ message, validation: { source: 'payload', keys: ['frequency'] } });
  });
});

describe('PUTs require what the real document requires', () => {
  it('PUT /v1/checks/dns/{id} without name', async () => {
    const created = await api.post('/v1/checks/dns', dnsBody());
    const reply = await api.put(`/v1/checks/dns/${created.body.id}`, { frequency: 5 });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ message: '"name" is required', validation: { source: 'payload', keys: ['name'] } });
  });

  it('PUT /v1/status-pages/services/{id} without name', async () => {
    const created = await api.post('/v1/status-pages/services', { name: 'API' });
    const reply = await api.put(`/v1/status-pages/services/${created.body.id}`, {});
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ message: '"name" is required', validation: { source: 'payload', keys: ['name'] } });
  });

  it('PUT /v1/private-locations/{id} without name', async () => {
    const created = await api.post('/v1/private-locations', { name: 'Office', slugName: 'office' });
    expect(created.status).toBe(201);
    const reply = await api.put(`/v1/private-locations/${created.body.id}`, { icon: 'home' });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ message: '"name" is required', validation: { source: 'payload', keys: ['name'] } });
  });

  it('PUT /v1/alert-channels/{id} without config', async () => {
    const created = await api.post('/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' } });
    const reply = await api.put(`/v1/alert-channels/${created.body.id}`, { type: 'EMAIL', sendRecovery: false });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ message: '"config" is required', validation: { source: 'payload', keys: ['config'] } });
  });
});
