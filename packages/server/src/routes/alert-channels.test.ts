/**
 * Alert channels written as units of work over the storage ports: the Idempotency-Key rules of the
 * unit route, the 404s, and a delete that rewrites its subscribers and the index in the same unit.
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

const email = (address: string) => ({ type: 'EMAIL', config: { address } });

describe('Idempotency-Key on alert channels', () => {
  it('replays a repeated create with the first response and creates one channel', async () => {
    const first = await api.post('/v1/alert-channels', email('once@example.com'), { headers: { 'idempotency-key': 'channel-1' } });
    const second = await api.post('/v1/alert-channels', email('once@example.com'), { headers: { 'idempotency-key': 'channel-1' } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const addresses = (await api.get('/v1/alert-channels?limit=100')).body.map((channel: { config: { address?: string } }) => channel.config.address);
    expect(addresses.filter((address: string | undefined) => address === 'once@example.com')).toHaveLength(1);
  });
});

describe('alert channel subscribers', () => {
  it('drops a deleted channel from a check and a group subscribed to it and to another channel, keeping the other one', async () => {
    const gone = await api.post('/v1/alert-channels', email('gone@example.com'));
    const kept = await api.post('/v1/alert-channels', email('kept@example.com'));
    const subscriptions = [{ alertChannelId: gone.body.id, activated: true }, { alertChannelId: kept.body.id, activated: false }];
    const check = await api.post('/v1/checks/api?autoAssignAlerts=false', apiCheckBody({ alertChannelSubscriptions: subscriptions }));
    const group = await api.post('/v2/check-groups?autoAssignAlerts=false', { name: 'Both channels', alertChannelSubscriptions: subscriptions });
    expect(check.status).toBe(201);
    expect(group.status).toBe(201);
    expect((await api.get(`/v1/alert-channels/${gone.body.id}`)).body.subscriptions).toEqual([
      { id: expect.any(Number), checkId: check.body.id, groupId: null, activated: true },
      { id: expect.any(Number), checkId: null, groupId: group.body.id, activated: true },
    ]);

    expect((await api.delete(`/v1/alert-channels/${gone.body.id}`)).status).toBe(204);
    const left = [{ alertChannelId: kept.body.id, activated: false }];
    expect((await api.get(`/v1/checks/${check.body.id}`)).body.alertChannelSubscriptions).toEqual(left);
    expect((await api.get(`/v1/check-groups/${group.body.id}`)).body.alertChannelSubscriptions).toEqual(left);
    expect((await api.get(`/v1/alert-channels/${gone.body.id}`)).status).toBe(404);
    expect((await api.get(`/v1/alert-channels/${kept.body.id}`)).body.subscriptions).toEqual([
      { id: expect.any(Number), checkId: check.body.id, groupId: null, activated: false },
      { id: expect.any(Number), checkId: null, groupId: group.body.id, activated: false },
    ]);
  });

  it('answers 404 naming the channel for an id no channel has, on get, update and delete', async () => {
    for (const reply of [
      await api.get('/v1/alert-channels/987654'),
      await api.put('/v1/alert-channels/987654', email('x@example.com')),
      await api.delete('/v1/alert-channels/987654'),
    ]) {
      expect(reply.status).toBe(404);
      expect(reply.body.message).toBe('Alert channel 987654 not found');
    }
  });

  it('keeps the channel and its subscribers when a PUT is refused', async () => {
    const channel = await api.post('/v1/alert-channels', email('typed@example.com'));
    const retyped = await api.put(`/v1/alert-channels/${channel.body.id}`, { type: 'SLACK', config: { url: 'https://hooks.slack.com/x', channel: '#ops' } });
    expect(retyped.status).toBe(400);
    expect(retyped.body.message).toBe('"type" cannot be changed from EMAIL to SLACK; create a new alert channel instead');
    expect((await api.get(`/v1/alert-channels/${channel.body.id}`)).body).toMatchObject({ type: 'EMAIL', updated_at: null });
  });
});
