import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Incident } from '@vigil/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDS, SEED } from '../readside/fixtures/seed-fixture.js';
import { OTHER_API_KEY, apiFor, startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
let serviceId: string;
beforeAll(async () => {
  api = await startTestServer({ seed: SEED });
  serviceId = (await api.post('/v1/status-pages/services', { name: 'Checkout' })).body.id;
  // A check that triggers incidents on the service, so the service's `checks` is not empty.
  await api.put(`/v1/checks/api/${IDS.apiCheck}`, {
    triggerIncident: { serviceId, severity: 'MAJOR', name: 'API down', description: 'd', notifySubscribers: false },
  });
});
afterAll(() => api.close());

const open = (overrides: Record<string, unknown> = {}) =>
  api.post('/v1/status-pages/incidents', {
    name: 'Checkout errors',
    severity: 'MAJOR',
    services: [{ id: serviceId }],
    incidentUpdates: [{ description: 'We are looking into it', status: 'INVESTIGATING' }],
    ...overrides,
  });
const postUpdate = (id: string, body: unknown) => api.post(`/v1/status-pages/incidents/${id}/incident-updates`, body);

describe('status-page incidents', () => {
  it('creates an incident with its services expanded and its first update', async () => {
    const reply = await open();
    expect(reply.status).toBe(201);
    expect(Incident.safeParse(reply.body).success).toBe(true);
    expect(reply.body).toMatchObject({
      name: 'Checkout errors',
      severity: 'MAJOR',
      lastUpdateStatus: 'INVESTIGATING',
      services: [{ id: serviceId, name: 'Checkout', accountId: 'acme', checks: [{ id: IDS.apiCheck, name: 'Homepage API' }] }],
      incidentUpdates: [{ description: 'We are looking into it', status: 'INVESTIGATING', notifySubscribers: false }],
    });
    expect((await api.get(`/v1/status-pages/incidents/${reply.body.id}`)).body).toEqual(reply.body);
  });

  it('moves lastUpdateStatus with each update, and reopens a resolved incident', async () => {
    const { id } = (await open()).body;
    const identified = await postUpdate(id, { description: 'Bad deploy', status: 'IDENTIFIED', notifySubscribers: true });
    // 200, as the real document answers this create.
    expect(identified.status).toBe(200);
    expect(identified.body).toMatchObject({ id: expect.any(String), description: 'Bad deploy', status: 'IDENTIFIED', notifySubscribers: true });
    const states: string[] = [];
    for (const status of ['MONITORING', 'RESOLVED', 'INVESTIGATING']) {
      await postUpdate(id, { description: status.toLowerCase(), status });
      states.push((await api.get(`/v1/status-pages/incidents/${id}`)).body.lastUpdateStatus);
    }
    expect(states).toEqual(['MONITORING', 'RESOLVED', 'INVESTIGATING']);
    const incident = (await api.get(`/v1/status-pages/incidents/${id}`)).body;
    expect(incident.incidentUpdates.map((u: { status: string }) => u.status)).toEqual([
      'INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED', 'INVESTIGATING',
    ]);
  });

  it('starts from lastUpdateStatus when created without updates', async () => {
    const reply = await open({ incidentUpdates: [], lastUpdateStatus: 'MONITORING' });
    expect(reply.body).toMatchObject({ lastUpdateStatus: 'MONITORING', incidentUpdates: [] });
  });

  it('merges a PUT: omitted fields keep their values', async () => {
    const { id } = (await open()).body;
    const reply = await api.put(`/v1/status-pages/incidents/${id}`, { severity: 'CRITICAL' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ name: 'Checkout errors', severity: 'CRITICAL', services: [{ id: serviceId }], lastUpdateStatus: 'INVESTIGATING' });
    const cleared = await api.put(`/v1/status-pages/incidents/${id}`, { services: [], lastUpdateStatus: 'RESOLVED' });
    expect(cleared.body).toMatchObject({ services: [], lastUpdateStatus: 'RESOLVED', severity: 'CRITICAL' });
  });

  it('deletes an incident', async () => {
    const { id } = (await open()).body;
    const reply = await api.delete(`/v1/status-pages/incidents/${id}`);
    expect([reply.status, reply.body]).toEqual([204, undefined]);
    expect((await api.get(`/v1/status-pages/incidents/${id}`)).status).toBe(404);
    expect((await api.delete(`/v1/status-pages/incidents/${id}`)).status).toBe(404);
  });

  it.each([
    [{ name: 'x'.repeat(256) }, ['name']],
    [{ name: '' }, ['name']],
    [{ severity: 'HUGE' }, ['severity']],
    [{ services: [{ id: 'no-such-service' }] }, ['services.0.id']],
    [{ incidentUpdates: [{ description: 'x', status: 'DONE' }] }, ['incidentUpdates.0.status']],
    [{ lastUpdateStatus: 'FIXED' }, ['lastUpdateStatus']],
  ])('rejects a create with %j naming %j', async (overrides, keys) => {
    const reply = await open(overrides);
    expect([reply.status, reply.body.validation]).toEqual([400, { source: 'payload', keys }]);
  });

  it('accepts a name of exactly 255 characters', async () => {
    expect((await open({ name: 'x'.repeat(255) })).status).toBe(201);
  });

  it.each([
    [{ status: 'DONE', description: 'x' }, ['status']],
    [{ status: 'RESOLVED' }, ['description']],
    [{ status: 'RESOLVED', description: 'x', publicIncidentUpdateDate: 'soon' }, ['publicIncidentUpdateDate']],
  ])('rejects an update with %j naming %j', async (body, keys) => {
    const { id } = (await open()).body;
    const reply = await postUpdate(id, body);
    expect([reply.status, reply.body.validation]).toEqual([400, { source: 'payload', keys }]);
  });

  it('rejects a PUT naming a missing service', async () => {
    const { id } = (await open()).body;
    const reply = await api.put(`/v1/status-pages/incidents/${id}`, { services: [{ id: serviceId }, { id: 'gone' }] });
    expect([reply.status, reply.body.validation]).toEqual([400, { source: 'payload', keys: ['services.1.id'] }]);
  });

  it('answers 404 on every id-taking route for another tenant', async () => {
    const { id } = (await open()).body;
    const other = apiFor(api.server, OTHER_API_KEY);
    expect((await other.get(`/v1/status-pages/incidents/${id}`)).status).toBe(404);
    expect((await other.put(`/v1/status-pages/incidents/${id}`, { severity: 'MINOR' })).status).toBe(404);
    expect((await other.post(`/v1/status-pages/incidents/${id}/incident-updates`, { description: 'x', status: 'RESOLVED' })).status).toBe(404);
    expect((await other.delete(`/v1/status-pages/incidents/${id}`)).status).toBe(404);
    expect((await other.post('/v1/status-pages/incidents', { name: 'n', severity: 'MINOR', services: [{ id: serviceId }] })).body.validation)
      .toEqual({ source: 'payload', keys: ['services.0.id'] });
    expect((await api.get(`/v1/status-pages/incidents/${id}`)).body.severity).toBe('MAJOR');
  });
});

describe('incident writes are safe to retry and durable', () => {
  it('replays a repeated Idempotency-Key instead of opening a second incident', async () => {
    const body = { name: 'Retried', severity: 'MINOR', services: [{ id: serviceId }] };
    const headers = { 'idempotency-key': 'incident-retry-1' };
    const first = await api.post('/v1/status-pages/incidents', body, { headers });
    const second = await api.post('/v1/status-pages/incidents', body, { headers });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.id).toBe(first.body.id);
  });

  it('keeps incidents and their updates across a restart', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'vigil-incidents-'));
    try {
      const first = await startTestServer({ dataDir });
      const service = (await first.post('/v1/status-pages/services', { name: 'API' })).body.id;
      const { id } = (await first.post('/v1/status-pages/incidents', { name: 'Outage', severity: 'CRITICAL', services: [{ id: service }] })).body;
      await first.post(`/v1/status-pages/incidents/${id}/incident-updates`, { description: 'Fixed', status: 'RESOLVED' });
      await first.close();
      const second = await startTestServer({ dataDir });
      const reply = await second.get(`/v1/status-pages/incidents/${id}`);
      expect(reply.body).toMatchObject({ name: 'Outage', lastUpdateStatus: 'RESOLVED', services: [{ id: service }], incidentUpdates: [{ status: 'RESOLVED' }] });
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
