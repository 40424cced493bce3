import { AnalyticsReport } from '@vigil/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDS, SEED, T0, T0_PLUS_HOUR } from '../readside/fixtures/seed-fixture.js';
import { startTestServer, type TestApi } from '../test-support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer({ seed: SEED });
});
afterAll(() => api.close());

const window = `from=${T0}&to=${T0_PLUS_HOUR}`;
const apiReport = (query: string, id: string = IDS.apiCheck) => api.get(`/v1/analytics/api-checks/${id}?${query}`);
/** The one row of an ungrouped report without aggregationInterval. */
const onlyRow = (body: { series: Array<{ data: Array<Record<string, unknown>> }> }) => body.series[0]?.data[0];

// The fixture's FINAL API results in the window: response times 100, 200, 300, 400, 1000;
// r3 (503) and r5 (no response) failed; attempts 0, 0, 1, 0, 2.
describe('API check analytics on hand-computed numbers', () => {
  it('returns the report header and one metadata entry per metric', async () => {
    const reply = await apiReport(`${window}&metrics=responseTime_avg,availability`);
    expect(reply.status).toBe(200);
    expect(AnalyticsReport.safeParse(reply.body).success).toBe(true);
    expect(reply.body).toMatchObject({
      checkId: IDS.apiCheck,
      name: 'Homepage API',
      checkType: 'API',
      activated: true,
      muted: false,
      frequency: 5,
      tags: ['web', 'critical'],
      from: '2026-01-05T10:00:00.000Z',
      to: '2026-01-05T11:00:00.000Z',
      pagination: { page: 1, limit: 10 },
      metadata: {
        responseTime_avg: { unit: 'milliseconds', label: 'Response time (avg)', aggregation: 'avg' },
        availability: { unit: 'percentage', label: 'Availability', aggregation: 'avg' },
      },
    });
  });

  const expected: Record<string, number> = {
    responseTime_avg: 400,
    responseTime_max: 1000,
    responseTime_min: 100,
    responseTime_median: 300,
    responseTime_p50: 300,
    responseTime_p90: 760, // rank 3.6 → 400 + 0.6 × 600
    responseTime_p95: 880,
    responseTime_p99: 976,
    responseTime_stddev: Math.sqrt(100_000), // deviations −300, −200, −100, 0, 600
    responseTime_sum: 2000,
    responseTime: 400,
    availability: 60,
    retries: 3,
    dns: 25, // 10, 20, 30, 40; r5 has no phases
    dns_sum: 100,
    wait_max: 5,
    tcp_min: 20,
    firstByte_p50: 160, // 50, 120, 200, 280
    download_sum: 95,
  };
  it.each(Object.entries(expected))('%s = %d', async (metric, value) => {
    const reply = await apiReport(`${window}&metrics=${metric}`);
    expect(onlyRow(reply.body)?.[metric]).toBeCloseTo(value, 9);
  });

  it('takes several metrics, comma-separated or repeated', async () => {
    const comma = onlyRow((await apiReport(`${window}&metrics=responseTime_max,retries`)).body);
    const repeated = onlyRow((await apiReport(`${window}&metrics=responseTime_max&metrics=retries`)).body);
    expect(comma).toEqual({ timestamp: '2026-01-05T10:00:00.000Z', responseTime_max: 1000, retries: 3 });
    expect(repeated).toEqual(comma);
  });

  it.each([
    ['failure', 650],
    ['success', (100 + 200 + 400) / 3],
    ['success,failure', 400],
  ])('filterByStatus=%s averages %d', async (filter, average) => {
    const row = onlyRow((await apiReport(`${window}&metrics=responseTime_avg&filterByStatus=${filter}`)).body);
    expect(row?.['responseTime_avg']).toBeCloseTo(average, 9);
  });

  it('groups by runLocation', async () => {
    const { body } = await apiReport(`${window}&metrics=responseTime_avg,availability,retries&groupBy=runLocation`);
    expect(body.series).toEqual([
      { runLocation: 'eu-west-1', data: [{ timestamp: '2026-01-05T10:00:00.000Z', responseTime_avg: 1400 / 3, availability: 100 / 3, retries: 3 }] },
      { runLocation: 'us-east-1', data: [{ timestamp: '2026-01-05T10:00:00.000Z', responseTime_avg: 300, availability: 100, retries: 0 }] },
    ]);
  });

  it('groups by statusCode, a run without a response being 0', async () => {
    const { body } = await apiReport(`${window}&metrics=responseTime_avg&groupBy=statusCode`);
    expect(body.series.map((s: { statusCode: number; data: Array<Record<string, number>> }) => [s.statusCode, s.data[0]?.['responseTime_avg']]))
      .toEqual([[0, 1000], [200, 700 / 3], [503, 300]]);
  });

  it('pages the grouped series', async () => {
    const { body } = await apiReport(`${window}&metrics=retries&groupBy=runLocation&limit=1&page=2`);
    expect(body.pagination).toEqual({ page: 2, limit: 1 });
    expect(body.series.map((s: { runLocation: string }) => s.runLocation)).toEqual(['us-east-1']);
  });

  it('buckets by aggregationInterval from the window start, leaving out empty buckets', async () => {
    const { body } = await apiReport(`${window}&metrics=responseTime_avg,availability&aggregationInterval=10`);
    expect(body.series).toEqual([{
      data: [
        { timestamp: '2026-01-05T10:00:00.000Z', responseTime_avg: 150, availability: 100 },
        { timestamp: '2026-01-05T10:10:00.000Z', responseTime_avg: 350, availability: 50 },
        { timestamp: '2026-01-05T10:20:00.000Z', responseTime_avg: 1000, availability: 0 },
      ],
    }]);
  });

  it('puts everything in one bucket at the largest interval', async () => {
    const { body } = await apiReport(`${window}&metrics=responseTime_sum&aggregationInterval=43200`);
    expect(body.series[0].data).toEqual([{ timestamp: '2026-01-05T10:00:00.000Z', responseTime_sum: 2000 }]);
  });
});

