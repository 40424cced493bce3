/**
 * TcpMonitor end to end against a real vigil server and loopback TCP servers (an echo server, a
 * server that accepts and never answers, a refused port): validate → plan → apply → plan empty →
 * import into a fresh project (next plan empty) → `vigil test`; the service's scheduler runs it and
 * its timings reach the tcp-checks analytics; bad inputs at file:line. One service per file.
 */
import { readFile, readdir, rm } from 'node:fs/promises';
import net, { type AddressInfo, type Socket } from 'node:net';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, targetEnv, vigil, waitFor, writeProject } from '../../support/cli.js';

let server: RunningServer;
const listeners: net.Server[] = [];
const sockets = new Set<Socket>();
const port = { echo: 0, hang: 0, refused: 0 };

async function listen(onConnection: (socket: Socket) => void): Promise<number> {
  const listener = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  listeners.push(listener);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  return (listener.address() as AddressInfo).port;
}

beforeAll(async () => {
  // The scheduler runs applied checks; loopback is allowed (only metadata addresses are denied).
  server = await startServer({ port: 0, dataDir: ':memory:', scheduler: true });
  port.echo = await listen((socket) => socket.on('data', (chunk) => socket.write(`ECHO ${chunk.toString('utf8')}`)));
  port.hang = await listen(() => undefined);
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  port.refused = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
});

afterAll(async () => {
  await server.close();
  for (const socket of sockets) socket.destroy();
  await Promise.all(listeners.map((listener) => new Promise((resolve) => listener.close(resolve))));
});

const project = (files: Record<string, string>) => writeProject('vigil-tcp-monitor-', files);

const run = (args: string[], cwd: string) => vigil(args, { cwd, env: targetEnv(server.url) });

const get = <T,>(route: string) => getJson<T>(server.url, route);

const CONFIG = "import { defineConfig } from 'checkly';\n\nexport default defineConfig({ projectName: 'Ports', logicalId: 'ports', checks: { checkMatch: '**/*.check.ts' } });\n";

const MONITORS = () => `import { Frequency, RetryStrategyBuilder, TcpAssertionBuilder, TcpMonitor } from 'checkly/constructs';

new TcpMonitor('echo', {
  name: 'Echo answers',
  frequency: Frequency.EVERY_10S,
  locations: ['eu-west-1'],
  tags: ['tcp'],
  retryStrategy: RetryStrategyBuilder.noRetries(),
  degradedResponseTime: 1000,
  maxResponseTime: 2000,
  request: {
    hostname: '127.0.0.1',
    port: ${port.echo},
    data: 'PING\\r\\n',
    assertions: [TcpAssertionBuilder.responseData().contains('ECHO PING'), TcpAssertionBuilder.responseTime().lessThan(1500)],
  },
});
`;

