/**
 * Analytics and a heartbeat's events read over the storage ports (`ctx.routeUnit`): ids the ports
 * would refuse read as missing, and an events window apart from the statistics' two weeks reads
 * both ranges.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDS, SEED } from '../readside/fixtures/seed-fixture.js';
import { startTestServer, type TestApi } from '../test-support.js';

const HOUR = 3_600_000;
const LONG_ID = 'x'.repeat(300);

/** The read-side fixture with two more pings of its heartbeat, 20 and 21 days ago (outside both statistics periods). */
function seedWithOldPings(): unknown {
  const seed = structuredClone(SEED) as { accounts: Array<{ heartbeatEvents: unknown[] }> };
  const old = (id: string, hours: number, state: string) => ({ id, checkId: IDS.heartbeatCheck, state, timestamp: `now-${hours}h`, source: '203.0.113.7', userAgent: 'curl/8.5.0' });
  seed.accounts[0]!.heartbeatEvents.push(old('old-1', 20 * 24, 'RECEIVED'), old('old-2', 21 * 24, 'LATE'));
  return seed;
}

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer({ seed: seedWithOldPings() });
});
afterAll(() => api.close());

const hoursAgo = (hours: number) => new Date(Date.now() - hours * HOUR).toISOString();

describe('typed reads over the ports', () => {
  it('answers 404 naming the check for an id longer than any stored one', async () => {
    const analytics = await api.get(`/v1/analytics/api-checks/${LONG_ID}?metrics=availability`);
    expect(analytics.status).toBe(404);
    expect(analytics.body.message).toBe(`API check ${LONG_ID} not found`);
    const events = await api.get(`/v1/checks/heartbeats/${LONG_ID}/events`);
    expect(events.status).toBe(404);
    expect(events.body.message).toBe(`Heartbeat check ${LONG_ID} not found`);
  });

  it('leaves an id longer than any stored one out of a batch report, as an unknown one', async () => {
    const reply = await api.post('/v1/analytics/checks?quickRange=last24Hours', { checkIds: [LONG_ID, IDS.apiCheck] });
    expect(reply.status).toBe(200);
    expect(reply.body.map((item: { checkId: string }) => item.checkId)).toEqual([IDS.apiCheck]);
  });

  it('lists the pings of a window three weeks back, with the statistics of the last two weeks beside them', async () => {
    const reply = await api.get(`/v1/checks/heartbeats/${IDS.heartbeatCheck}/events?startTime=${hoursAgo(22 * 24)}&endTime=${hoursAgo(19 * 24)}`);
    expect(reply.status).toBe(200);
    expect(reply.body[0].events.map((event: { id: string }) => event.id)).toEqual(['old-1', 'old-2']);
    const recent = await api.get(`/v1/checks/heartbeats/${IDS.heartbeatCheck}/events`);
    expect(reply.body[0].stats).toEqual(recent.body[0].stats);
    expect(reply.body[0].stats.last7Days.totalEntitiesCurrentPeriod).toBeGreaterThan(0);
  });
});
