/**
 * `vigil status` against a `vigil server` that runs the checks: every managed kind is listed (API
 * checks and heartbeat, TCP, URL and DNS monitors alike), muted checks and checks in a maintenance
 * window say so, a failing one says why, a heartbeat shows its ping URL, and a failure exits 1.
 */
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { rm } from 'node:fs/promises';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsResponder, type DnsResponder } from '../../packages/runner/src/__fixtures__/dns-responder.js';
import { getJson, targetEnv, vigil, waitFor, writeProject } from '../support/cli.js';

let server: RunningServer;
let target: Server;
let responder: DnsResponder;
let base = '';
let refusedPort = 0;
let root = '';

beforeAll(async () => {
  server = await startServer({ port: 0, dataDir: ':memory:', scheduler: true });
  target = createServer((request, response) => response.writeHead(request.url === '/broken' ? 500 : 200).end('ok'));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  refusedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  responder = await startDnsResponder({ records: [{ name: 'shop.test', type: 'A', data: '192.0.2.10' }] });
});

afterAll(async () => {
  await server.close();
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
  await responder.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const MONITORS = () => `import {
  ApiCheck, AssertionBuilder, DnsMonitor, Frequency, HeartbeatMonitor, MaintenanceWindow, RetryStrategyBuilder, TcpMonitor, UrlMonitor,
} from 'vigil/constructs';

const common = { frequency: Frequency.EVERY_10S, locations: ['eu-west-1'], retryStrategy: RetryStrategyBuilder.noRetries() };
new ApiCheck('ok', { ...common, name: 'Home', request: { url: '${base}/' } });
new ApiCheck('muted', { ...common, name: 'Muted page', muted: true, request: { url: '${base}/broken', assertions: [AssertionBuilder.statusCode().equals(200)] } });
new TcpMonitor('db', { ...common, name: 'Database port', tags: ['db'], request: { hostname: '127.0.0.1', port: ${refusedPort} } });
new UrlMonitor('site', { ...common, name: 'Site', request: { url: '${base}/' } });
new DnsMonitor('dns', { ...common, name: 'Shop resolves', request: { recordType: 'A', query: 'shop.test', nameServer: '127.0.0.1', port: ${responder.port} } });
new HeartbeatMonitor('backup', { name: 'Nightly backup', period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' });
new MaintenanceWindow('db-upgrade', { name: 'DB upgrade', tags: ['db'], startsAt: new Date(Date.now() - 3_600_000), endsAt: new Date(Date.now() + 86_400_000), repeatUnit: 'DAY' });
`;

describe('vigil status', () => {
  it('lists every managed check and monitor, with muted, maintenance, the reason of a failure and a ping URL, and exits 1 on a failure', async () => {
    root = await writeProject('vigil-status-', {
      'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Status', logicalId: 'status' });\n",
      'checks/all.monitor.ts': MONITORS(),
    });
    const env = targetEnv(server.url);
    const applied = await vigil(['apply', '--auto-approve'], { cwd: root, env });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);

    await waitFor('a status of each scheduled check and monitor', async () => {
      const statuses = await getJson<unknown[]>(server.url, '/v1/check-statuses');
      return statuses.length >= 5 ? statuses : undefined;
    });

    const status = await vigil(['status'], { cwd: root, env });
    expect(status.stderr).toBe('');
    expect(status.code).toBe(1);
    const [header, ...rest] = status.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ADDRESS\s+NAME\s+STATUS\s+LAST RUN\s+LOCATION\s+NOTE$/);
    const rows = rest.slice(0, 6);
    const run = String.raw`\d{4}-\d\d-\d\dT\S+\s+eu-west-1`;
    expect(rows[0]).toMatch(new RegExp(String.raw`^api-check\.muted\s+Muted page\s+failing\s+${run}\s+muted$`));
    expect(rows[1]).toMatch(new RegExp(String.raw`^api-check\.ok\s+Home\s+passing\s+${run}$`));
    expect(rows[2]).toMatch(/^dns-monitor\.dns\s+Shop resolves\s+passing\s+/);
    expect(rows[3]).toMatch(/^heartbeat-monitor\.backup\s+Nightly backup\s+no runs yet$/);
    expect(rows[4]).toMatch(new RegExp(String.raw`^tcp-monitor\.db\s+Database port\s+failing\s+${run}\s+in maintenance$`));
    expect(rows[5]).toMatch(new RegExp(String.raw`^url-monitor\.site\s+Site\s+passing\s+${run}$`));
    expect(rest.slice(6)).toEqual([
      '',
      // Worded by the runner's result (as vigil test words it): the assertion and the actual status.
      expect.stringMatching(/^ {2}api-check\.muted: assertion failed: STATUS_CODE EQUALS .*500$/),
      expect.stringMatching(/^ {2}heartbeat-monitor\.backup ping URL: http:\/\/127\.0\.0\.1:\d+\/ping\/[A-Za-z0-9_-]+$/),
      expect.stringMatching(/^ {2}tcp-monitor\.db: could not connect to 127\.0\.0\.1:\d+: connection refused \(ECONNREFUSED\)$/),
    ]);

    const json = await vigil(['status', '--json'], { cwd: root, env });
    expect(json.code).toBe(1);
    const lines = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(lines.map((line) => [line.address, line.kind, line.state, line.muted, line.inMaintenance])).toEqual([
      ['api-check.muted', 'api-check', 'failing', true, false],
      ['api-check.ok', 'api-check', 'passing', false, false],
      ['dns-monitor.dns', 'dns-monitor', 'passing', false, false],
      ['heartbeat-monitor.backup', 'heartbeat-monitor', 'no runs yet', false, false],
      ['tcp-monitor.db', 'tcp-monitor', 'failing', false, true],
      ['url-monitor.site', 'url-monitor', 'passing', false, false],
    ]);
  }, 240_000);

  it("vigil state show prints a heartbeat monitor's ping URL read from the service, and says how to get it without one", async () => {
    const shown = await vigil(['state', 'show', 'heartbeat-monitor.backup'], { cwd: root, env: targetEnv(server.url) });
    expect(shown.stderr).toBe('');
    const entry = JSON.parse(shown.stdout) as { address: string; kind: string; pingUrl?: string };
    expect(entry).toMatchObject({ address: 'heartbeat-monitor.backup', kind: 'heartbeat-monitor' });
    expect(entry.pingUrl).toMatch(new RegExp(String.raw`^${server.url.replace(/\./g, '\\.')}/ping/[A-Za-z0-9_-]+$`));

    const offline = await vigil(['state', 'show', 'heartbeat-monitor.backup'], { cwd: root, env: { VIGIL_API_URL: '', VIGIL_API_KEY: '' } });
    expect(offline.stderr).toBe('Note: the ping URL is not kept in state; set VIGIL_API_URL and VIGIL_API_KEY to read it from the service (vigil status prints it too).\n');
    expect(JSON.parse(offline.stdout)).not.toHaveProperty('pingUrl');
    expect(offline.code).toBe(0);
  }, 120_000);
});
