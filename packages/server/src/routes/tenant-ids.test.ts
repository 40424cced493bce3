/**
 * No id the service hands out tells a tenant what other tenants do: integer ids
 * came from one service-wide counter, so the gap between two of your own group ids was the number of
 * groups everyone else created meanwhile. The same held for check-group trigger ids and alert-channel
 * subscription ids.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { OTHER_API_KEY, apiCheckBody, apiFor, startTestServer, type TestApi } from '../test-support.js';

let api: TestApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const BODIES: Array<[string, string, unknown]> = [
  ['check groups', '/v2/check-groups', { name: 'Group' }],
  ['alert channels', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' } }],
  ['maintenance windows', '/v1/maintenance-windows', { name: 'Window', startsAt: '2026-01-01T00:00:00.000Z', endsAt: '2026-01-01T01:00:00.000Z', repeatUnit: 'DAY' }],
];

describe('integer ids are counted per account', () => {
  it.each(BODIES)('%s: a quiet tenant\'s ids are 1, 2, 3 however much a busy tenant creates in between', async (_kind, url, body) => {
    api = await startTestServer();
    const busy = apiFor(api.server, OTHER_API_KEY);
    const quietIds: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 4; i++) expect((await busy.post(url, body)).status).toBe(201);
      const created = await api.post(url, body);
      expect(created.status).toBe(201);
      quietIds.push(created.body.id);
    }
    expect(quietIds).toEqual([1, 2, 3]);
  });

  it('never hands out a deleted id again', async () => {
    api = await startTestServer();
    const first = (await api.post('/v2/check-groups', { name: 'First' })).body.id as number;
    expect((await api.delete(`/v1/check-groups/${first}`)).status).toBe(204);
    expect((await api.post('/v2/check-groups', { name: 'Second' })).body.id).toBe(first + 1);
  });
});

describe('ids of things the service creates alongside', () => {
  it('check-group trigger ids are counted per account', async () => {
    api = await startTestServer();
    const busy = apiFor(api.server, OTHER_API_KEY);
    for (let i = 0; i < 3; i++) {
      const group = (await busy.post('/v2/check-groups', { name: `Busy ${i}` })).body.id as number;
      expect((await busy.get(`/v1/triggers/check-groups/${group}`)).status).toBe(200);
    }
    const group = (await api.post('/v2/check-groups', { name: 'Quiet' })).body.id as number;
    expect((await api.get(`/v1/triggers/check-groups/${group}`)).body.id).toBe(1);
  });

  it('an alert-channel subscription id stays the same when its check is saved again, and does not count writes', async () => {
    api = await startTestServer();
    const channel = (await api.post('/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' } })).body.id as number;
    const subscribe = { alertChannelSubscriptions: [{ alertChannelId: channel, activated: true }] };
    const check = (await api.post('/v1/checks/api?autoAssignAlerts=false', apiCheckBody(subscribe))).body.id as string;
    const before = (await api.get(`/v1/alert-channels/${channel}`)).body.subscriptions;
    for (let i = 0; i < 3; i++) expect((await api.put(`/v1/checks/api/${check}?autoAssignAlerts=false`, { name: `Saved ${i}`, ...subscribe })).status).toBe(200);
    const after = (await api.get(`/v1/alert-channels/${channel}`)).body.subscriptions;
    expect(after).toEqual(before);
    expect(after).toEqual([{ id: expect.any(Number), checkId: check, groupId: null, activated: true }]);
  });
});
