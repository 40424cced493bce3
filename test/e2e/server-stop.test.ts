/**
 * Stopping `vigil server` (SIGTERM) while a run and a notification delivery are in flight: the run
 * against a target that does not answer and the delivery to a receiver that does not answer are
 * cut off at the drain deadline, the process exits cleanly without touching the closed database,
 * and the notification is delivered by the next start on the same data directory.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigilServer, targetEnv, vigil, waitFor } from '../support/cli.js';

const NOTIFICATION_ID = 'x-vigil-notification-id';
let target: Server;
let receiver: Server;
/** Receiver requests held unanswered while `holdDeliveries` is set. */
const held: ServerResponse[] = [];
let holdDeliveries = true;
const deliveries: Array<{ id: string; answered: boolean }> = [];
let slowRequests = 0;
let workdir: string;
const services: ChildProcess[] = [];

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** SIGTERM, then everything the process wrote and how it ended. */
async function stop(service: { child: ChildProcess; output: () => string }): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => service.child.once('exit', (code, signal) => resolve([code, signal])));
  service.child.kill('SIGTERM');
  const [code, signal] = await exited;
  return { code, signal, output: service.output() };
}

async function start(dataDir: string) {
  const service = await startVigilServer(['--data', dataDir]);
  services.push(service.child);
  let output = '';
  service.child.stdout!.on('data', (chunk: string) => (output += chunk));
  service.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return { ...service, output: () => output };
}

beforeAll(async () => {
  target = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.url === '/slow') {
      slowRequests++;
      return; // answers only when the test closes its connections
    }
    response.writeHead(500, { 'content-type': 'application/json' }).end('{}');
  });
  receiver = createServer((request, response) => {
    request.resume();
    const id = String(request.headers[NOTIFICATION_ID]);
    deliveries.push({ id, answered: !holdDeliveries });
    if (holdDeliveries) held.push(response);
    else response.writeHead(204).end();
  });
  const base = `http://127.0.0.1:${await listen(target)}`;
  const hook = `http://127.0.0.1:${await listen(receiver)}/alerts`;
  workdir = await mkdtemp(path.join(tmpdir(), 'vigil-stop-'));
  await mkdir(path.join(workdir, 'project', 'checks'), { recursive: true });
  await writeFile(path.join(workdir, 'project', 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Stop', logicalId: 'stop' });\n");
  await writeFile(
    path.join(workdir, 'project', 'checks', 'stop.monitor.ts'),
    `import { ApiCheck, AssertionBuilder, Frequency, RetryStrategyBuilder, WebhookAlertChannel } from 'vigil/constructs';
const hook = new WebhookAlertChannel('hook', { name: 'Slow receiver', url: '${hook}' });
const common = { frequency: Frequency.EVERY_10S, locations: ['eu-west-1'], retryStrategy: RetryStrategyBuilder.noRetries() };
new ApiCheck('slow', { ...common, name: 'Slow target', maxResponseTime: 30000, request: { url: '${base}/slow' } });
new ApiCheck('fail', { ...common, name: 'Failing target', alertChannels: [hook], request: { url: '${base}/fail', assertions: [AssertionBuilder.statusCode().equals(200)] } });
`,
  );
});

afterAll(async () => {
  for (const child of services) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const response of held) response.destroy();
  for (const server of [target, receiver]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await rm(workdir, { recursive: true, force: true });
});

describe('vigil server stopped with a run and a delivery in flight', () => {
  it('exits cleanly without touching the closed database and delivers the notification after the restart', async () => {
    const dataDir = path.join(workdir, 'data');
    const first = await start(dataDir);
    const project = path.join(workdir, 'project');
    const applied = await vigil(['apply', '--auto-approve'], { cwd: project, env: targetEnv(first.url) });
    expect(applied.stderr).toBe('');
    const state = JSON.parse(await readFile(path.join(project, '.vigil', 'state.json'), 'utf8')) as { resources: Record<string, { remoteId: string }> };
    expect(state.resources['api-check.fail']).toBeDefined();

    // Both in flight: the failing check's alert held by the receiver, a run held by the slow target.
    await waitFor('a delivery held at the receiver and a request at the slow target', async () => (held.length > 0 && slowRequests > 0 ? true : undefined));
    const inFlight = deliveries[0]!.id;
    const stopped = await stop(first);
    expect(stopped.output).not.toMatch(/database connection is not open/i);
    expect(stopped.output).not.toMatch(/unhandled|uncaught|TypeError/i);
    expect(stopped.output).toMatch(/SIGTERM: finishing in-flight requests/);
    expect({ code: stopped.code, signal: stopped.signal }).toEqual({ code: 0, signal: null });

    // The same data directory: the delivery cut off by the stop is attempted again and answered.
    holdDeliveries = false;
    const second = await start(dataDir);
    await waitFor('the delivery cut short by the stop, answered after the restart', async () => (deliveries.some((delivery) => delivery.id === inFlight && delivery.answered) ? true : undefined));
    const restopped = await stop(second);
    expect(restopped.output).not.toMatch(/database connection is not open/i);
    expect({ code: restopped.code, signal: restopped.signal }).toEqual({ code: 0, signal: null });
  }, 180_000);
});