describe('TcpMonitor', () => {
  it('validates, plans, applies, plans nothing more, imports into a fresh project with an empty next plan, and vigil test passes', async () => {
    const root = await project({ 'checkly.config.ts': CONFIG, '__checks__/ports.check.ts': MONITORS() });
    const fresh = await project({ 'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'copy', logicalId: 'copy' });\n" });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stderr).toBe('');
      expect(validate.stdout.trim()).toBe('✔ 1 resource valid');
      const plan = await run(['plan'], root);
      expect(plan.stdout).toContain('+ tcp-monitor.echo');
      const apply = await run(['apply', '--auto-approve'], root);
      expect(apply.stderr).toBe('');
      expect(apply.code).toBe(0);
      const [check] = await get<Array<Record<string, unknown>>>('/v1/checks?checkType=TCP');
      expect(check).toMatchObject({
        checkType: 'TCP',
        frequency: 0,
        frequencyOffset: 10,
        degradedResponseTime: 1000,
        maxResponseTime: 2000,
        request: { hostname: '127.0.0.1', port: port.echo, data: 'PING\r\n', ipFamily: 'IPv4' },
      });
      const again = await run(['plan', '--detailed-exitcode'], root);
      expect(again.code).toBe(0);

      const imported = await run(['import', 'tcp-monitor'], fresh);
      expect(imported.code).toBe(0);
      const files = (await readdir(path.join(fresh, 'imported'), { recursive: true })).map(String);
      const source = await readFile(path.join(fresh, 'imported', files.find((file) => file.endsWith('.monitor.ts'))!), 'utf8');
      expect(source).toContain("new TcpMonitor('echo-answers'");
      expect(source).toContain("TcpAssertionBuilder.responseData().contains('ECHO PING')");
      expect(source).toContain('TcpAssertionBuilder.responseTime().lessThan(1500)');
      expect(source).toContain('data: `PING\\r\n`');
      const next = await run(['plan', '--detailed-exitcode'], fresh);
      expect(next.stdout + next.stderr).toContain('No changes');
      expect(next.code).toBe(0);

      const test = await run(['test', '--reporter', 'json'], root);
      expect(test.code).toBe(0);
      const [result] = JSON.parse(test.stdout).results as Array<{ checkType: string; passed: boolean; result: { apiCheckResult: { response: { body: string } } } }>;
      expect(result).toMatchObject({ checkType: 'TCP', passed: true });
      expect(result!.result.apiCheckResult.response.body).toBe('ECHO PING\r\n');

      // The scheduler runs it every 10 s; its phases feed the tcp-checks analytics.
      const checkId = String(check!.id);
      await waitFor('a result of the scheduled TCP monitor', async () => {
        const results = await get<unknown[]>(`/v1/check-results/${checkId}?limit=10`);
        return results.length > 0 ? results : undefined;
      });
      const analytics = await get<{ series: Array<{ data: Array<Record<string, number | null>> }> }>(`/v1/analytics/tcp-checks/${checkId}?metrics=total,dns,connection,data,availability`);
      const row = analytics.series[0]!.data[0]!;
      for (const metric of ['total', 'dns', 'connection', 'data']) expect(typeof row[metric], metric).toBe('number');
      expect(row.availability).toBe(100);
    } finally {
      await rm(root, { recursive: true, force: true });
      await rm(fresh, { recursive: true, force: true });
    }
  }, 300_000);

  it('vigil test fails a refused port and a server that never answers with their exact reasons', async () => {
    const root = await project({
      'checkly.config.ts': CONFIG,
      '__checks__/down.check.ts': `import { RetryStrategyBuilder, TcpMonitor } from 'checkly/constructs';

new TcpMonitor('refused', { name: 'Refused', retryStrategy: RetryStrategyBuilder.noRetries(), request: { hostname: '127.0.0.1', port: ${port.refused} } });
new TcpMonitor('silent', { name: 'Silent', retryStrategy: RetryStrategyBuilder.noRetries(), maxResponseTime: 500, request: { hostname: '127.0.0.1', port: ${port.hang}, data: 'HELLO' } });
`,
    });
    try {
      const test = await run(['test', '--reporter', 'json'], root);
      expect(test.code).toBe(1);
      const byId = Object.fromEntries((JSON.parse(test.stdout).results as Array<{ logicalId: string; passed: boolean; error: string }>).map((item) => [item.logicalId, item]));
      expect(byId.refused).toMatchObject({ passed: false, error: `could not connect to 127.0.0.1:${port.refused}: connection refused (ECONNREFUSED)` });
      expect(byId.silent).toMatchObject({ passed: false, error: `no answer from 127.0.0.1:${port.hang} within maxResponseTime (500 ms)` });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 120_000);

  it('reports bad inputs at file:line', async () => {
    const root = await project({
      'checkly.config.ts': CONFIG,
      '__checks__/bad.check.ts': `import { TcpMonitor } from 'checkly/constructs';

new TcpMonitor('no-port', { name: 'No port', request: { hostname: 'db.example.com' } as never });
new TcpMonitor('with-port', { name: 'Host with port', request: { hostname: 'db.example.com:5432', port: 5432 } });
new TcpMonitor('slow', { name: 'Slow', maxResponseTime: 6000, request: { hostname: 'db.example.com', port: 5432 } });
`,
    });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stdout.trim().split('\n')).toEqual([
        '__checks__/bad.check.ts:3:1  error  "request.port" is required  (tcp-monitor.no-port.request.port)',
        '__checks__/bad.check.ts:4:1  error  "request.hostname" must not include a port, got "db.example.com:5432"  (tcp-monitor.with-port.request.hostname)',
        '  hint: Set "request.port": 5432 and "request.hostname": "db.example.com".',
        '__checks__/bad.check.ts:5:1  error  "maxResponseTime" must be less than or equal to 5000  (tcp-monitor.slow.maxResponseTime)',
        "  hint: A TCP monitor's response-time limits are milliseconds between 0 and 5000.",
        '3 errors',
      ]);
      expect(validate.code).toBe(1);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 120_000);
});
