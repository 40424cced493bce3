/**
 * The analytics ("stats") endpoints the real document has for URL, heartbeat, browser and
 * Playwright checks, on hand-computed numbers: two FINAL results in the window, one failing.
 */
import { AnalyticsReport } from '@vigil/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApi } from '../test-support.js';

const ID = {
  url: 'c0000000-0000-4000-8000-000000000001',
  heartbeat: 'c0000000-0000-4000-8000-000000000002',
  browser: 'c0000000-0000-4000-8000-000000000003',
  playwright: 'c0000000-0000-4000-8000-000000000004',
};
const FROM = Date.parse('2026-01-05T10:00:00.000Z') / 1000;
const window = `from=${FROM}&to=${FROM + 3600}`;

const results = (checkId: string, phases = false) => [
  { at: '10:00', responseTime: 100, hasFailures: false, attempts: 0, location: 'eu-west-1' },
  { at: '10:10', responseTime: 300, hasFailures: true, attempts: 1, location: 'us-east-1' },
].map((run, index) => ({
  id: `${checkId.slice(-1)}-r${index}`,
  checkId,
  created_at: `2026-01-05T${run.at}:00.000Z`,
  runLocation: run.location,
  responseTime: run.responseTime,
  hasFailures: run.hasFailures,
  attempts: run.attempts,
  resultType: 'FINAL',
  ...(phases ? { apiCheckResult: { response: { status: run.hasFailures ? 503 : 200, statusText: '', timingPhases: { dns: 10 * (index + 1) } } } } : {}),
}));

let api: TestApi;
beforeAll(async () => {
  api = await startTestServer({
    seed: {
      accounts: [{
        accountId: 'acme',
        checks: [
          { id: ID.url, checkType: 'URL', name: 'Home page', frequency: 5, request: { url: 'https://acme.test/' } },
          { id: ID.heartbeat, checkType: 'HEARTBEAT', name: 'Nightly job', frequency: 10, heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' } },
          { id: ID.browser, checkType: 'BROWSER', name: 'Checkout page', frequency: 10, script: 'x' },
          { id: ID.playwright, checkType: 'PLAYWRIGHT', name: 'Suite', frequency: 10, playwrightConfigPath: 'playwright.config.ts', codeBundle: [{ path: 'playwright.config.ts', content: 'export default {};' }] },
        ],
        checkResults: [...results(ID.url, true), ...results(ID.heartbeat), ...results(ID.browser), ...results(ID.playwright)],
      }],
    },
  });
});
afterAll(() => api.close());

describe('analytics of URL, heartbeat, browser and Playwright checks', () => {
  it.each([
    ['url-monitors', ID.url, 'URL', 'responseTime_avg,availability,retries,dns_max'],
    ['heartbeat-checks', ID.heartbeat, 'HEARTBEAT', 'availability,retries'],
    ['browser-checks', ID.browser, 'BROWSER', 'responseTime_avg,availability,retries,LCP_p95'],
    ['playwright-checks', ID.playwright, 'PLAYWRIGHT', 'responseTime_avg,availability,retries'],
  ] as const)('GET /v1/analytics/%s/{id}', async (kind, id, checkType, metrics) => {
    const reply = await api.get(`/v1/analytics/${kind}/${id}?${window}&metrics=${metrics}`);
    expect(reply.status).toBe(200);
    expect(AnalyticsReport.safeParse(reply.body).success).toBe(true);
    expect(reply.body).toMatchObject({ checkId: id, checkType });
    const row = reply.body.series[0].data[0];
    expect(row).toMatchObject({ availability: 50, retries: 1 });
    if (metrics.includes('responseTime_avg')) expect(row.responseTime_avg).toBe(200);
    if (metrics.includes('dns_max')) expect(row.dns_max).toBe(20);
    // Web vitals are names the document offers that runs here do not record: null, never 0.
    if (metrics.includes('LCP_p95')) expect(row.LCP_p95).toBeNull();
  });

  it('groups a URL monitor by status code, as an API check', async () => {
    const reply = await api.get(`/v1/analytics/url-monitors/${ID.url}?${window}&metrics=availability&groupBy=statusCode`);
    expect(reply.body.series.map((series: { statusCode: number }) => series.statusCode)).toEqual([200, 503]);
  });

  it('defaults a heartbeat report to availability, as the document does', async () => {
    const reply = await api.get(`/v1/analytics/heartbeat-checks/${ID.heartbeat}?${window}`);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body.metadata)).toEqual(['availability']);
  });

  it.each([
    [`/v1/analytics/heartbeat-checks/${ID.heartbeat}?metrics=responseTime`, 'metrics.0'],
    [`/v1/analytics/browser-checks/${ID.browser}?metrics=availability&groupBy=pageIndex`, 'groupBy'],
  ])('refuses %s naming %s', async (path, key) => {
    const reply = await api.get(path);
    expect(reply.status).toBe(400);
    expect(reply.body.validation).toEqual({ source: 'query', keys: [key] });
  });

  it('reads a check of another type as missing', async () => {
    const reply = await api.get(`/v1/analytics/browser-checks/${ID.url}?metrics=availability`);
    expect(reply.status).toBe(404);
    expect(reply.body.message).toBe(`Browser check ${ID.url} not found`);
  });
});
