/**
 * `vigil server` alerts: an applied API check runs every 10 s against a loopback target that turns
 * from 200 to 500 and back; its WebhookAlertChannel's loopback receiver gets exactly one failure
 * and one recovery (each with the notification id and the HMAC signature), its EmailAlertChannel
 * gets the same two e-mails through a loopback SMTP server (`--smtp`), its PagerdutyAlertChannel a
 * trigger and a resolve at a loopback Events API (`--provider-url`), its MSTeamsAlertChannel and
 * IncidentioAlertChannel (the Checkly CLI's Handlebars templates: `{{#if}}`, `{{#each TAGS}}`,
 * `{{#contains}}`) valid JSON bodies, and `GET /v1/alert-notifications` lists them all as SENT.
 */
import type { ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigilServer, targetEnv, vigil } from '../support/cli.js';

const API_KEY = 'vigil-local';
const SECRET = 'webhook-signing-secret';
let target: Server;
let receiver: Server;
let healthy = true;
let runs = 0;
const deliveries: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
const pagerduty: Array<{ url: string; body: string }> = [];
const cards: Array<{ url: string; body: string }> = [];
const emails: Array<{ to: string[]; raw: string }> = [];
let smtp: SMTPServer;
let smtpUrl: string;
let receiverUrl: string;
let workdir: string;
let service: ChildProcess | undefined;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function startService(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  return startVigilServer(['--data', dataDir, '--smtp', smtpUrl, '--provider-url', `pagerduty=${receiverUrl}/pd`]);
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

beforeAll(async () => {
  target = createServer((_request, response) => {
    runs++;
    response.writeHead(healthy ? 200 : 500, { 'content-type': 'application/json' }).end('{}');
  });
  receiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      if (request.url === '/pd/v2/enqueue') pagerduty.push({ url: request.url, body });
      else if (request.url === '/teams' || request.url === '/incidentio') cards.push({ url: request.url, body });
      else deliveries.push({ headers: request.headers, body });
      response.writeHead(204).end();
    });
  });
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, session, callback) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (raw += chunk));
      stream.on('end', () => {
        emails.push({ to: session.envelope.rcptTo.map((recipient) => recipient.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
  const targetUrl = await listen(target);
  receiverUrl = await listen(receiver);
  workdir = await mkdtemp(path.join(tmpdir(), 'vigil-alerting-'));
  await mkdir(path.join(workdir, 'project', 'checks'), { recursive: true });
  await writeFile(path.join(workdir, 'project', 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Alerts', logicalId: 'alerts' });\n");
  await writeFile(
    path.join(workdir, 'project', 'checks', 'shop.monitor.ts'),
    `import { ApiCheck, AssertionBuilder, EmailAlertChannel, Frequency, IncidentioAlertChannel, MSTeamsAlertChannel, PagerdutyAlertChannel, RetryStrategyBuilder, WebhookAlertChannel } from 'vigil/constructs';
const teams = new MSTeamsAlertChannel('teams', { name: 'Teams', url: '${receiverUrl}/teams' });
const incidentio = new IncidentioAlertChannel('incidentio', { name: 'incident.io', url: '${receiverUrl}/incidentio', apiKey: 'io-key' });
const mail = new EmailAlertChannel('mail', { address: 'oncall@example.com' });
const pager = new PagerdutyAlertChannel('pager', { serviceKey: 'routing-key' });
const hook = new WebhookAlertChannel('hook', {
  name: 'Loopback receiver',
  url: '${receiverUrl}/alerts',
  template: '{"type":"{{ALERT_TYPE}}","check":"{{CHECK_NAME}}","result":"{{CHECK_RESULT_ID}}","location":"{{RUN_LOCATION}}"}',
  webhookSecret: '${SECRET}',
});
new ApiCheck('shop', {
  name: 'Shop API',
  frequency: Frequency.EVERY_10S,
  locations: ['eu-west-1'],
  retryStrategy: RetryStrategyBuilder.noRetries(),
  tags: ['shop', 'api'],
  alertChannels: [hook, mail, pager, teams, incidentio],
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

describe('vigil server alerts through a webhook channel', () => {
  it('sends one failure and one recovery per incident, signed and with a stable id, and lists them as SENT', async () => {
    const started = await startService(path.join(workdir, 'data'));
    service = started.child;
    const applied = await vigil(['apply', '--auto-approve'], { cwd: path.join(workdir, 'project'), env: targetEnv(started.url) });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);

    await until(() => runs >= 1, 25_000, 'a first passing run');
    healthy = false;
    const failingFrom = runs;
    await until(() => deliveries.length >= 1, 25_000, 'the failure notification');
    // Another failing run: still one failure notification.
    await until(() => runs >= failingFrom + 2, 25_000, 'a second failing run');
    healthy = true;
    await until(() => deliveries.length >= 2, 25_000, 'the recovery notification');
    const recoveredAt = runs;
    await until(() => runs >= recoveredAt + 1, 25_000, 'a run after the recovery');
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect(deliveries.map((delivery) => JSON.parse(delivery.body).type)).toEqual(['ALERT_FAILURE', 'ALERT_RECOVERY']);
    for (const { headers, body } of deliveries) {
      expect(JSON.parse(body)).toMatchObject({ check: 'Shop API', location: 'eu-west-1' });
      expect(headers['x-checkly-signature']).toBe(createHmac('sha256', SECRET).update(body).digest('hex'));
      expect(headers['x-vigil-notification-id']).toMatch(/^[0-9a-f-]{36}$/);
    }

    const reply = await fetch(`${started.url}/v1/alert-notifications?limit=100`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(reply.status).toBe(200);
    // Newest first, as the real API lists them; read oldest first below.
    const listed = ((await reply.json()) as Array<Record<string, unknown>>).reverse();
    const urlOf = (notification: Record<string, unknown>) => String((notification.alertConfig as { url?: unknown }).url);
    const webhooks = listed.filter((notification) => notification.type === 'WEBHOOK' && urlOf(notification).endsWith('/alerts'));
    expect(webhooks.map((notification) => [notification.alertType, notification.delivery, notification.status, notification.attempts])).toEqual([
      ['ALERT_FAILURE', 'SENT', 'SUCCESS', 1],
      ['ALERT_RECOVERY', 'SENT', 'SUCCESS', 1],
    ]);
    expect(webhooks.map((notification) => notification.id)).toEqual(deliveries.map((delivery) => delivery.headers['x-vigil-notification-id']));
    expect(webhooks[0]!.checkResultId).toBe(JSON.parse(deliveries[0]!.body).result);

    // The same two alerts by e-mail, through --smtp.
    await until(() => emails.length >= 2, 10_000, 'two e-mails');
    expect(emails).toHaveLength(2);
    expect(emails.map((email) => email.to)).toEqual([['oncall@example.com'], ['oncall@example.com']]);
    expect(emails.map((email) => /^Subject: (.*)$/m.exec(email.raw)?.[1])).toEqual(["Check 'Shop API' has failed", "Check 'Shop API' has recovered"]);
    const mailed = listed.filter((notification) => notification.type === 'EMAIL');
    expect(mailed.map((notification) => [notification.alertType, notification.delivery])).toEqual([
      ['ALERT_FAILURE', 'SENT'],
      ['ALERT_RECOVERY', 'SENT'],
    ]);
    expect(emails.map((email) => /^x-vigil-notification-id: (.*)$/im.exec(email.raw)?.[1]?.trim())).toEqual(mailed.map((notification) => notification.id));

    // And to PagerDuty: a trigger, then a resolve of the same incident.
    await until(() => pagerduty.length >= 2, 10_000, 'two PagerDuty events');
    expect(pagerduty.map((event) => JSON.parse(event.body))).toEqual([
      expect.objectContaining({ routing_key: 'routing-key', event_action: 'trigger', dedup_key: listed[0]!.checkId }),
      expect.objectContaining({ routing_key: 'routing-key', event_action: 'resolve', dedup_key: listed[0]!.checkId }),
    ]);
    expect(listed.filter((notification) => notification.type === 'PAGERDUTY').map((notification) => notification.delivery)).toEqual(['SENT', 'SENT']);

    // The Checkly CLI's Teams card and incident.io body, Handlebars blocks and all, arrive as JSON.
    await until(() => cards.length >= 4, 10_000, 'two Teams cards and two incident.io alerts');
    const teamsTexts = cards.filter((card) => card.url === '/teams').map((card) => JSON.parse(card.body).attachments[0].content.body[0].items.map((item: { text?: string }) => item.text));
    expect(teamsTexts.map((texts) => texts[0])).toEqual(["Check 'Shop API' has failed", "Check 'Shop API' has recovered"]);
    for (const card of cards.filter(({ url }) => url === '/teams')) expect(card.body).toContain('"text": "Tags:  api ,  shop  "');
    expect(listed.filter((notification) => /\/(teams|incidentio)$/.test(urlOf(notification))).map((notification) => notification.delivery)).toEqual(['SENT', 'SENT', 'SENT', 'SENT']);
    const incidentioBodies = cards.filter((card) => card.url === '/incidentio').map((card) => JSON.parse(card.body));
    expect(incidentioBodies.map((body) => [body.title, body.status])).toEqual([
      ["Check 'Shop API' has failed", 'firing'],
      ["Check 'Shop API' has recovered", 'resolved'],
    ]);
  }, 90_000);

  it('refuses a --provider-url that is not NAME=URL with a known provider', async () => {
    const result = await vigil(['server', '--provider-url', 'twilio=http://127.0.0.1:1'], { cwd: workdir });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('Error: --provider-url must be NAME=URL with NAME one of pagerduty, opsgenie, opsgenie-eu, slack and an http(s) URL, got "twilio=http://127.0.0.1:1"\n');
  });

  it('refuses an --smtp that is not an smtp:// or smtps:// URL', async () => {
    const result = await vigil(['server', '--smtp', 'mail.example.com:25'], { cwd: workdir });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('Error: --smtp must be an smtp:// or smtps:// URL, got "mail.example.com:25"\n');
  });
});
