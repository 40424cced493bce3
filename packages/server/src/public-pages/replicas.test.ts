/**
 * Two services on one database, as replicas run: a page one of them keeps rendered (page-cache.ts)
 * shows at its very next visit what the other wrote — a service renamed, a check linked, a
 * maintenance window, an incident — since what it is kept under is the database's, not a process's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCheckBody, startTestServer, type TestApi } from '../test-support.js';

const DAY_MS = 86_400_000;
let dataDir: string;
let first: TestApi;
let second: TestApi;
let serviceId: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'vigil-public-replicas-'));
  first = await startTestServer({ dataDir });
  second = await startTestServer({ dataDir });
  const service = await first.post('/v1/status-pages/services', { name: 'Shop' });
  serviceId = (service.body as { id: string }).id;
  const page = await first.post('/v1/status-pages', { name: 'Two replicas', url: 'two-replicas', cards: [{ name: 'Core', services: [{ id: serviceId }] }] });
  expect([service.status, page.status]).toEqual([200, 201]);
});
afterAll(async () => {
  await Promise.all([first?.close(), second?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

/** The page as the first service answers a visitor. */
async function pageOnFirst(): Promise<string> {
  const response = await fetch(`${first.server.url}/status/two-replicas`);
  expect(response.status).toBe(200);
  return response.text();
}

describe('a page kept by one replica', () => {
  it("shows the other replica's writes at the very next visit", async () => {
    expect(await pageOnFirst()).toContain('Shop');

    expect((await second.put(`/v1/status-pages/services/${serviceId}`, { name: 'Storefront' })).status).toBe(200);
    expect(await pageOnFirst()).toContain('Storefront');

    const check = await second.post('/v1/checks/api', apiCheckBody({ name: 'Storefront API', tags: ['storefront'], activated: false, triggerIncident: { serviceId, name: 'Down', severity: 'MAJOR' } }));
    expect(check.status).toBe(201);
    const tomorrow = Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS;
    const window = await second.post('/v1/maintenance-windows', {
      name: 'Storefront upgrade',
      tags: ['storefront'],
      startsAt: new Date(tomorrow + 3_600_000).toISOString(),
      endsAt: new Date(tomorrow + 7_200_000).toISOString(),
      repeatUnit: 'DAY',
    });
    expect(window.status).toBe(201);
    expect(await pageOnFirst()).toContain('Storefront upgrade');

    const incident = await second.post('/v1/status-pages/incidents', {
      name: 'Checkout is slow',
      severity: 'MINOR',
      services: [{ id: serviceId }],
      incidentUpdates: [{ description: 'Looking into it.', status: 'INVESTIGATING' }],
    });
    expect(incident.status).toBe(201);
    expect(await pageOnFirst()).toContain('Checkout is slow');
  });
});
