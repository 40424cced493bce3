/**
 * Checks written as units of work over the storage ports: the Idempotency-Key rules of the unit route
 * (the same as every POST's), the alert-subscription index written in the check's own unit, and ids
 * the ports would refuse reading as missing.
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

async function checkNames(): Promise<string[]> {
  return (await api.get('/v1/checks?limit=100')).body.map((check: { name: string }) => check.name);
}

describe('Idempotency-Key on checks', () => {
  it('replays a repeated create with the first response (same id and offset) and creates one check', async () => {
    const first = await api.post('/v1/checks/api', apiCheckBody({ name: 'Once' }), { headers: { 'idempotency-key': 'check-1' } });
    const second = await api.post('/v1/checks/api', apiCheckBody({ name: 'Once' }), { headers: { 'idempotency-key': 'check-1' } });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect((await checkNames()).filter((name) => name === 'Once')).toHaveLength(1);
  });

  it('refuses the key with a different body with 422', async () => {
    expect((await api.post('/v1/checks/api', apiCheckBody({ name: 'A' }), { headers: { 'idempotency-key': 'check-2' } })).status).toBe(201);
    const reuse = await api.post('/v1/checks/api', apiCheckBody({ name: 'B' }), { headers: { 'idempotency-key': 'check-2' } });
    expect(reuse.status).toBe(422);
    expect(reuse.body).toEqual({ statusCode: 422, error: 'Unprocessable Entity', message: 'Idempotency-Key "check-2" was already used for a different request' });
    expect(await checkNames()).not.toContain('B');
  });

  it('stores neither a check nor the key for a refused create, so a corrected retry with the key succeeds', async () => {
    const refused = await api.post('/v1/checks/api', apiCheckBody({ name: 'Grouped', groupId: 999_999 }), { headers: { 'idempotency-key': 'check-3' } });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('"groupId" references check group 999999, which does not exist');
    expect(await checkNames()).not.toContain('Grouped');
    const fixed = await api.post('/v1/checks/api', apiCheckBody({ name: 'Grouped' }), { headers: { 'idempotency-key': 'check-3' } });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('check references', () => {
  it('refuses a status-page service and an alert channel that do not exist, naming them', async () => {
    const service = await api.post('/v1/checks/api', apiCheckBody({ name: 'Triggers', triggerIncident: { serviceId: 'no-such-service', name: 'Down', severity: 'MAJOR', description: 'x', notifySubscribers: false } }));
    expect(service.status).toBe(400);
    expect(service.body.message).toBe('"triggerIncident.serviceId" references status-page service no-such-service, which does not exist');
    const channel = await api.post('/v1/checks/api', apiCheckBody({ name: 'Alerted', alertChannelSubscriptions: [{ alertChannelId: 424_242, activated: true }] }));
    expect(channel.status).toBe(400);
    expect(channel.body.message).toBe('"alertChannelSubscriptions[0].alertChannelId" references alert channel 424242, which does not exist');
    expect(await checkNames()).not.toContain('Alerted');
  });
});

describe('check subscriptions', () => {
  it('indexes a check\'s channels with it: the channel lists the check, sent or kept on update, until the check goes', async () => {
    const channel = await api.post('/v1/alert-channels', { type: 'EMAIL', config: { address: 'checks@example.com' } });
    expect(channel.status).toBe(201);
    const check = await api.post('/v1/checks/api?autoAssignAlerts=false', apiCheckBody({ name: 'Subscribed', alertChannelSubscriptions: [{ alertChannelId: channel.body.id, activated: true }] }));
    expect(check.status).toBe(201);
    expect(check.body.alertChannels.email).toEqual([{ address: 'checks@example.com' }]);
    const subscribers = async (): Promise<Array<{ checkId: string | null; activated: boolean }>> => (await api.get(`/v1/alert-channels/${channel.body.id}`)).body.subscriptions;
    expect(await subscribers()).toContainEqual(expect.objectContaining({ checkId: check.body.id, activated: true }));
    const updated = await api.put(`/v1/checks/api/${check.body.id}?autoAssignAlerts=false`, { alertChannelSubscriptions: [{ alertChannelId: channel.body.id, activated: false }] });
    expect(updated.status).toBe(200);
    expect(updated.body.alertChannels.email).toEqual([]);
    expect(await subscribers()).toContainEqual(expect.objectContaining({ checkId: check.body.id, activated: false }));
    // A PUT that does not send subscriptions keeps them.
    expect((await api.put(`/v1/checks/api/${check.body.id}?autoAssignAlerts=false`, { name: 'Renamed' })).body.alertChannelSubscriptions).toEqual([{ alertChannelId: channel.body.id, activated: false }]);
    const listed = (await api.get('/v1/checks?limit=100')).body.find((item: { id: string }) => item.id === check.body.id);
    expect(listed).toEqual((await api.get(`/v1/checks/${check.body.id}`)).body);
    expect((await api.delete(`/v1/checks/${check.body.id}`)).status).toBe(204);
    expect((await subscribers()).map((subscriber) => subscriber.checkId)).not.toContain(check.body.id);
  });
});

describe('check ids the storage refuses', () => {
  it('answers 404 for an id longer than any stored id, on get, update and delete', async () => {
    const id = 'x'.repeat(300);
    const replies = [await api.get(`/v1/checks/${id}`), await api.put(`/v1/checks/api/${id}`, { name: 'x' }), await api.delete(`/v1/checks/${id}`)];
    expect(replies.map((reply) => [reply.status, reply.body.message])).toEqual([
      [404, `Check ${id} not found`],
      [404, `API check ${id} not found`],
      [404, `Check ${id} not found`],
    ]);
  });
});
