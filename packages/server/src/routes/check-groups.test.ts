/**
 * Check groups written as units of work over the storage ports: the Idempotency-Key rules of the
 * unit route (the same as every POST's) and the alert-subscription index written in the same unit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

async function groupNames(): Promise<string[]> {
  return (await api.get('/v1/check-groups?limit=100')).body.map((group: { name: string }) => group.name);
}

describe('Idempotency-Key on check groups', () => {
  it('replays a repeated create with the first response and creates one group', async () => {
    const first = await api.post('/v2/check-groups', { name: 'Once' }, { headers: { 'idempotency-key': 'group-1' } });
    const second = await api.post('/v2/check-groups', { name: 'Once' }, { headers: { 'idempotency-key': 'group-1' } });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect((await groupNames()).filter((name) => name === 'Once')).toHaveLength(1);
  });

  it('refuses the key with a different body with 422', async () => {
    expect((await api.post('/v2/check-groups', { name: 'A' }, { headers: { 'idempotency-key': 'group-2' } })).status).toBe(201);
    const reuse = await api.post('/v2/check-groups', { name: 'B' }, { headers: { 'idempotency-key': 'group-2' } });
    expect(reuse.status).toBe(422);
    expect(reuse.body).toEqual({ statusCode: 422, error: 'Unprocessable Entity', message: 'Idempotency-Key "group-2" was already used for a different request' });
    expect(await groupNames()).not.toContain('B');
  });

  it('stores neither a group nor the key for a refused create, so a corrected retry with the key succeeds', async () => {
    const refused = await api.post('/v2/check-groups', { name: 'Alerted', alertChannelSubscriptions: [{ alertChannelId: 999_999, activated: true }] }, { headers: { 'idempotency-key': 'group-3' } });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('"alertChannelSubscriptions[0].alertChannelId" references alert channel 999999, which does not exist');
    expect(await groupNames()).not.toContain('Alerted');
    const fixed = await api.post('/v2/check-groups', { name: 'Alerted' }, { headers: { 'idempotency-key': 'group-3' } });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses a key longer than allowed before running the unit', async () => {
    const reply = await api.post('/v2/check-groups', { name: 'Long key' }, { headers: { 'idempotency-key': 'k'.repeat(256) } });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('"Idempotency-Key" must be at most 255 characters long');
    expect(await groupNames()).not.toContain('Long key');
  });
});

describe('check group subscriptions', () => {
  it('indexes a group\'s channels with it: the channel lists the group, auto-assigned or sent, until the group goes', async () => {
    const channel = await api.post('/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' } });
    expect(channel.status).toBe(201);
    const group = await api.post('/v2/check-groups?autoAssignAlerts=true', { name: 'Subscribed' });
    expect(group.body.alertChannelSubscriptions).toContainEqual({ alertChannelId: channel.body.id, activated: true });
    const subscribers = async (): Promise<Array<{ groupId: number | null; activated: boolean }>> =>
      (await api.get(`/v1/alert-channels/${channel.body.id}`)).body.subscriptions;
    expect(await subscribers()).toContainEqual(expect.objectContaining({ groupId: group.body.id, activated: true }));
    const updated = await api.put(`/v2/check-groups/${group.body.id}?autoAssignAlerts=false`, { name: 'Subscribed', alertChannelSubscriptions: [{ alertChannelId: channel.body.id, activated: false }] });
    expect(updated.status).toBe(200);
    expect(updated.body.alertChannelSubscriptions).toEqual([{ alertChannelId: channel.body.id, activated: false }]);
    expect(await subscribers()).toContainEqual(expect.objectContaining({ groupId: group.body.id, activated: false }));
    expect((await api.delete(`/v1/check-groups/${group.body.id}`)).status).toBe(204);
    expect((await subscribers()).map((subscriber) => subscriber.groupId)).not.toContain(group.body.id);
  });

  it('answers 404 for a group id no group has, on get, update and delete', async () => {
    for (const reply of [
      await api.get('/v1/check-groups/987654'),
      await api.put('/v2/check-groups/987654', { name: 'x' }),
      await api.delete('/v1/check-groups/987654'),
    ]) {
      expect(reply.status).toBe(404);
    }
  });
});
