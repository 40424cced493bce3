/**
 * Status-page services written as units of work over the storage ports: the Idempotency-Key rules of
 * the unit route (a create answers 200), the 404s, the cursor kept across a delete, and a service's
 * checks read through the documents port's service filter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCheckBody, startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

describe('Idempotency-Key on status-page services', () => {
  it('replays a repeated create with the first response and creates one service', async () => {
    const first = await api.post('/v1/status-pages/services', { name: 'Once' }, { headers: { 'idempotency-key': 'service-1' } });
    const second = await api.post('/v1/status-pages/services', { name: 'Once' }, { headers: { 'idempotency-key': 'service-1' } });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const names = (await api.get('/v1/status-pages/services?limit=100')).body.entries.map((service: { name: string }) => service.name);
    expect(names.filter((name: string) => name === 'Once')).toHaveLength(1);
  });
});

describe('status-page service reads and writes', () => {
  it('answers 404 naming the service for an id no service has, on get, update and delete', async () => {
    for (const reply of [
      await api.get('/v1/status-pages/services/no-such-service'),
      await api.put('/v1/status-pages/services/no-such-service', { name: 'x' }),
      await api.delete('/v1/status-pages/services/no-such-service'),
    ]) {
      expect(reply.status).toBe(404);
      expect(reply.body.message).toBe('Status-page service no-such-service not found');
    }
  });

  it('goes on from a cursor whose service was deleted, without skipping or repeating one', async () => {
    const fresh = await startTestServer();
    try {
      for (const name of ['A', 'B', 'C']) await fresh.post('/v1/status-pages/services', { name });
      const first = await fresh.get('/v1/status-pages/services?limit=2');
      expect(first.body.entries.map((service: { name: string }) => service.name)).toEqual(['A', 'B']);
      expect((await fresh.delete(`/v1/status-pages/services/${first.body.entries[1].id}`)).status).toBe(204);
      await fresh.post('/v1/status-pages/services', { name: 'D' });
      const rest = await fresh.get(`/v1/status-pages/services?limit=2&nextId=${first.body.nextId}`);
      expect(rest.body).toMatchObject({ length: 2, nextId: null });
      expect(rest.body.entries.map((service: { name: string }) => service.name)).toEqual(['C', 'D']);
    } finally {
      await fresh.close();
    }
  });

  it('lists the checks that open incidents on the service, oldest first, on get, update and list', async () => {
    const service = await api.post('/v1/status-pages/services', { name: 'Payments' });
    const trigger = { serviceId: service.body.id, severity: 'MAJOR', name: 'Payments down' };
    const one = await api.post('/v1/checks/api', apiCheckBody({ name: 'Pay API', triggerIncident: trigger }));
    const two = await api.post('/v1/checks/api', apiCheckBody({ name: 'Pay page', triggerIncident: trigger }));
    await api.post('/v1/checks/api', apiCheckBody({ name: 'Unrelated' }));
    const expected = [{ id: one.body.id, name: 'Pay API' }, { id: two.body.id, name: 'Pay page' }];
    expect((await api.get(`/v1/status-pages/services/${service.body.id}`)).body.checks).toEqual(expected);
    expect((await api.put(`/v1/status-pages/services/${service.body.id}`, { name: 'Payments EU' })).body).toMatchObject({ name: 'Payments EU', checks: expected });
    const listed = (await api.get('/v1/status-pages/services?limit=100')).body.entries.find((entry: { id: string }) => entry.id === service.body.id);
    expect(listed.checks).toEqual(expected);
  });
});

describe('deleting a status-page service (one unit of work)', () => {
  it('is refused (409) while checks open incidents on it, naming them in order, and keeps the service', async () => {
    const service = await api.post('/v1/status-pages/services', { name: 'Checkout' });
    const trigger = { serviceId: service.body.id, severity: 'MAJOR', name: 'Checkout down' };
    const one = await api.post('/v1/checks/api', apiCheckBody({ name: 'Checkout API', triggerIncident: trigger }));
    const two = await api.post('/v1/checks/api', apiCheckBody({ name: 'Checkout page', triggerIncident: trigger }));
    const refused = await api.delete(`/v1/status-pages/services/${service.body.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(`Status-page service ${service.body.id} is still used by checks: ${one.body.id}, ${two.body.id}`);
    expect((await api.get(`/v1/status-pages/services/${service.body.id}`)).status).toBe(200);
    for (const check of [one, two]) await api.delete(`/v1/checks/${check.body.id}`);
    expect((await api.delete(`/v1/status-pages/services/${service.body.id}`)).status).toBe(204);
    expect((await api.get(`/v1/status-pages/services/${service.body.id}`)).status).toBe(404);
  });

  it('is refused (409) while status pages show it, naming each page as it is now, oldest first', async () => {
    const service = await api.post('/v1/status-pages/services', { name: 'Search' });
    const cards = [{ name: 'Search', services: [{ id: service.body.id }] }];
    const first = await api.post('/v1/status-pages', { name: 'Public', url: 'delete-unit-public', cards });
    const second = await api.post('/v1/status-pages', { name: 'Internal', url: 'delete-unit-internal', cards: [{ name: 'Other', services: [] }, ...cards] });
    await api.put(`/v1/status-pages/${first.body.id}`, { name: 'Public "v2"', url: 'delete-unit-public', cards });
    const refused = await api.delete(`/v1/status-pages/services/${service.body.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(`Status-page service ${service.body.id} is still shown on status pages: "Public \\"v2\\"" (${first.body.id}), "Internal" (${second.body.id})`);
    // A card that stops showing it no longer counts.
    await api.put(`/v1/status-pages/${second.body.id}`, { name: 'Internal', url: 'delete-unit-internal', cards: [{ name: 'Other', services: [] }] });
    const still = await api.delete(`/v1/status-pages/services/${service.body.id}`);
    expect(still.body.message).toBe(`Status-page service ${service.body.id} is still shown on status pages: "Public \\"v2\\"" (${first.body.id})`);
    await api.delete(`/v1/status-pages/${first.body.id}`);
    expect((await api.delete(`/v1/status-pages/services/${service.body.id}`)).status).toBe(204);
    await api.delete(`/v1/status-pages/${second.body.id}`);
  });
});
