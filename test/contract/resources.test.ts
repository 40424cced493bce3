/**
 * Alert channels, maintenance windows and status-page services, incidents and incident updates
 * through the client against the real service: every call, each response parsed by its schema.
 */
import { NotFoundError, ValidationError } from '@vigil/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, rejection, startService, type Service } from './service.js';

let service: Service;
beforeAll(async () => {
  service = await startService();
});
afterAll(() => service.close());

describe('alert channels', () => {
  it('creates, reads, lists, updates and deletes channels of several types', async () => {
    const client = service.client();
    const email = await client.alertChannels.create({ type: 'EMAIL', config: { address: 'ops@example.test' } });
    const webhook = await client.alertChannels.create({
      type: 'WEBHOOK',
      config: { name: 'hook', url: 'https://hooks.example.test/x', method: 'POST', headers: [], queryParameters: [] },
      sendDegraded: true,
    });
    expect(email).toMatchObject({ type: 'EMAIL', config: { address: 'ops@example.test' }, subscriptions: [] });
    expect(webhook).toMatchObject({ type: 'WEBHOOK', sendDegraded: true });
    expect(await client.alertChannels.get(email.id)).toMatchObject({ id: email.id, type: 'EMAIL' });
    expect((await collect(client.alertChannels.listAll())).map((channel) => channel.id)).toEqual(expect.arrayContaining([email.id, webhook.id]));
    expect(await client.alertChannels.list({ limit: 1 })).toHaveLength(1);
    // The real document requires the config on this PUT.
    const updated = await client.alertChannels.update(email.id, { type: 'EMAIL', config: { address: 'ops@example.test' }, sendRecovery: false });
    expect(updated).toMatchObject({ id: email.id, sendRecovery: false, config: { address: 'ops@example.test' } });
    expect(await client.alertChannels.delete(webhook.id)).toBeUndefined();
    expect(await rejection(client.alertChannels.get(webhook.id))).toBeInstanceOf(NotFoundError);
  });

  it('refuses an SSL expiry threshold out of range, naming the field', async () => {
    const error = await rejection(service.client().alertChannels.create({ type: 'EMAIL', config: { address: 'a@example.test' }, sslExpiryThreshold: 31 }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).keys).toEqual(['sslExpiryThreshold']);
  });
});

describe('maintenance windows', () => {
  it('creates, reads, lists, updates and deletes a window', async () => {
    const client = service.client();
    const window = await client.maintenanceWindows.create({
      name: 'deploys',
      startsAt: '2030-01-01T10:00:00.000Z',
      endsAt: '2030-01-01T11:00:00.000Z',
      repeatUnit: 'DAY',
      repeatInterval: 1,
      tags: ['api'],
    });
    expect(window).toMatchObject({ name: 'deploys', repeatUnit: 'DAY', repeatInterval: 1, tags: ['api'], id: expect.any(Number) });
    expect(await client.maintenanceWindows.get(window.id)).toMatchObject({ id: window.id, name: 'deploys' });
    expect((await collect(client.maintenanceWindows.listAll())).map((each) => each.id)).toContain(window.id);
    expect(await client.maintenanceWindows.list()).toEqual(expect.arrayContaining([expect.objectContaining({ id: window.id })]));
    const updated = await client.maintenanceWindows.update(window.id, { name: 'deploy freeze' });
    expect(updated).toMatchObject({ id: window.id, name: 'deploy freeze', tags: ['api'] });
    expect(await client.maintenanceWindows.delete(window.id)).toBeUndefined();
    expect(await rejection(client.maintenanceWindows.get(window.id))).toBeInstanceOf(NotFoundError);
  });

  it('refuses a window that ends before it starts', async () => {
    const error = await rejection(
      service.client().maintenanceWindows.create({ name: 'backwards', startsAt: '2030-01-02', endsAt: '2030-01-01', repeatUnit: 'DAY' }),
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe('[POST] "/v1/maintenance-windows": 400 Bad Request — "endsAt" must be after "startsAt"');
  });
});

describe('status pages', () => {
  it('creates, reads, lists, updates and deletes a service', async () => {
    const client = service.client();
    const created = await client.statusPages.services.create({ name: 'Payments' });
    expect(created).toMatchObject({ name: 'Payments', accountId: 'local', checks: [] });
    expect(await client.statusPages.services.get(created.id)).toMatchObject({ id: created.id });
    expect((await collect(client.statusPages.services.listAll())).map((each) => each.id)).toContain(created.id);
    expect((await client.statusPages.services.list({ limit: 5 })).entries).toEqual(expect.arrayContaining([expect.objectContaining({ id: created.id })]));
    expect(await client.statusPages.services.update(created.id, { name: 'Payments API' })).toMatchObject({ name: 'Payments API' });
    expect(await client.statusPages.services.delete(created.id)).toBeUndefined();
    expect(await rejection(client.statusPages.services.get(created.id))).toBeInstanceOf(NotFoundError);
  });

  it('opens an incident, posts updates to it, edits and deletes it', async () => {
    const client = service.client();
    const payments = await client.statusPages.services.create({ name: 'Checkout' });
    const incident = await client.statusPages.incidents.create({ name: 'Checkout errors', severity: 'MAJOR', services: [{ id: payments.id }] });
    expect(incident).toMatchObject({ name: 'Checkout errors', severity: 'MAJOR', lastUpdateStatus: 'INVESTIGATING', services: [{ id: payments.id, name: 'Checkout' }] });
    const update = await client.statusPages.incidentUpdates.create(incident.id, { description: 'Found the bad deploy', status: 'IDENTIFIED' });
    expect(update).toMatchObject({ description: 'Found the bad deploy', status: 'IDENTIFIED', notifySubscribers: false });
    const read = await client.statusPages.incidents.get(incident.id);
    expect(read.lastUpdateStatus).toBe('IDENTIFIED');
    expect(read.incidentUpdates.map((each) => each.id)).toContain(update.id);
    expect(await client.statusPages.incidents.update(incident.id, { severity: 'MINOR' })).toMatchObject({ id: incident.id, severity: 'MINOR' });
    expect(await client.statusPages.incidents.delete(incident.id)).toBeUndefined();
    expect(await rejection(client.statusPages.incidents.get(incident.id))).toBeInstanceOf(NotFoundError);
  });
});
