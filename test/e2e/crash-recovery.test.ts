/**
 * `kill -9` of `vigil server` in the middle of a run: the loopback
 * target holds the request of the second slot and the test kills the server while it waits. The
 * webhook receiver of the failure alert is down (503) until the crash, then up. After a restart on
 * the same data directory: no slot ran twice, at most one slot was missed (the one the crash cut
 * short), the pending notification is delivered exactly once per notification id, and
 * `PRAGMA integrity_check` is ok.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrityCheck } from '../hardening/harness.js';
import { startVigilServer, targetEnv, vigil, waitFor } from '../support/cli.js';

const API_KEY = 'vigil-local';
const PERIOD_S = 20;
let target: Server;
let receiver: Server;
let receiverUp = false;
/** Called when the target gets a request; the test arms it to kill the server mid-run. */
let onTargetRequest: (() => void) | undefined;
const attempts: Array<{ headers: IncomingHttpHeaders; accepted: boolean }> = [];
let workdir: string;
let service: { child: ChildProcess; url: string } | undefined;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function get<T>(url: string): Promise<T> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${API_KEY}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

beforeAll(async () => {
  target = createServer((_request, response) => {
    const hook = onTargetRequest;
    onTargetRequest = undefined;
    // The armed request is held: the server is killed while this run is in flight.
    if (hook) {
      hook();
      setTimeout(() => response.writeHead(500).end('{}'), 3_000).unref();
      return;
    }
    response.writeHead(500, { 'content-type': 'application/json' }).end('{"status":"down"}');
  });
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      attempts.push({ headers: request.headers, accepted: receiverUp });
      response.writeHead(receiverUp ? 204 : 503).end();
    });
  });
  const targetUrl = await listen(target);
  const receiverUrl = await listen(receiver);
  workdir = await mkdtemp(path.join(tmpdir(), 'vigil-crash-'));
  await mkdir(path.join(workdir, 'project', 'checks'), { recursive: true });
  await writeFile(path.join(workdir, 'project', 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Crash', logicalId: 'crash' });\n");
  await writeFile(
    path.join(workdir, 'project', 'checks', 'down.monitor.ts'),
    `import { ApiCheck, AssertionBuilder, Frequency, RetryStrategyBuilder, WebhookAlertChannel } from 'vigil/constructs';
const hook = new WebhookAlertChannel('hook', { name: 'Receiver', url: '${receiverUrl}/alerts' });
new ApiCheck('down', {
  name: 'Down API',
  frequency: Frequency.EVERY_${PERIOD_S}S,
  locations: ['eu-west-1'],
  retryStrategy: RetryStrategyBuilder.noRetries(),
  alertChannels: [hook],
  request: { url: '${targetUrl}/health', assertions: [AssertionBuilder.statusCode().equals(200)] },
});
`,
  );
});

afterAll(async () => {
  service?.child.kill('SIGKILL');
  for (const server of [target, receiver]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await rm(workdir, { recursive: true, force: true });
});

describe('vigil server after kill -9 during a run', () => {
  it('runs no slot twice, misses at most the slot in flight, delivers the pending notification once, and keeps the database intact', async () => {
    const dataDir = path.join(workdir, 'data');
    service = await startVigilServer(['--data', dataDir]);
    const project = path.join(workdir, 'project');
    const applied = await vigil(['apply', '--auto-approve'], { cwd: project, env: targetEnv(service.url) });
    expect(applied.stderr).toBe('');
    const state = JSON.parse(await readFile(path.join(project, '.vigil', 'state.json'), 'utf8')) as { resources: Record<string, { remoteId: string }> };
    const checkId = state.resources['api-check.down']!.remoteId;
    const results = (url: string) => get<Array<{ checkRunId: number; runLocation: string; resultType: string }>>(`${url}/v1/check-results/${checkId}?limit=100&resultType=ALL`);

    // The first slot fails; its alert is pending while the receiver answers 503.
    await waitFor("the first slot's alert delivery attempt", async () => (attempts.length > 0 ? true : undefined));
    const before = await results(service.url);
    expect(before.length).toBeGreaterThanOrEqual(1);

    // Killed while the next slot's request is in flight at the target.
    const killed = new Promise<void>((resolve) => {
      onTargetRequest = () => {
        service!.child.kill('SIGKILL');
        resolve();
      };
    });
    await killed;
    await new Promise((resolve) => service!.child.once('exit', resolve));
    receiverUp = true;

    service = await startVigilServer(['--data', dataDir]);
    const after = await waitFor('two results across the restart', async () => {
      const found = await results(service!.url);
      return found.length >= 2 ? found : undefined;
    });
    await waitFor('an accepted alert delivery after the restart', async () => (attempts.some((attempt) => attempt.accepted) ? true : undefined));

    // No slot twice; between the first and the last result at most one slot (the one cut short) is missing.
    const runIds = after.map((result) => result.checkRunId).sort((a, b) => a - b);
    expect(new Set(runIds).size).toBe(runIds.length);
    const missed = (runIds.at(-1)! - runIds[0]!) / PERIOD_S + 1 - runIds.length;
    expect(missed).toBeLessThanOrEqual(1);
    expect(after.every((result) => result.resultType === 'FINAL')).toBe(true);

    // Exactly one accepted delivery per notification id, and it is the one that was pending at the crash.
    const notificationIds = attempts.map((attempt) => attempt.headers['x-vigil-notification-id']);
    const accepted = attempts.filter((attempt) => attempt.accepted).map((attempt) => attempt.headers['x-vigil-notification-id']);
    expect(new Set(accepted).size).toBe(accepted.length);
    expect(accepted).toEqual([notificationIds[0]]);
    const listed = await get<Array<{ id: string; delivery: string; alertType: string }>>(`${service.url}/v1/alert-notifications`);
    expect(listed.map((notification) => [notification.id, notification.alertType, notification.delivery])).toEqual([[notificationIds[0], 'ALERT_FAILURE', 'SENT']]);

    service.child.kill('SIGKILL');
    await new Promise((resolve) => service!.child.once('exit', resolve));
    service = undefined;
    expect(integrityCheck(dataDir)).toBe('ok');
  }, 180_000);
});
