import type { Runner, RunOutcome, RunResult } from '@vigil/runner';
import { afterEach, describe, expect, it } from 'vitest';
import type { SendOutcome } from '../alerting/channels.js';
import { createApp, type SqliteServiceApp } from '../app.js';
import { startScheduling, type Scheduling } from '../scheduler/index.js';
import { apiCheckBody, OTHER_ACCOUNT, OTHER_API_KEY, TEST_ACCOUNT, TEST_API_KEY } from '../test-support.js';
import { linesOfPiece } from '../metrics/exposition.js';

const T0 = Date.UTC(2030, 0, 1); // a period boundary for every frequency
const STOPPED_AT = new Date(T0 + 1500).toISOString();
const METRICS_TOKEN = 'operator-secret';

/** Runs pass in 120 ms, or fail in 480 ms for checks named "… down"; the https ones saw a certificate with 20 days left. */
const runner: Runner = {
  async run(check, context): Promise<RunOutcome> {
    const failed = String(check.name).endsWith('down');
    const final = {
      id: `${String(check.id)}-${context.location}`,
      name: String(check.name),
      checkId: String(check.id),
      hasFailures: failed,
      hasErrors: false,
      isDegraded: false,
      overMaxResponseTime: false,
      runLocation: context.location,
      startedAt: new Date(T0).toISOString(),
      stoppedAt: STOPPED_AT,
      created_at: STOPPED_AT,
      responseTime: failed ? 480 : 120,
      apiCheckResult: { request: { url: 'https://user:pw@shop.example.com/health' }, response: { status: failed ? 500 : 200, statusText: '' }, requestError: null },
      browserCheckResult: null,
      multiStepCheckResult: null,
      checkRunId: 0,
      attempts: 0,
      resultType: 'FINAL',
      sequenceId: 's',
      error: failed ? 'HTTP 500' : null,
      certificateExpiresAt: new Date(T0 + 20 * 86_400_000 + 60_000).toISOString(),
    } as unknown as RunResult;
    return { attempts: [], final };
  },
  async close() {},
};

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface World {
  service: SqliteServiceApp;
  scheduling: Scheduling;
  call(method: string, path: string, key: string, body?: unknown): Promise<Response>;
  scrape(key: string): Promise<{ status: number; text: string; contentType: string | null }>;
  createCheck(key: string, name: string, extra?: Record<string, unknown>): Promise<string>;
  /** Runs the one slot of every check due in the first 10 s (checks run every 10 s at a hashed phase), and waits until each of `checkIds` has its status and no run is in flight. */
  runOnce(checkIds: Array<{ accountId: string; checkId: string }>): Promise<void>;
}

