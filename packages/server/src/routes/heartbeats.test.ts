import { HeartbeatEventRecord } from '@vigil/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDS, SEED } from '../readside/fixtures/seed-fixture.js';
import { startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer({ seed: SEED });
});
afterAll(() => api.close());

// Fixture pings (hours ago): e1 1 RECEIVED, e2 2 FAILING, e3 3 EARLY, e10..e17 4..11 RECEIVED,
// e4 23 GRACE, e5 30 RECEIVED, e6 40 LATE, e7 100 RECEIVED, e8 150 RECEIVED, e9 200 FAILING.
const events = (query = '', checkId: string = IDS.heartbeatCheck) => api.get(`/v1/checks/heartbeats/${checkId}/events?${query}`);
const eventIds = (body: Array<{ events: Array<{ id: string }> }>) => body[0]!.events.map((event) => event.id);
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

describe('GET /v1/checks/heartbeats/{checkId}/events', () => {
  it('returns one record with the newest 10 pings of the last 24 hours', async () => {
    const reply = await events();
    expect(reply.status).toBe(200);
    expect(reply.body).toHaveLength(1);
    expect(HeartbeatEventRecord.safeParse(reply.body[0]).success).toBe(true);
    expect(eventIds(reply.body)).toEqual(['e1', 'e2', 'e3', 'e10', 'e11', 'e12', 'e13', 'e14', 'e15', 'e16']);
    expect(reply.body[0].events[0]).toEqual({
      id: 'e1', state: 'RECEIVED', timestamp: expect.any(String), source: '203.0.113.7', userAgent: 'curl/8.5.0',
    });
    expect(reply.headers.get('link')).toContain('page=2>; rel="next"');
  });

  it('walks back with page and shrinks with limit', async () => {
    expect(eventIds((await events('page=2')).body)).toEqual(['e17', 'e4']);
    expect(eventIds((await events('limit=3')).body)).toEqual(['e1', 'e2', 'e3']);
  });

  it('takes startTime and endTime', async () => {
    expect(eventIds((await events(`startTime=${hoursAgo(48)}&endTime=${hoursAgo(24)}`)).body)).toEqual(['e5', 'e6']);
    expect(eventIds((await events(`startTime=${hoursAgo(250)}&endTime=${hoursAgo(120)}`)).body)).toEqual(['e8', 'e9']);
  });

  it('computes success ratios (percent) of the current and previous periods', async () => {
    const { body } = await events();
    expect(body[0].stats.last24Hours).toEqual({
      successRatio: { previousPeriod: 50, currentPeriod: (100 * 11) / 12 },
      totalEntitiesCurrentPeriod: 12,
    });
    expect(body[0].stats.last7Days).toEqual({
      successRatio: { previousPeriod: 0, currentPeriod: 87.5 },
      totalEntitiesCurrentPeriod: 16,
    });
  });

  it.each([
    ['limit=11', ['limit']],
    ['limit=0', ['limit']],
    ['page=0', ['page']],
    ['startTime=yesterday', ['startTime']],
    ['endTime=2026-13-01T00:00:00Z', ['endTime']],
  ])('rejects %s with 400 naming %j', async (query, keys) => {
    const reply = await events(query);
    expect([reply.status, reply.body.validation]).toEqual([400, { source: 'query', keys }]);
  });

  it('rejects an endTime that is not after startTime', async () => {
    const reply = await events(`startTime=${hoursAgo(1)}&endTime=${hoursAgo(2)}`);
    expect([reply.status, reply.body.validation]).toEqual([400, { source: 'query', keys: ['endTime'] }]);
  });

  it('accepts limit 10 and 1', async () => {
    expect((await events('limit=10')).status).toBe(200);
    expect((await events('limit=1')).status).toBe(200);
  });

  it('answers 404 for a check that is not a heartbeat, another tenant’s check and an unknown id', async () => {
    expect((await events('', IDS.apiCheck)).status).toBe(404);
    expect((await events('', IDS.otherTenantCheck)).status).toBe(404);
    expect((await events('', 'missing')).status).toBe(404);
  });
});