// Relative fixture results: 10 ms at now-1h, 20 at now-5h, 30 at now-7h, 40 at now-13h, 50 at
// now-3d, 60 at now-20d.
describe('time windows', () => {
  const hour = 3_600_000;
  const span = (body: { from: string; to: string }) => Date.parse(body.to) - Date.parse(body.from);

  it.each([
    ['', 25, 24 * hour],
    ['quickRange=last24Hours', 25, 24 * hour],
    ['quickRange=last7Days', 30, 7 * 24 * hour],
    ['quickRange=last30Days', 35, 30 * 24 * hour],
  ])('%s (default last24Hours) averages %d over its span', async (query, average, length) => {
    const { body } = await apiReport(`metrics=responseTime_avg&${query}`);
    expect(onlyRow(body)?.['responseTime_avg']).toBe(average);
    expect(span(body)).toBe(length);
  });

  it('starts calendar ranges on Monday 00:00 UTC and the 1st of the month', async () => {
    const report = async (range: string) => (await apiReport(`metrics=retries&quickRange=${range}`)).body as { from: string; to: string };
    const now = new Date();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const monday = today - ((now.getUTCDay() + 6) % 7) * 24 * hour;
    const firstOfMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    const firstOfLastMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1);
    expect(Date.parse((await report('thisWeek')).from)).toBe(monday);
    expect(Date.parse((await report('thisMonth')).from)).toBe(firstOfMonth);
    const lastWeek = await report('lastWeek');
    expect([Date.parse(lastWeek.from), Date.parse(lastWeek.to)]).toEqual([monday - 7 * 24 * hour, monday]);
    const lastMonth = await report('lastMonth');
    expect([Date.parse(lastMonth.from), Date.parse(lastMonth.to)]).toEqual([firstOfLastMonth, firstOfMonth]);
  });

  it('lets from and to override quickRange', async () => {
    const { body } = await apiReport(`metrics=responseTime_avg&quickRange=last30Days&${window}`);
    expect([body.from, body.to, onlyRow(body)?.['responseTime_avg']]).toEqual(['2026-01-05T10:00:00.000Z', '2026-01-05T11:00:00.000Z', 400]);
  });

  it('covers the 24 hours before a lone to', async () => {
    const { body } = await apiReport(`metrics=responseTime_avg&to=${T0_PLUS_HOUR}`);
    expect([body.from, onlyRow(body)?.['responseTime_avg']]).toEqual(['2026-01-04T11:00:00.000Z', 400]);
  });

  it('runs a lone from until now', async () => {
    const { body } = await apiReport(`metrics=responseTime_sum&from=${T0}`);
    // Every FINAL API result of the fixture: 2000 (absolute) + 10 + 20 + 30 + 40 + 50 + 60.
    expect(onlyRow(body)?.['responseTime_sum']).toBe(2210);
    expect(Math.abs(Date.parse(body.to) - Date.now())).toBeLessThan(60_000);
  });

  it('reports nulls for an empty window', async () => {
    const { body } = await apiReport(`metrics=responseTime_p99,availability,retries&from=${T0 - 7200}&to=${T0 - 3600}`);
    expect(onlyRow(body)).toEqual({ timestamp: '2026-01-05T08:00:00.000Z', responseTime_p99: null, availability: null, retries: 0 });
  });
});