function world(options: { maxChecks?: number } = {}): World {
  const service = createApp({
    accounts: [
      { apiKey: TEST_API_KEY, accountId: TEST_ACCOUNT },
      { apiKey: OTHER_API_KEY, accountId: OTHER_ACCOUNT },
    ],
    metricsToken: METRICS_TOKEN,
    authFailureLimit: false,
    ...(options.maxChecks === undefined ? {} : { metricsMaxChecks: options.maxChecks }),
  });
  // Notifications are "sent" without a receiver; the outbox looks for them every 10 ms.
  const send = async (): Promise<SendOutcome> => ({ kind: 'sent', result: '200' });
  const scheduling = startScheduling(service.repositories, { runner, metrics: service.metrics, now: () => T0, refreshMs: 0, alerting: { pollMs: 10, send } });
  cleanups.push(() => service.close(), () => scheduling.stop(0));
  const call = (method: string, path: string, key: string, body?: unknown) =>
    Promise.resolve(
      service.app.request(path, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  return {
    service,
    scheduling,
    call,
    async scrape(key) {
      const response = await call('GET', '/metrics', key);
      return { status: response.status, text: await response.text(), contentType: response.headers.get('content-type') };
    },
    async createCheck(key, name, extra = {}) {
      const response = await call('POST', '/v1/checks/api', key, apiCheckBody({ name, frequency: 0, frequencyOffset: 10, locations: ['eu-west-1'], request: { url: 'https://user:pw@shop.example.com/health' }, ...extra }));
      const created = (await response.json()) as { id: string };
      expect(response.status, JSON.stringify(created)).toBe(201);
      return String(created.id);
    },
    async runOnce(checks) {
      await scheduling.scheduler.tick(T0 + 10_000);
      const statuses = service.repositories.ports.checkStatuses;
      const allStored = async () => (await Promise.all(checks.map(({ accountId, checkId }) => statuses.find(accountId, checkId)))).every((status) => status !== undefined);
      for (let waited = 0; !(await allStored()); waited += 10) {
        if (waited > 10_000) throw new Error('the first runs of the checks were not stored within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // A run stores its result before it gives its run slot back. Asked directly, not over HTTP,
      // so the wait adds no request to the counts the tests assert.
      const inFlight = async () => Buffer.concat((await service.metrics.scrape({ kind: 'operator', accountIds: [] })).chunks.map(linesOfPiece)).toString();
      for (let waited = 0; !(await inFlight()).includes('\nvigil_scheduler_runs_in_flight 0\n'); waited += 10) {
        if (waited > 10_000) throw new Error('the runs did not give their run slots back within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}

/** The lines of one check's series, as they appear in the exposition. */
function seriesOf(text: string, checkId: string): string[] {
  return text.split('\n').filter((line) => line.includes(`check_id="${checkId}"`));
}

/**
 * The exposition format line by line: comments name a metric and a type, samples are a metric name,
 * optional labels with quoted and escaped values, and a number. prom-client writes NaN as `Nan` (the
 * event loop's lag before its first sample), which Prometheus reads: its parser ignores the case.
 */
const SAMPLE = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*"(,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*")*\})? (-?[0-9.e+-]+|NaN|Nan|[+-]Inf)$/;
const COMMENT = /^# (HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram|summary|untyped))$/;

function malformedLines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '' && !SAMPLE.test(line) && !COMMENT.test(line));
}

describe('GET /metrics', () => {
  it("exports a passing and a failing check's last run, runs by outcome and response times, with the name escaped and no URL", async () => {
    const w = world();
    const group = (await (await w.call('POST', '/v2/check-groups', TEST_API_KEY, { name: 'Storefront' })).json()) as { id: number };
    const up = await w.createCheck(TEST_API_KEY, 'Shop "main"\nhome', { groupId: group.id, tags: ['web', 'api', 'web'] });
    const down = await w.createCheck(TEST_API_KEY, 'Cart down');
    await w.runOnce([{ accountId: TEST_ACCOUNT, checkId: up }, { accountId: TEST_ACCOUNT, checkId: down }]);
    const { status, text, contentType } = await w.scrape(TEST_API_KEY);
    expect(status).toBe(200);
    expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    const upLabels = `account="acme",check_id="${up}"`;
    expect(seriesOf(text, up)).toEqual([
      `vigil_check_up{${upLabels}} 1`,
      `vigil_check_degraded{${upLabels}} 0`,
      `vigil_check_last_run_timestamp_seconds{${upLabels}} ${(T0 + 1500) / 1000}`,
      `vigil_check_last_response_time_seconds{${upLabels}} 0.12`,
      `vigil_check_ssl_days_remaining{${upLabels}} 20`,
      `vigil_check_info{${upLabels},check_name="Shop \\"main\\"\\nhome",check_type="API",group="Storefront",tags="api,web"} 1`,
      `vigil_check_runs_total{${upLabels},location="eu-west-1",outcome="passed"} 1`,
      `vigil_check_runs_total{${upLabels},location="eu-west-1",outcome="failed"} 0`,
      `vigil_check_runs_total{${upLabels},location="eu-west-1",outcome="degraded"} 0`,
      `vigil_check_runs_total{${upLabels},location="eu-west-1",outcome="error"} 0`,
      `vigil_check_response_time_seconds_bucket{le="0.1",${upLabels},location="eu-west-1"} 0`,
      ...['0.25', '0.5', '1', '2.5', '10', '+Inf'].map((le) => `vigil_check_response_time_seconds_bucket{le="${le}",${upLabels},location="eu-west-1"} 1`),
      `vigil_check_response_time_seconds_sum{${upLabels},location="eu-west-1"} 0.12`,
      `vigil_check_response_time_seconds_count{${upLabels},location="eu-west-1"} 1`,
    ]);
    const downLabels = `account="acme",check_id="${down}"`;
    expect(seriesOf(text, down).filter((line) => !line.startsWith('vigil_check_response_time_seconds'))).toEqual([
      `vigil_check_up{${downLabels}} 0`,
      `vigil_check_degraded{${downLabels}} 0`,
      `vigil_check_last_run_timestamp_seconds{${downLabels}} ${(T0 + 1500) / 1000}`,
      `vigil_check_last_response_time_seconds{${downLabels}} 0.48`,
      `vigil_check_ssl_days_remaining{${downLabels}} 20`,
      `vigil_check_info{${downLabels},check_name="Cart down",check_type="API",group="",tags=""} 1`,
      `vigil_check_runs_total{${downLabels},location="eu-west-1",outcome="passed"} 0`,
      `vigil_check_runs_total{${downLabels},location="eu-west-1",outcome="failed"} 1`,
      `vigil_check_runs_total{${downLabels},location="eu-west-1",outcome="degraded"} 0`,
      `vigil_check_runs_total{${downLabels},location="eu-west-1",outcome="error"} 0`,
    ]);
    expect(text).toContain('vigil_open_incidents{account="acme"} 0');
    expect(text).not.toContain('shop.example.com');
    expect(malformedLines(text)).toEqual([]);
  });

  it("drops a deleted check's series, the in-memory ones too, from the next scrape", async () => {
    const w = world();
    const kept = await w.createCheck(TEST_API_KEY, 'Kept');
    const deleted = await w.createCheck(TEST_API_KEY, 'Deleted');
    await w.runOnce([{ accountId: TEST_ACCOUNT, checkId: kept }, { accountId: TEST_ACCOUNT, checkId: deleted }]);
    expect(seriesOf((await w.scrape(TEST_API_KEY)).text, deleted)).toHaveLength(6 + 4 + 9);
    expect((await w.call('DELETE', `/v1/checks/${deleted}`, TEST_API_KEY)).status).toBe(204);
    const { text } = await w.scrape(TEST_API_KEY);
    expect(seriesOf(text, deleted)).toEqual([]);
    expect(seriesOf(text, kept)).toHaveLength(6 + 4 + 9);
  });

  it('shows an edit made through the API at the next scrape on the info line only: new tags and group, a new name; the other series go on', async () => {
    const w = world();
    const group = (await (await w.call('POST', '/v2/check-groups', TEST_API_KEY, { name: 'Storefront' })).json()) as { id: number };
    const id = await w.createCheck(TEST_API_KEY, 'Home', { groupId: group.id, tags: ['web'] });
    await w.runOnce([{ accountId: TEST_ACCOUNT, checkId: id }]);
    const labels = `account="acme",check_id="${id}"`;
    const isInfo = (line: string) => line.startsWith('vigil_check_info{');
    const first = seriesOf((await w.scrape(TEST_API_KEY)).text, id);
    expect(first.filter(isInfo)).toEqual([`vigil_check_info{${labels},check_name="Home",check_type="API",group="Storefront",tags="web"} 1`]);
    expect(first).toContain(`vigil_check_runs_total{${labels},location="eu-west-1",outcome="passed"} 1`);

    expect((await w.call('PUT', `/v1/checks/api/${id}`, TEST_API_KEY, { tags: ['web', 'pay"ments'], groupId: null })).status).toBe(200);
    const retagged = seriesOf((await w.scrape(TEST_API_KEY)).text, id);
    expect(retagged.filter(isInfo)).toEqual([`vigil_check_info{${labels},check_name="Home",check_type="API",group="",tags="pay\\"ments,web"} 1`]);

    expect((await w.call('PUT', `/v1/checks/api/${id}`, TEST_API_KEY, { name: 'Home v2' })).status).toBe(200);
    const renamed = seriesOf((await w.scrape(TEST_API_KEY)).text, id);
    expect(renamed.filter(isInfo)).toEqual([`vigil_check_info{${labels},check_name="Home v2",check_type="API",group="",tags="pay\\"ments,web"} 1`]);
    // The ids are the series' identity, so the runs counted before the edits go on in the same series.
    expect(renamed.filter((line) => !isInfo(line))).toEqual(first.filter((line) => !isInfo(line)));
  });

  it("shows an account's key its own checks only, and none of the service's metrics", async () => {
    const w = world();
    const ours = await w.createCheck(TEST_API_KEY, 'Ours');
    const theirs = await w.createCheck(OTHER_API_KEY, 'Theirs');
    await w.runOnce([{ accountId: TEST_ACCOUNT, checkId: ours }, { accountId: OTHER_ACCOUNT, checkId: theirs }]);
    const mine = (await w.scrape(TEST_API_KEY)).text;
    expect(seriesOf(mine, ours)).not.toEqual([]);
    expect(seriesOf(mine, theirs)).toEqual([]);
    expect(mine).not.toContain(OTHER_ACCOUNT);
    expect(mine).not.toMatch(/^(vigil_scheduler|vigil_http|vigil_notifications|process_|nodejs_)/m);
    const other = (await w.scrape(OTHER_API_KEY)).text;
    expect(seriesOf(other, theirs)).not.toEqual([]);
    expect(seriesOf(other, ours)).toEqual([]);
  });

  it("gives the operator's metrics token every account's checks and the service's metrics", async () => {
    const w = world();
    const ours = await w.createCheck(TEST_API_KEY, 'Ours');
    const theirs = await w.createCheck(OTHER_API_KEY, 'Theirs');
    await w.runOnce([{ accountId: TEST_ACCOUNT, checkId: ours }, { accountId: OTHER_ACCOUNT, checkId: theirs }]);
    await w.scrape(TEST_API_KEY);
    const { status, text } = await w.scrape(METRICS_TOKEN);
    expect(status).toBe(200);
    expect(seriesOf(text, ours)[0]).toBe(`vigil_check_up{account="acme",check_id="${ours}"} 1`);
    expect(seriesOf(text, theirs)[0]).toBe(`vigil_check_up{account="globex",check_id="${theirs}"} 1`);
    expect(text).toContain('vigil_open_incidents{account="acme"} 0\nvigil_open_incidents{account="globex"} 0');
    expect(text).toContain('vigil_scheduler_start_lag_seconds_count 2');
    expect(text).toContain('vigil_scheduler_runs_in_flight 0');
    expect(text).toContain('vigil_scheduler_runs_queued 0');
    expect(text).toContain('vigil_scheduler_missed_slots_total{reason="superseded"} 0');
    expect(text).toContain('vigil_scheduler_missed_slots_total{reason="queue-full"} 0');
    expect(text).toContain('vigil_http_requests_total{method="GET",route="/metrics",status="200"} 1');
    expect(text).toContain('vigil_http_requests_total{method="POST",route="/v1/checks/api",status="201"} 2');
    expect(text).toMatch(/^vigil_http_request_duration_seconds_count\{method="POST",route="\/v1\/checks\/api"\} 2$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).not.toContain(METRICS_TOKEN);
    expect(malformedLines(text)).toEqual([]);
  });

  it("counts a failing check's settled notification by channel type", async () => {
    const w = world();
    const down = await w.createCheck(TEST_API_KEY, 'Cart down');
    const hook = w.service.store.alertChannels.insert(TEST_ACCOUNT, (id) => ({ id, type: 'WEBHOOK', config: { name: 'hook', url: 'http://127.0.0.1:1/hook' } }));
    w.service.store.subscriptions.set(TEST_ACCOUNT, 'check', down, [{ alertChannelId: hook.id as number, activated: true }]);
    await w.runOnce([{ accountId: TEST_ACCOUNT, checkId: down }]);
    const line = 'vigil_notifications_total{channel_type="WEBHOOK",outcome="sent"} 1';
    for (let waited = 0; !(await w.scrape(METRICS_TOKEN)).text.includes(line); waited += 10) {
      if (waited > 10_000) throw new Error('the failure notification was not counted within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });

  it('answers 401 to a wrong token and to none, and takes the metrics token nowhere else', async () => {
    const w = world();
    expect((await w.scrape('not-the-token')).status).toBe(401);
    expect((await w.service.app.request('/metrics')).status).toBe(401);
    expect((await w.call('GET', '/v1/checks', METRICS_TOKEN)).status).toBe(401);
  });

  it('labels requests by route template, never by the ids or unknown paths in URLs', async () => {
    const w = world();
    await w.call('GET', '/v1/checks/4f0c1c1e-0000-4000-8000-000000000000', TEST_API_KEY);
    await w.call('GET', '/no/such/path/12345', TEST_API_KEY);
    const { text } = await w.scrape(METRICS_TOKEN);
    expect(text).toContain('vigil_http_requests_total{method="GET",route="/v1/checks/:id",status="404"} 1');
    expect(text).toContain('vigil_http_requests_total{method="GET",route="unmatched",status="404"} 1');
    expect(text).not.toContain('12345');
  });

  it('exports at most maxChecks checks a scrape and says how many it left out', async () => {
    const w = world({ maxChecks: 1 });
    const first = await w.createCheck(TEST_API_KEY, 'First');
    const second = await w.createCheck(TEST_API_KEY, 'Second');
    await w.runOnce([{ accountId: TEST_ACCOUNT, checkId: first }, { accountId: TEST_ACCOUNT, checkId: second }]);
    const { text } = await w.scrape(TEST_API_KEY);
    expect(seriesOf(text, first)).toHaveLength(6 + 4 + 9);
    expect(seriesOf(text, second)).toEqual([]);
    expect(text).toContain('vigil_metrics_checks_omitted 1');
  });
});
