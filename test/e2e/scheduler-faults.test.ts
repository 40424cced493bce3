/**
 * Faults that must stay local: a target that never answers, a webhook
 * receiver that answers after 20 s, one that refuses connections and an SMTP server that accepts
 * connections and never speaks. Meanwhile the other checks run every slot and the healthy receiver
 * gets its notification while the slow one still holds its request. (Proved by order and count: a
 * loaded machine stretches every duration.)
 */
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../bench/lib/service-process.js';
import { startVigilServer, targetEnv, vigil, waitFor } from '../support/cli.js';

const API_KEY = 'vigil-local';
let target: Server;
let slowReceiver: Server;
let goodReceiver: Server;
let mute: TcpServer;
const sockets: Socket[] = [];
const goodDeliveries: Array<{ slowAnswered: number; body: string }> = [];
let slowAnswered = 0;
let workdir: string;
let service: { child: ChildProcess; url: string } | undefined;

async function listen(server: Server | TcpServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function get<T>(url: string): Promise<T> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${API_KEY}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

beforeAll(async () => {
  target = createServer((request, response) => {
    if (request.url === '/hang') return; // never answers
    response.writeHead(request.url === '/fail' ? 500 : 200, { 'content-type': 'application/json' }).end('{}');
  });
  slowReceiver = createServer((request, response) => {
    request.resume();
    setTimeout(() => {
      slowAnswered++;
      response.writeHead(204).end();
    }, 20_000).unref();
  });
  goodReceiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      goodDeliveries.push({ slowAnswered, body });
      response.writeHead(204).end();
    });
  });
  // An "SMTP server" that accepts connections and never sends its greeting.
  mute = createTcpServer((socket) => sockets.push(socket));
  const targetPort = await listen(target);
  const slowPort = await listen(slowReceiver);
  const goodPort = await listen(goodReceiver);
  const deadPort = await freeLoopbackPort();
  const base = `http://127.0.0.1:${targetPort}`;
  workdir = await mkdtemp(path.join(tmpdir(), 'vigil-faults-'));
  await mkdir(path.join(workdir, 'project', 'checks'), { recursive: true });
  await writeFile(path.join(workdir, 'project', 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Faults', logicalId: 'faults' });\n");
  await writeFile(
    path.join(workdir, 'project', 'checks', 'faults.monitor.ts'),
    `import { ApiCheck, AssertionBuilder, EmailAlertChannel, Frequency, RetryStrategyBuilder, WebhookAlertChannel } from 'vigil/constructs';
const slow = new WebhookAlertChannel('slow', { name: 'Slow receiver', url: 'http://127.0.0.1:${slowPort}/alerts' });
const dead = new WebhookAlertChannel('dead', { name: 'Dead receiver', url: 'http://127.0.0.1:${deadPort}/alerts' });
const good = new WebhookAlertChannel('good', { name: 'Good receiver', url: 'http://127.0.0.1:${goodPort}/alerts' });
const mail = new EmailAlertChannel('mail', { address: 'oncall@example.com' });
const common = { frequency: Frequency.EVERY_10S, locations: ['eu-west-1'], retryStrategy: RetryStrategyBuilder.noRetries() };
new ApiCheck('hang', { ...common, name: 'Hanging target', alertChannels: [slow, dead, mail], request: { url: '${base}/hang' } });
new ApiCheck('fail', { ...common, name: 'Failing target', alertChannels: [slow, dead, mail, good], request: { url: '${base}/fail', assertions: [AssertionBuilder.statusCode().equals(200)] } });
for (const name of ['ok1', 'ok2', 'ok3']) {
  new ApiCheck(name, { ...common, name, request: { url: '${base}/ok', assertions: [AssertionBuilder.statusCode().equals(200)] } });
}
`,
  );
  await listen(mute).then((port) => (smtpPort = port));
});
let smtpPort = 0;

afterAll(async () => {
  service?.child.kill('SIGKILL');
  for (const socket of sockets) socket.destroy();
  for (const server of [target, slowReceiver, goodReceiver]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await new Promise((resolve) => mute.close(resolve));
  await rm(workdir, { recursive: true, force: true });
});

describe('vigil server with a hanging target, slow and dead receivers and a mute SMTP server', () => {
  it("keeps the other checks' schedules and the healthy receiver's notification on time", async () => {
    service = await startVigilServer(['--data', path.join(workdir, 'data'), '--smtp', `smtp://127.0.0.1:${smtpPort}`]);
    const project = path.join(workdir, 'project');
    const applied = await vigil(['apply', '--auto-approve'], { cwd: project, env: targetEnv(service.url) });
    expect(applied.stderr).toBe('');
    const state = JSON.parse(await readFile(path.join(project, '.vigil', 'state.json'), 'utf8')) as { resources: Record<string, { remoteId: string }> };
    const idOf = (name: string) => state.resources[`api-check.${name}`]!.remoteId;
    type Result = { id: string; checkRunId: number; startedAt: string; stoppedAt: string; hasFailures: boolean };
    const results = (name: string) => get<Result[]>(`${service!.url}/v1/check-results/${idOf(name)}?limit=100`);

    // Three slots of the healthy checks while the faults are in play (the hanging run holds on).
    const okResults = await waitFor('three results of each healthy check', async () => {
      const all = await Promise.all(['ok1', 'ok2', 'ok3'].map(results));
      return all.every((found) => found.length >= 3) ? all : undefined;
    });
    // Every slot between a check's first and last result ran: none was lost behind the hanging run.
    for (const found of okResults) {
      const slots = found.map((result) => result.checkRunId).sort((a, b) => a - b);
      expect(slots.slice(1).map((slot, index) => slot - slots[index]!)).toEqual(slots.slice(1).map(() => 10));
    }
    expect(okResults.flat().every((result) => !result.hasFailures)).toBe(true);

    // The failing check's alert reached the healthy receiver before the slow receiver answered the
    // same alert: deliveries to one channel do not wait for another's.
    await waitFor('the failure alert at the healthy receiver', async () => (goodDeliveries.length > 0 ? true : undefined));
    expect(goodDeliveries[0]!.slowAnswered).toBe(0);
    expect(JSON.parse(goodDeliveries[0]!.body)).toMatchObject({ alertType: 'ALERT_FAILURE' });
  }, 180_000);
});