describe('TCP and multi-step analytics', () => {
  it('maps TCP total, dns, connection and data', async () => {
    const { status, body } = await api.get(
      `/v1/analytics/tcp-checks/${IDS.tcpCheck}?${window}&metrics=total_avg,dns,connection_max,data_sum,availability`,
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({ checkType: 'TCP', name: 'Postgres port', frequency: 1 });
    expect(onlyRow(body)).toEqual({ timestamp: '2026-01-05T10:00:00.000Z', total_avg: 60, dns: 6, connection_max: 20, data_sum: 78, availability: 100 });
  });

  it('computes multi-step response time, availability and retries', async () => {
    const { body } = await api.get(
      `/v1/analytics/multistep-checks/${IDS.multiStepCheck}?${window}&metrics=responseTime_median,availability,retries&groupBy=runLocation`,
    );
    expect(body).toMatchObject({ checkType: 'MULTI_STEP', muted: true });
    expect(body.series).toEqual([
      { runLocation: 'eu-west-1', data: [{ timestamp: '2026-01-05T10:00:00.000Z', responseTime_median: 4000, availability: 50, retries: 0 }] },
      { runLocation: 'us-west-1', data: [{ timestamp: '2026-01-05T10:00:00.000Z', responseTime_median: 7000, availability: 0, retries: 1 }] },
    ]);
  });
});

describe('analytics query rules', () => {
  const tcp = (query: string) => api.get(`/v1/analytics/tcp-checks/${IDS.tcpCheck}?${query}`);
  const multiStep = (query: string) => api.get(`/v1/analytics/multistep-checks/${IDS.multiStepCheck}?${query}`);
  it.each([
    ['api', () => apiReport(''), ['metrics']],
    ['api', () => apiReport('metrics=responseTime,bogus'), ['metrics.1']],
    ['api', () => apiReport('metrics=availability_avg'), ['metrics.0']],
    ['api', () => apiReport('metrics=availability&groupBy=checkType'), ['groupBy']],
    ['api', () => apiReport('metrics=availability&aggregationInterval=0'), ['aggregationInterval']],
    ['api', () => apiReport('metrics=availability&aggregationInterval=43201'), ['aggregationInterval']],
    ['api', () => apiReport('metrics=availability&quickRange=yesterday'), ['quickRange']],
    ['api', () => apiReport('metrics=availability&filterByStatus=maybe'), ['filterByStatus.0']],
    ['api', () => apiReport('metrics=availability&from=abc'), ['from']],
    ['api', () => apiReport(`metrics=availability&from=${T0_PLUS_HOUR}&to=${T0}`), ['to']],
    ['api', () => apiReport(`metrics=availability&from=${Math.floor(Date.now() / 1000) + 3600}`), ['from']],
    ['api', () => apiReport('metrics=availability&limit=0'), ['limit']],
    ['api', () => apiReport('metrics=availability&limit=101'), ['limit']],
    ['api', () => apiReport('metrics=availability&page=0'), ['page']],
    ['tcp', () => tcp('metrics=wait'), ['metrics.0']],
    ['tcp', () => tcp('metrics=total&groupBy=statusCode'), ['groupBy']],
    ['multistep', () => multiStep('metrics=dns_p95'), ['metrics.0']],
    ['multistep', () => multiStep('metrics=responseTime&groupBy=statusCode'), ['groupBy']],
  ])('%s: rejects a bad query with 400 naming %j', async (_kind, call, keys) => {
    const reply = await call();
    expect(reply.status).toBe(400);
    expect(reply.body.validation).toEqual({ source: 'query', keys });
  });

  it('accepts the interval edges 1 and 43200', async () => {
    expect((await apiReport(`${window}&metrics=retries&aggregationInterval=1`)).status).toBe(200);
    expect((await apiReport(`${window}&metrics=retries&aggregationInterval=43200`)).status).toBe(200);
  });

  it('answers 404 for a check of another type, another tenant’s check and an unknown id', async () => {
    expect((await api.get(`/v1/analytics/tcp-checks/${IDS.apiCheck}?metrics=total`)).status).toBe(404);
    expect((await api.get(`/v1/analytics/multistep-checks/${IDS.tcpCheck}?metrics=responseTime`)).status).toBe(404);
    expect((await apiReport('metrics=availability', IDS.otherTenantCheck)).status).toBe(404);
    expect((await api.get(`/v1/analytics/tcp-checks/${IDS.otherTenantCheck}?metrics=total`)).status).toBe(404);
    expect((await api.get(`/v1/analytics/multistep-checks/${IDS.otherTenantCheck}?metrics=responseTime`)).status).toBe(404);
    expect((await apiReport('metrics=availability', 'missing')).status).toBe(404);
  });
});
