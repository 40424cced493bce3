/**
 * SSL expiry alerts end to end: an https API check against a loopback server whose certificate has
 * (or soon will have) expired, subscribed to a webhook channel with `sslExpiry`, makes `vigil
 * server` send one ALERT_SSL a day (not one per run) and report the days left in check statuses. A
 * channel without `sslExpiry` on the same check gets nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigilServer, targetEnv, vigil, waitFor } from '../support/cli.js';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'short-lived-cert');
const API_KEY = 'vigil-local';
let target: Server;
let receiver: Server;
let runs = 0;
const deliveries: Array<{ path: string; body: string }> = [];
let workdir: string;
let service: ChildProcess | undefined;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  target = createHttpsServer(
    { cert: await readFile(path.join(FIXTURE, 'cert.pem')), key: await readFile(path.join(FIXTURE, 'key.pem')) },
    (_request, response) => {
      runs++;
      response.writeHead(200).end('ok');
    },
  );
  receiver = createHttpServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      deliveries.push({ path: request.url ?? '', body });
      response.writeHead(204).end();
    });
  });
  const targetPort = await listen(target);
  const receiverPort = await listen(receiver);
  workdir = await mkdtemp(path.join(tmpdir(), 'vigil-ssl-'));
  const project = path.join(workdir, 'project');
  await mkdir(path.join(project, 'checks'), { recursive: true });
  await writeFile(path.join(project, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'SSL', logicalId: 'ssl' });\n");
  await writeFile(
    path.join(project, 'checks', 'shop.monitor.ts'),
    `import { ApiCheck, Frequency, RetryStrategyBuilder, WebhookAlertChannel } from 'vigil/constructs';
const expiry = new WebhookAlertChannel('expiry', {
  name: 'Certificates',
  url: 'http://127.0.0.1:${receiverPort}/ssl',
  template: '{"type":"{{ALERT_TYPE}}","days":"{{SSL_DAYS_REMAINING}}"}',
  sslExpiry: true,
  sslExpiryThreshold: 30,
  sendFailure: false,
  sendRecovery: false,
});
const outages = new WebhookAlertChannel('outages', { name: 'Outages', url: 'http://127.0.0.1:${receiverPort}/outages' });
new ApiCheck('shop', {
  name: 'Shop over TLS',
  frequency: Frequency.EVERY_10S,
  locations: ['eu-west-1'],
  retryStrategy: RetryStrategyBuilder.noRetries(),
  alertChannels: [expiry, outages],
  request: { url: 'https://127.0.0.1:${targetPort}/', skipSSL: true },
});
`,
  );
});

afterAll(async () => {
  service?.kill('SIGKILL');
  for (const server of [target, receiver]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await rm(workdir, { recursive: true, force: true });
});

describe('a channel with sslExpiry', () => {
  it('gets one ALERT_SSL a day for a certificate within its threshold, with the days left; other channels get nothing', async () => {
    const started = await startVigilServer(['--data', path.join(workdir, 'data')]);
    service = started.child;
    const project = path.join(workdir, 'project');
    const applied = await vigil(['apply', '--auto-approve'], { cwd: project, env: targetEnv(started.url) });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);

    await waitFor('the ALERT_SSL delivery', async () => (deliveries.length >= 1 ? true : undefined), { intervalMs: 200 });
    // Another run after the first alert: still one alert, because it is once a day.
    const runsAtAlert = runs;
    await waitFor('another run after the first alert', async () => (runs >= runsAtAlert + 1 ? true : undefined), { intervalMs: 200 });

    const certificateEnd = Date.parse('2026-12-01T08:52:56Z');
    const expectedDays = Math.floor((certificateEnd - Date.now()) / 86_400_000);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.path).toBe('/ssl');
    const alert = JSON.parse(deliveries[0]!.body) as { type: string; days: string };
    expect(alert.type).toBe('ALERT_SSL');
    // The day may turn between the alert and this line.
    expect(Math.abs(Number(alert.days) - expectedDays)).toBeLessThanOrEqual(1);

    const state = JSON.parse(await readFile(path.join(project, '.vigil', 'state.json'), 'utf8')) as { resources: Record<string, { remoteId: string }> };
    const checkId = state.resources['api-check.shop']!.remoteId;
    const response = await fetch(`${started.url}/v1/check-statuses/${checkId}`, { headers: { authorization: `Bearer ${API_KEY}` } });
    const status = (await response.json()) as { sslDaysRemaining: number | null; hasFailures: boolean };
    expect(status.hasFailures).toBe(false);
    expect(Math.abs(status.sslDaysRemaining! - expectedDays)).toBeLessThanOrEqual(1);
  }, 180_000);
});
