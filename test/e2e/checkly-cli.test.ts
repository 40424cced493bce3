/**
 * A real client nobody here wrote: the Checkly CLI from the npm registry, pointed at `vigil server`
 * with `CHECKLY_ENV=local CHECKLY_API_URL=http://127.0.0.1:PORT` (its config.ts reads the base URL
 * from CHECKLY_API_URL only in the `local` environment), signs in (`GET /next/accounts/{id}` with
 * `x-checkly-account`) and runs its read commands against seeded results.
 *
 * checkly@8.x is pinned: 9.x refuses Node 20, which this project runs on. The install (about a
 * minute) is cached in the temp directory by version, so the file's tests, and later runs, share it.
 * The last test runs a second server with its scheduler on, so `alert-channels logs` has a real
 * notification to show.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigilServer as startServer } from '../support/cli.js';

const CHECKLY_VERSION = '8.23.2';
const INSTALL_DIR = path.join(tmpdir(), `vigil-e2e-checkly-cli-${CHECKLY_VERSION}`);
const API_KEY = 'vigil-local';
const ACCOUNT = 'local';
const STOREFRONT = 'c1000000-0000-4000-8000-000000000001';
const BILLING = 'c1000000-0000-4000-8000-000000000002';
const run = promisify(execFile);

let workdir: string;
let server: { child: ChildProcess; url: string };

/** Twelve passing runs an hour apart, newest first as `s1..s12`, and one failing run with an error. */
function seed(): unknown {
  const passing = Array.from({ length: 12 }, (_, index) => ({
    id: `s${index + 1}`,
    checkId: STOREFRONT,
    created_at: `now-${index + 1}h`,
    runLocation: 'eu-west-1',
    responseTime: 100 + index,
    hasFailures: false,
    attempts: 0,
    resultType: 'FINAL',
    apiCheckResult: { response: { status: 200, statusText: 'OK', timingPhases: { dns: 5, tcp: 10, firstByte: 50, download: 5 } } },
  }));
  const failing = {
    id: 'f1',
    checkId: STOREFRONT,
    created_at: 'now-30m',
    runLocation: 'us-east-1',
    responseTime: 900,
    hasFailures: true,
    attempts: 0,
    resultType: 'FINAL',
    apiCheckResult: { response: { status: 503, statusText: 'Service Unavailable', timingPhases: {} }, requestError: 'Expected status 200 but received 503' },
  };
  return {
    accounts: [{
      accountId: ACCOUNT,
      checks: [
        { id: STOREFRONT, checkType: 'API', name: 'Storefront API', frequency: 5, tags: ['shop', 'critical'], request: { method: 'GET', url: 'https://shop.test/health' } },
        { id: BILLING, checkType: 'API', name: 'Billing API', frequency: 10, tags: ['billing'], request: { method: 'GET', url: 'https://billing.test/health' } },
      ],
      checkResults: [failing, ...passing],
    }],
  };
}

async function installChecklyCli(): Promise<void> {
  if (existsSync(path.join(INSTALL_DIR, 'node_modules', 'checkly', 'package.json'))) return;
  await mkdir(INSTALL_DIR, { recursive: true });
  await writeFile(path.join(INSTALL_DIR, 'package.json'), '{"name":"checkly-cli-e2e","private":true}\n');
  await run('npm', ['install', `checkly@${CHECKLY_VERSION}`, '--no-audit', '--no-fund', '--loglevel=error'], { cwd: INSTALL_DIR, timeout: 400_000 });
}

/**
 * `npx checkly …` against the loopback server (`env` may point CHECKLY_API_URL at another one); never
 * the network (no version check, own config dir).
 */
async function checkly(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['--no-install', 'checkly', ...args], {
      cwd: INSTALL_DIR,
      timeout: 60_000,
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: path.join(workdir, 'home'),
        XDG_CONFIG_HOME: path.join(workdir, 'config'),
        CHECKLY_ENV: 'local',
        CHECKLY_API_URL: server.url,
        CHECKLY_API_KEY: API_KEY,
        CHECKLY_ACCOUNT_ID: ACCOUNT,
        CHECKLY_SKIP_NEW_VERSION_CHECK: 'true',
        NO_COLOR: '1',
        ...env,
      },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

async function api(method: string, route: string, body?: unknown, base = server.url): Promise<any> {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response.json();
}

beforeAll(async () => {
  workdir = await mkdtemp(path.join(tmpdir(), 'vigil-checkly-cli-'));
  const seedFile = path.join(workdir, 'seed.json');
  await writeFile(seedFile, JSON.stringify(seed()));
  // No scheduler here: the seeded results are the whole history the assertions count on.
  const [started] = await Promise.all([startServer(['--no-scheduler', '--data', ':memory:', '--seed', seedFile]), installChecklyCli()]);
  server = started;
}, 480_000);

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await rm(workdir, { recursive: true, force: true });
});

