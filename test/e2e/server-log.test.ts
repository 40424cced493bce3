/**
 * `vigil server` says on stderr what an operator needs while it runs: each failed check, each alert
 * sent and each failed delivery, one JSON object per line with `--log-format json`.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigilServer, targetEnv, vigil, waitFor, writeProject } from '../support/cli.js';

let target: Server;
let base = '';
let deadPort = 0;
let service: { child: ChildProcess; url: string; stderr(): string } | undefined;
let workdir = '';
let root = '';

beforeAll(async () => {
  target = createServer((request, response) => response.writeHead(request.url === '/hook' ? 204 : 500).end());
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  deadPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  workdir = await mkdtemp(path.join(tmpdir(), 'vigil-server-log-'));
});

afterAll(async () => {
  service?.child.kill('SIGKILL');
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
  await rm(workdir, { recursive: true, force: true });
  if (root) await rm(root, { recursive: true, force: true });
});

describe('vigil server --log-format json', () => {
  it('writes a JSON line for a failed check, an alert sent and a delivery that failed', async () => {
    service = await startVigilServer(['--data', path.join(workdir, 'data'), '--log-format', 'json']);
    root = await writeProject('vigil-server-log-project-', {
      'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Logs', logicalId: 'logs' });\n",
      'checks/broken.monitor.ts': `import { ApiCheck, AssertionBuilder, Frequency, RetryStrategyBuilder, WebhookAlertChannel } from 'vigil/constructs';
const good = new WebhookAlertChannel('good', { name: 'Good', url: '${base}/hook' });
const dead = new WebhookAlertChannel('dead', { name: 'Dead', url: 'http://127.0.0.1:${deadPort}/hook' });
new ApiCheck('broken', {
  name: 'Broken page', frequency: Frequency.EVERY_10S, locations: ['eu-west-1'], retryStrategy: RetryStrategyBuilder.noRetries(),
  alertChannels: [good, dead], request: { url: '${base}/broken', assertions: [AssertionBuilder.statusCode().equals(200)] },
});
`,
    });
    const applied = await vigil(['apply', '--auto-approve'], { cwd: root, env: targetEnv(service.url, { VIGIL_RATE_LIMIT: 'off' }) });
    expect(applied.code).toBe(0);

    const lines = () =>
      service!
        .stderr()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const events = await waitFor('a failed check, an alert sent and a failed delivery in the log', async () => {
      const found = lines();
      const names = new Set(found.map((line) => line.event));
      return ['check-failed', 'alert-sent', 'alert-delivery-failed'].every((name) => names.has(name)) ? found : undefined;
    });
    expect(service.stderr().split('\n').filter((line) => line !== '' && !line.startsWith('{'))).toEqual([]);
    expect(events.find((line) => line.event === 'sandbox')).toMatchObject({ level: 'info', message: expect.stringMatching(/^sandbox: /) });
    expect(events.find((line) => line.event === 'check-failed')).toEqual({
      time: expect.any(String),
      level: 'warn',
      event: 'check-failed',
      accountId: 'local',
      checkId: expect.any(String),
      checkName: 'Broken page',
      location: 'eu-west-1',
      // Worded by the runner's result (as vigil test words it): the assertion and the actual status.
      reason: expect.stringMatching(/^assertion failed: STATUS_CODE EQUALS .*500$/),
    });
    expect(events.find((line) => line.event === 'alert-sent')).toMatchObject({ level: 'info', alertType: 'ALERT_FAILURE', checkName: 'Broken page', channelType: 'WEBHOOK', attempts: 1 });
    expect(events.find((line) => line.event === 'alert-delivery-failed')).toMatchObject({
      level: 'warn',
      alertType: 'ALERT_FAILURE',
      channelType: 'WEBHOOK',
      retrying: true,
      attempts: 1,
      error: expect.stringContaining('ECONNREFUSED'),
    });
  }, 180_000);

  it('refuses another format with exit 2, naming the choices', async () => {
    const result = await vigil(['server', '--port', '0', '--log-format', 'yaml'], { cwd: workdir });
    expect(result.stderr.trim()).toBe("error: option '--log-format <format>' argument 'yaml' is invalid. Allowed choices are text, json.\n(run with --help for usage)");
    expect(result.code).toBe(2);
  });
});
