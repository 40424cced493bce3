/**
 * The "done when", end to end: a project applied with the real CLI to `vigil server` (seeded
 * with a status page that shows a service, one VERIFIED and one PENDING subscriber) has an API check
 * every 10 s against a loopback target that goes down and comes back. The server produces results,
 * analytics and an error group; the webhook receiver gets one failure and one recovery; the check's
 * `triggerIncident` opens an incident (INVESTIGATING) and resolves it (RESOLVED); the VERIFIED
 * subscriber gets both updates by e-mail through a loopback SMTP server, the PENDING one nothing.
 * Down again, the check opens a second incident, which its deletion through the API resolves.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigilServer, targetEnv, vigil, waitFor } from '../support/cli.js';

const API_KEY = 'vigil-local';
const SERVICE_ID = randomUUID();
let target: Server;
let receiver: Server;
let smtp: SMTPServer;
let healthy = true;
let runs = 0;
const webhooks: string[] = [];
const emails: Array<{ to: string[]; raw: string }> = [];
let workdir: string;
let service: ChildProcess | undefined;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function get<T>(base: string, pathname: string): Promise<T> {
  const response = await fetch(`${base}${pathname}`, { headers: { authorization: `Bearer ${API_KEY}` } });
  expect(response.status, pathname).toBe(200);
  return (await response.json()) as T;
}

const until = (condition: () => boolean, what: string) => waitFor(what, async () => (condition() ? true : undefined), { intervalMs: 200 });

beforeAll(async () => {
  target = createServer((request, response) => {
    runs++;
    // Down: the connection is dropped, as by a crashed backend (a request error, so an error group).
    if (!healthy) request.socket.destroy();
    else response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  receiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      webhooks.push(body);
      response.writeHead(204).end();
    });
  });
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, session, callback) {
      let raw = '';
      stream.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
      stream.on('end', () => {
        emails.push({ to: session.envelope.rcptTo.map((recipient) => recipient.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const targetUrl = await listen(target);
  const receiverUrl = await listen(receiver);
  workdir = await mkdtemp(path.join(tmpdir(), 'vigil-incidents-'));
  await writeFile(
    path.join(workdir, 'seed.json'),
    JSON.stringify({
      accounts: [
        {
          accountId: 'local',
          statusPages: [
            {
              id: 'acme-status',
              name: 'Acme status',
              cards: [{ name: 'Web shop', services: [{ id: SERVICE_ID, name: 'Shop' }] }],
              subscriptions: [
                { address: 'fan@example.com', status: 'VERIFIED' },
                { address: 'unconfirmed@example.com', status: 'PENDING' },
              ],
            },
          ],
        },
      ],
    }),
  );
  await mkdir(path.join(workdir, 'project', 'checks'), { recursive: true });
  await writeFile(path.join(workdir, 'project', 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Incidents', logicalId: 'incidents' });\n");
  await writeFile(
    path.join(workdir, 'project', 'checks', 'shop.monitor.ts'),
    `import { ApiCheck, AssertionBuilder, Frequency, RetryStrategyBuilder, StatusPageService, WebhookAlertChannel } from 'vigil/constructs';
const hook = new WebhookAlertChannel('hook', {
  name: 'Loopback receiver',
  url: '${receiverUrl}/alerts',
  template: '{"type":"{{ALERT_TYPE}}","check":"{{CHECK_NAME}}"}',
});
new ApiCheck('shop', {
  name: 'Shop API',
  frequency: Frequency.EVERY_10S,
  locations: ['eu-west-1'],
  retryStrategy: RetryStrategyBuilder.noRetries(),
  alertChannels: [hook],
  triggerIncident: {
    service: StatusPageService.fromId('${SERVICE_ID}'),
    name: 'Shop is down',
    severity: 'MAJOR',
    description: 'Orders cannot be placed.',
    notifySubscribers: true,
  },
  request: { url: '${targetUrl}/health', assertions: [AssertionBuilder.statusCode().equals(200)] },
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
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await rm(workdir, { recursive: true, force: true });
});

describe('a check with triggerIncident on vigil server', () => {
  it('produces results, analytics, an error group, a failure and a recovery webhook, an incident INVESTIGATING then RESOLVED, and e-mails the VERIFIED subscriber; deleting the check resolves its next incident', async () => {
    const smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
    const started = await startVigilServer(['--data', path.join(workdir, 'data'), '--seed', path.join(workdir, 'seed.json'), '--smtp', smtpUrl]);
    service = started.child;
    const project = path.join(workdir, 'project');
    const applied = await vigil(['apply', '--auto-approve'], { cwd: project, env: targetEnv(started.url) });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const state = JSON.parse(await readFile(path.join(project, '.vigil', 'state.json'), 'utf8')) as { resources: Record<string, { remoteId: string }> };
    const checkId = state.resources['api-check.shop']!.remoteId;

    await until(() => runs >= 1, 'a first passing run');
    healthy = false;
    await until(() => webhooks.length >= 1, 'the failure webhook');
    type Incident = { name: string; severity: string; lastUpdateStatus: string; services: Array<{ id: string }>; incidentUpdates: Array<{ status: string; description: string }> };
    const open = await get<{ entries: Incident[] }>(started.url, '/v1/status-pages/incidents');
    expect(open.entries).toEqual([
      expect.objectContaining({ name: 'Shop is down', severity: 'MAJOR', lastUpdateStatus: 'INVESTIGATING', services: [expect.objectContaining({ id: SERVICE_ID })] }),
    ]);
    healthy = true;
    await until(() => webhooks.length >= 2, 'the recovery webhook');
    await until(() => emails.length >= 2, 'two subscriber e-mails');

    expect(webhooks.map((body) => JSON.parse(body))).toEqual([
      { type: 'ALERT_FAILURE', check: 'Shop API' },
      { type: 'ALERT_RECOVERY', check: 'Shop API' },
    ]);
    const { entries } = await get<{ entries: Incident[] }>(started.url, '/v1/status-pages/incidents');
    expect(entries).toHaveLength(1);
    expect(entries[0]!.lastUpdateStatus).toBe('RESOLVED');
    expect(entries[0]!.incidentUpdates.map((update) => [update.status, update.description])).toEqual([
      ['INVESTIGATING', 'Orders cannot be placed.'],
      ['RESOLVED', "Check 'Shop API' has recovered."],
    ]);

    expect(emails.map((email) => email.to)).toEqual([['fan@example.com'], ['fan@example.com']]);
    expect(emails.map((email) => /^Subject: (.*)$/m.exec(email.raw)?.[1])).toEqual(['[Acme status] Incident: Shop is down', '[Acme status] Resolved: Shop is down']);

    const results = await get<Array<{ hasFailures: boolean }>>(started.url, `/v1/check-results/${checkId}?limit=100`);
    expect(results.some((result) => result.hasFailures)).toBe(true);
    expect(results.some((result) => !result.hasFailures)).toBe(true);
    const analytics = await get<{ series: Array<{ data: Array<Record<string, number>> }> }>(started.url, `/v1/analytics/api-checks/${checkId}?metrics=availability,responseTime_avg`);
    const availability = analytics.series[0]!.data[0]!.availability!;
    expect(availability).toBeGreaterThan(0);
    expect(availability).toBeLessThan(100);
    const groups = await get<Array<{ checkId: string; rawErrorMessage: string }>>(started.url, `/v1/error-groups/checks/${checkId}`);
    expect(groups).toEqual([expect.objectContaining({ checkId, rawErrorMessage: expect.stringMatching(/\S/) })]);

    // Down again: a new incident; the check is then deleted, which resolves it (nothing would run it again).
    healthy = false;
    await until(() => webhooks.length >= 3, 'the second failure webhook');
    const reopened = await get<{ entries: Incident[] }>(started.url, '/v1/status-pages/incidents');
    expect(reopened.entries.map((incident) => incident.lastUpdateStatus)).toEqual(['INVESTIGATING', 'RESOLVED']);
    const deleted = await fetch(`${started.url}/v1/checks/${checkId}`, { method: 'DELETE', headers: { authorization: `Bearer ${API_KEY}` } });
    expect(deleted.status).toBe(204);
    const after = await get<{ entries: Incident[] }>(started.url, '/v1/status-pages/incidents');
    expect(after.entries.map((incident) => incident.lastUpdateStatus)).toEqual(['RESOLVED', 'RESOLVED']);
    expect(after.entries[0]!.incidentUpdates.map((update) => [update.status, update.description])).toEqual([
      ['INVESTIGATING', 'Orders cannot be placed.'],
      ['RESOLVED', "Check 'Shop API' was deleted."],
    ]);
    await until(() => emails.length >= 4, 'the e-mails of the second incident');
    expect(emails.slice(2).map((email) => /^Subject: (.*)$/m.exec(email.raw)?.[1])).toEqual(['[Acme status] Incident: Shop is down', '[Acme status] Resolved: Shop is down']);
  }, 120_000);
});