describe('the Checkly CLI against vigil server', () => {
  it('whoami names the account and the key it acts as', async () => {
    const { code, stdout } = await checkly(['whoami']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/You are currently on account ".+" \(.+\) as API key [0-9a-f]{8}\./);
  });

  it('checks list signs in and lists the seeded checks', async () => {
    const { code, stdout } = await checkly(['checks', 'list']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Storefront API\s+API\s.*shop, critical\s+c1000000-0000-4000-8000-000000000001/);
    expect(stdout).toContain('Billing API');
    expect(stdout).toContain('Showing 1-2 of 2 checks');
  }, 90_000);

  it('checks list --tag (sent as tag[]) and --search filter on the server', async () => {
    const tagged = await checkly(['checks', 'list', '--tag', 'shop', '--output', 'json']);
    expect(JSON.parse(tagged.stdout).data.map((check: { name: string }) => check.name)).toEqual(['Storefront API']);
    const searched = await checkly(['checks', 'list', '--search', 'BILL', '--output', 'json']);
    expect(JSON.parse(searched.stdout).data.map((check: { name: string }) => check.name)).toEqual(['Billing API']);
  }, 90_000);

  it('checks get shows stats, error groups and recent results, and pages on with the cursor', async () => {
    const detail = await checkly(['checks', 'get', STOREFRONT, '--results-limit', '5']);
    expect(detail.code).toBe(0);
    expect(detail.stdout).toContain('STATS (last 24 hours)');
    expect(detail.stdout).toMatch(/Availability:\s+92\.31%/);
    expect(detail.stdout).toContain('ERROR GROUPS');
    expect(detail.stdout).toContain('Expected status <number> but received <number>');
    expect(detail.stdout).toMatch(/RECENT RESULTS[\s\S]*failing\s+900ms\s+f1[\s\S]*s4\n/);
    const cursor = /--results-cursor (\S+)/.exec(detail.stdout)?.[1];
    expect(cursor).toBeDefined();

    const next = await checkly(['checks', 'get', STOREFRONT, '--results-limit', '5', '--results-cursor', cursor!, '--output', 'json']);
    const older = JSON.parse(next.stdout) as { results: Array<{ id: string }>; nextId: string | null };
    expect(older.results.map((result) => result.id)).toEqual(['s5', 's6', 's7', 's8', 's9']);
    expect(older.nextId).not.toBeNull();
  }, 90_000);

  it('checks get --result and --error-group drill into one result and one group', async () => {
    const result = await checkly(['checks', 'get', STOREFRONT, '--result', 'f1']);
    expect(result.stdout).toMatch(/Status:\s+failing/);
    expect(result.stdout).toContain('Expected status 200 but received 503');

    const [group] = await api('GET', `/v1/error-groups/checks/${STOREFRONT}`);
    const detail = await checkly(['checks', 'get', STOREFRONT, '--error-group', group.id]);
    expect(detail.stdout).toContain('ERROR GROUP');
    expect(detail.stdout).toContain(`Error group:   ${group.id}`);
  }, 90_000);

  it('checks stats shows availability and response times from POST /v1/analytics/checks', async () => {
    const { stdout } = await checkly(['checks', 'stats', '--output', 'json']);
    const rows = JSON.parse(stdout).data as Array<{ name: string; availability: number | null; responseTime_avg: number | null }>;
    const storefront = rows.find((row) => row.name === 'Storefront API')!;
    expect(storefront.availability).toBeCloseTo(92.31, 1);
    expect(storefront.responseTime_avg).toBeGreaterThan(100);
    expect(rows.find((row) => row.name === 'Billing API')!.availability).toBeNull();
  }, 90_000);

  it('alert-channels list and get read channels created through the API', async () => {
    const channel = await api('POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' } });
    const list = await checkly(['alert-channels', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('ops@example.com');
    const one = await checkly(['alert-channels', 'get', String(channel.id)]);
    expect(one.stdout).toContain('ops@example.com');
  }, 90_000);

  it('incidents list shows the open status-page incidents, latest first', async () => {
    const service = await api('POST', '/v1/status-pages/services', { name: 'Checkout' });
    for (const name of ['Payments degraded', 'Checkout down']) {
      await api('POST', '/v1/status-pages/incidents', {
        name, severity: 'MAJOR', services: [{ id: service.id }], incidentUpdates: [{ description: 'Looking', status: 'INVESTIGATING' }],
      });
    }
    const { code, stdout } = await checkly(['incidents', 'list']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Checkout down[\s\S]*Payments degraded/);
    expect(stdout).toContain('Showing 2 incidents');
  }, 90_000);

  it('incidents update changes the severity with PATCH and posts an update; incidents resolve resolves it', async () => {
    const service = await api('POST', '/v1/status-pages/services', { name: 'Search' });
    const incident = await api('POST', '/v1/status-pages/incidents', { name: 'Slow search', severity: 'MINOR', services: [{ id: service.id }] });
    const updated = await checkly(['incidents', 'update', incident.id, '--message', 'Found the slow query', '--status', 'identified', '--severity', 'critical', '--force', '--no-notify-subscribers']);
    expect(updated.code).toBe(0);
    const afterUpdate = await api('GET', `/v1/status-pages/incidents/${incident.id}`);
    expect([afterUpdate.severity, afterUpdate.lastUpdateStatus, afterUpdate.incidentUpdates.at(-1).description]).toEqual(['CRITICAL', 'IDENTIFIED', 'Found the slow query']);

    const resolved = await checkly(['incidents', 'resolve', incident.id, '--message', 'Index added', '--force', '--no-notify-subscribers']);
    expect(resolved.code).toBe(0);
    expect((await api('GET', `/v1/status-pages/incidents/${incident.id}`)).lastUpdateStatus).toBe('RESOLVED');
  }, 90_000);

  it('an account the key does not reach is refused with 403, not served from the default account', async () => {
    const { code, stdout, stderr } = await checkly(['checks', 'list'], { CHECKLY_ACCOUNT_ID: 'someone-else' });
    expect(code).not.toBe(0);
    expect(stdout).not.toContain('Storefront API');
    expect(stderr).toContain('API key has no access to account someone-else');
  }, 90_000);
});

