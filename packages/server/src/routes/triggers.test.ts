import { CheckGroupTrigger } from '@vigil/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTHER_API_KEY, apiFor, startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
let groupId: number;
beforeAll(async () => {
  api = await startTestServer();
  groupId = (await api.post('/v2/check-groups', { name: 'Payments' })).body.id;
});
afterAll(() => api.close());

describe('GET /v1/triggers/check-groups/{groupId} (deprecated)', () => {
  it('returns the group’s trigger, the same one on every read', async () => {
    const first = await api.get(`/v1/triggers/check-groups/${groupId}`);
    expect(first.status).toBe(200);
    expect(CheckGroupTrigger.safeParse(first.body).success).toBe(true);
    expect(first.body).toMatchObject({ groupId, token: expect.stringMatching(/^[0-9a-f]{32}$/), called_at: null, updated_at: null });
    expect((await api.get(`/v1/triggers/check-groups/${groupId}`)).body).toEqual(first.body);
  });

  it('makes one trigger when a new group is read several times at once', async () => {
    const fresh = (await api.post('/v2/check-groups', { name: 'Checkout' })).body.id as number;
    const replies = await Promise.all([1, 2, 3, 4].map(() => api.get(`/v1/triggers/check-groups/${fresh}`)));
    for (const reply of replies) expect([reply.status, reply.body]).toEqual([200, replies[0]!.body]);
  });

  it('gives each group its own trigger', async () => {
    const other = (await api.post('/v2/check-groups', { name: 'Search' })).body.id as number;
    const a = (await api.get(`/v1/triggers/check-groups/${groupId}`)).body;
    const b = (await api.get(`/v1/triggers/check-groups/${other}`)).body;
    expect(b.id).not.toBe(a.id);
    expect(b.token).not.toBe(a.token);
  });

  it.each([['abc'], ['0'], ['1.5']])('rejects groupId %s with 400 naming groupId', async (id) => {
    const reply = await api.get(`/v1/triggers/check-groups/${id}`);
    expect([reply.status, reply.body.validation]).toEqual([400, { source: 'params', keys: ['groupId'] }]);
  });

  it('answers 404 for another tenant’s group and an unknown one', async () => {
    expect((await apiFor(api.server, OTHER_API_KEY).get(`/v1/triggers/check-groups/${groupId}`)).status).toBe(404);
    expect((await api.get('/v1/triggers/check-groups/99999')).status).toBe(404);
  });
});
