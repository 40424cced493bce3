import { Subscription } from '@vigil/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDS, SEED } from '../readside/fixtures/seed-fixture.js';
import { OTHER_API_KEY, apiFor, startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer({ seed: SEED });
});
afterAll(() => api.close());

const list = (query = '', statusPageId: string = IDS.statusPage) => api.get(`/v1/status-pages/${statusPageId}/subscriptions?${query}`);
const ids = (body: Array<{ id: string }>) => body.map((subscription) => subscription.id);

describe('GET /v1/status-pages/{statusPageId}/subscriptions', () => {
  it('lists the first 10 of 12 seeded subscriptions in order, with paging headers', async () => {
    const reply = await list();
    expect(reply.status).toBe(200);
    expect(ids(reply.body)).toEqual(['sub-01', 'sub-02', 'sub-03', 'sub-04', 'sub-05', 'sub-06', 'sub-07', 'sub-08', 'sub-09', 'sub-10']);
    expect(reply.body[3]).toEqual({
      id: 'sub-04',
      type: 'EMAIL',
      address: 'user4@acme.test',
      status: 'PENDING',
      created_at: '2026-01-02T00:00:00.000Z',
      updated_at: '2026-01-02T00:00:00.000Z',
    });
    for (const subscription of reply.body) expect(Subscription.safeParse(subscription).success).toBe(true);
    expect(reply.headers.get('content-range')).toBe('0-9/12');
    const link = reply.headers.get('link') ?? '';
    expect(link).toContain('limit=10&page=2>; rel="next"');
    expect(link).toContain('limit=10&page=2>; rel="last"');
  });

  it('serves the rest on page 2', async () => {
    const reply = await list('page=2');
    expect([ids(reply.body), reply.headers.get('content-range')]).toEqual([['sub-11', 'sub-12'], '10-11/12']);
  });

  it.each([
    ['limit=0', ['limit']],
    ['limit=101', ['limit']],
    ['page=0', ['page']],
    ['page=x', ['page']],
  ])('rejects %s with 400 naming %j', async (query, keys) => {
    const reply = await list(query);
    expect([reply.status, reply.body.validation]).toEqual([400, { source: 'query', keys }]);
  });

  it('answers 404 for another tenant’s status page, an unknown one and an id longer than any stored', async () => {
    const notFound = (id: string) => ({ statusCode: 404, error: 'Not Found', message: `Status page ${id} not found` });
    for (const id of [IDS.otherTenantStatusPage, 'missing', 'x'.repeat(256)]) {
      const reply = await list('', id);
      expect([reply.status, reply.body]).toEqual([404, notFound(id)]);
    }
    const other = apiFor(api.server, OTHER_API_KEY);
    expect(ids((await other.get(`/v1/status-pages/${IDS.otherTenantStatusPage}/subscriptions`)).body)).toEqual(['gsub-1']);
  });
});