describe('the Checkly CLI against vigil server running checks', () => {
  let scheduled: { child: ChildProcess; url: string };
  let receiver: Server;
  const delivered: string[] = [];

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        delivered.push(body);
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    scheduled = await startServer(['--data', ':memory:']);
  }, 60_000);

  afterAll(async () => {
    scheduled?.child.kill('SIGTERM');
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('alert-channels logs lists the webhook notification a failing scheduled check sent', async () => {
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const channel = await api('POST', '/v1/alert-channels', {
      type: 'WEBHOOK', config: { name: 'hook', url: hook, method: 'POST', headers: [], queryParameters: [] },
    }, scheduled.url);
    // Port 9 (discard) on loopback refuses the connection: every run fails at once.
    await api('POST', '/v1/checks/api?autoAssignAlerts=false', {
      name: 'Dead target', frequency: 0, frequencyOffset: 10, locations: ['eu-west-1'], useGlobalAlertSettings: false,
      alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 1 } },
      alertChannelSubscriptions: [{ alertChannelId: channel.id, activated: true }],
      request: { method: 'GET', url: 'http://127.0.0.1:9/nothing' },
    }, scheduled.url);
    const deadline = Date.now() + 45_000;
    while (delivered.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 500));
    expect(delivered.length).toBeGreaterThan(0);

    const { code, stdout } = await checkly(['alert-channels', 'logs', String(channel.id), '--output', 'json'], { CHECKLY_API_URL: scheduled.url });
    expect(code).toBe(0);
    const logs = JSON.parse(stdout) as { data: Array<{ alertChannelId: number; alertType: string; status: string }> };
    expect(logs.data[0]).toMatchObject({ alertChannelId: channel.id, alertType: 'ALERT_FAILURE', status: 'SUCCESS' });
  }, 90_000);
});
