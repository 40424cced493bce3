import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_SERVICE_DENY_NETWORKS, parseNetworkPolicy } from '@vigil/runner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderTemplate, sendToChannel, SUBSCRIBER_DELIVERY, type AlertContext } from './channels.js';

const context: AlertContext = {
  notificationId: 'n-1',
  alertType: 'ALERT_FAILURE',
  checkId: 'c-1',
  checkName: 'Shop "API"',
  checkType: 'API',
  checkResultId: 'r-1',
  responseTime: 42,
  runLocation: 'eu-west-1',
  startedAt: '2030-01-01T00:00:00.000Z',
  errorMessage: null,
  groupName: null,
  tags: ['shop'],
  statusCode: 500,
  statusText: 'Internal Server Error',
};

let server: Server;
let base: string;
let status = 200;
const received: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      response.writeHead(status).end('thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('renderTemplate', () => {
  it.each([
    ['{"name":"{{CHECK_NAME}}","type":"{{ALERT_TYPE}}"}', '{"name":"Shop \\"API\\"","type":"ALERT_FAILURE"}'],
    ['{{RESPONSE_TIME}} ms at {{RUN_LOCATION}}, result {{CHECK_RESULT_ID}}', '42 ms at eu-west-1, result r-1'],
    ['{{{ CHECK_ID }}} {{API_CHECK_RESPONSE_STATUS_CODE}}', 'c-1 500'],
    ['unknown: [{{NOT_A_VARIABLE}}]', 'unknown: []'],
    ['{{ALERT_TITLE}}', "Check 'Shop \\\"API\\\"' has failed"],
  ])('%s → %s', (template, expected) => {
    expect(renderTemplate(template, context)).toBe(expected);
  });

  it.each([
    ['{{ALERT_TYPE}} {{SSL_DAYS_REMAINING}} {{SSL_CHECK_DOMAIN}}', 'ALERT_SSL 6 shop.example.com'],
    ['{{ALERT_TITLE}}', "The SSL certificate of check 'Shop \\\"API\\\"' expires in 6 days"],
  ])('ALERT_SSL: %s → %s', (template, expected) => {
    expect(renderTemplate(template, { ...context, alertType: 'ALERT_SSL', sslDaysRemaining: 6, sslCheckDomain: 'shop.example.com' })).toBe(expected);
  });
});

describe('sendToChannel', () => {
  it('sends a WEBHOOK with its method, headers, query parameters, rendered template, id header and HMAC signature', async () => {
    status = 200;
    received.length = 0;
    const outcome = await sendToChannel(
      'WEBHOOK',
      { url: `${base}/hook`, method: 'PUT', headers: [{ key: 'X-Team', value: 'ops' }], queryParameters: [{ key: 'source', value: 'vigil' }], template: '{"t":"{{ALERT_TYPE}}"}', webhookSecret: 's3cret' },
      context,
      { timeoutMs: 2000 },
    );
    expect(outcome).toEqual({ kind: 'sent', result: '200 thanks' });
    const [request] = received;
    expect(request).toMatchObject({ method: 'PUT', url: '/hook?source=vigil', body: '{"t":"ALERT_FAILURE"}' });
    expect(request!.headers).toMatchObject({ 'x-team': 'ops', 'x-vigil-notification-id': 'n-1', 'x-checkly-signature': createHmac('sha256', 's3cret').update('{"t":"ALERT_FAILURE"}').digest('hex') });
  });

  it('renders a template with Handlebars blocks once per notification: a retry sends the same body and signature', async () => {
    received.length = 0;
    const config = { url: `${base}/hook`, webhookSecret: 's3cret', template: '{"id":"{{$UUID}}","tags":[{{#each TAGS}}"{{this}}"{{#unless @last}},{{/unless}}{{/each}}]{{#if GROUP_NAME}},"group":"{{GROUP_NAME}}"{{/if}} }' };
    const retried = { ...context, notificationId: 'n-retried', tags: ['shop', 'a "quoted" tag'] };
    status = 503;
    await expect(sendToChannel('WEBHOOK', config, retried, { timeoutMs: 2000 })).rejects.toThrow('the receiver answered HTTP 503');
    status = 200;
    expect(await sendToChannel('WEBHOOK', config, retried, { timeoutMs: 2000 })).toMatchObject({ kind: 'sent' });
    expect(received).toHaveLength(2);
    expect(received[1]!.body).toBe(received[0]!.body);
    expect(received[1]!.headers['x-checkly-signature']).toBe(received[0]!.headers['x-checkly-signature']);
    expect(JSON.parse(received[0]!.body)).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), tags: ['shop', 'a "quoted" tag'] });
  });

  it('resolves failed, sending nothing, when the template cannot be rendered', async () => {
    received.length = 0;
    const outcome = await sendToChannel('WEBHOOK', { url: `${base}/hook`, template: '{"when":"{{moment "YYYY"}}"}' }, { ...context, notificationId: 'n-broken' }, { timeoutMs: 2000 });
    expect(outcome).toEqual({ kind: 'failed', reason: 'the webhook template cannot be rendered: You specified knownHelpersOnly, but used the unknown helper moment (line 1, column 10)' });
    expect(received).toEqual([]);
  });

  it('sends the default JSON body without a template, and a Slack message as { text }', async () => {
    status = 200;
    received.length = 0;
    await sendToChannel('WEBHOOK', { url: `${base}/hook` }, context, { timeoutMs: 2000 });
    await sendToChannel('SLACK', { url: `${base}/slack` }, context, { timeoutMs: 2000 });
    expect(JSON.parse(received[0]!.body)).toMatchObject({ notificationId: 'n-1', alertType: 'ALERT_FAILURE', checkName: 'Shop "API"', checkResultId: 'r-1', responseTime: 42, runLocation: 'eu-west-1' });
    expect(JSON.parse(received[1]!.body)).toEqual({ text: `Check 'Shop "API"' has failed · location eu-west-1 · 42 ms` });
  });

  it('throws on a non-2xx answer (to be retried) and resolves undeliverable for channels it cannot reach', async () => {
    status = 503;
    await expect(sendToChannel('WEBHOOK', { url: `${base}/hook` }, context, { timeoutMs: 2000 })).rejects.toThrow('the receiver answered HTTP 503: thanks');
    expect(await sendToChannel('EMAIL', { address: 'ops@example.com' }, context, { timeoutMs: 2000 })).toEqual({
      kind: 'undeliverable',
      reason: 'no SMTP server is configured for this service (vigil server --smtp URL), so e-mail cannot be sent',
    });
    expect(await sendToChannel('SMS', { name: 'ops', number: '+100' }, context, { timeoutMs: 2000 })).toEqual({ kind: 'undeliverable', reason: 'this service has no SMS provider to deliver through: the notification is recorded, not sent' });
  });

  it.each([
    ['a cloud metadata address (denied by default)', 'http://169.254.169.254/latest', DEFAULT_SERVICE_DENY_NETWORKS, 'connection to 169.254.169.254 refused by the service\'s network policy (--deny-network 169.254.0.0/16)'],
    ['a name resolving to a denied address', 'http://localhost:9/hook', ['127.0.0.0/8', '::1/128'], /^connection to (127\.0\.0\.1|::1) refused by the service's network policy \(--deny-network (127\.0\.0\.0\/8|::1\/128)\)$/],
  ])('obeys the network policy: %s is UNDELIVERABLE, never requested', async (_name, url, deny, reason) => {
    received.length = 0;
    const outcome = await sendToChannel('WEBHOOK', { url }, context, { timeoutMs: 2000, policy: parseNetworkPolicy(deny) });
    expect(outcome).toEqual({ kind: 'undeliverable', reason: typeof reason === 'string' ? reason : expect.stringMatching(reason) });
    expect(received).toEqual([]);
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const silent = createServer(() => undefined);
    const url = await new Promise<string>((resolve) => silent.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/`)));
    await expect(sendToChannel('WEBHOOK', { url }, context, { timeoutMs: 300 })).rejects.toThrow('the receiver did not answer in time');
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('triggers and resolves PagerDuty (Events v2) and opens and closes Opsgenie alerts, at overridable base URLs', async () => {
    status = 202;
    received.length = 0;
    const providerUrls = { pagerduty: `${base}/pd/`, 'opsgenie-eu': `${base}/og` };
    const recovery = { ...context, alertType: 'ALERT_RECOVERY' };
    for (const alert of [context, recovery]) {
      expect(await sendToChannel('PAGERDUTY', { serviceKey: 'routing' }, alert, { timeoutMs: 2000, providerUrls })).toMatchObject({ kind: 'sent' });
      expect(await sendToChannel('OPSGENIE', { name: 'og', apiKey: 'genie', region: 'EU', priority: 'P1' }, alert, { timeoutMs: 2000, providerUrls })).toMatchObject({ kind: 'sent' });
    }
    expect(received.map((request) => `${request.method} ${request.url}`)).toEqual([
      'POST /pd/v2/enqueue',
      'POST /og/v2/alerts',
      'POST /pd/v2/enqueue',
      'POST /og/v2/alerts/c-1/close?identifierType=alias',
    ]);
    expect(JSON.parse(received[0]!.body)).toMatchObject({ routing_key: 'routing', event_action: 'trigger', dedup_key: 'c-1', payload: { summary: `Check 'Shop "API"' has failed`, severity: 'critical' } });
    expect(JSON.parse(received[1]!.body)).toMatchObject({ alias: 'c-1', priority: 'P1', message: `Check 'Shop "API"' has failed` });
    expect(received[1]!.headers.authorization).toBe('GenieKey genie');
    expect(JSON.parse(received[2]!.body)).toMatchObject({ event_action: 'resolve', dedup_key: 'c-1' });
    expect(received.every((request) => request.headers['x-vigil-notification-id'] === 'n-1')).toBe(true);
  });

  it('sends ALERT_SSL to PagerDuty as a warning of its own, apart from the failure incident of the check', async () => {
    status = 202;
    received.length = 0;
    const ssl = { ...context, alertType: 'ALERT_SSL', sslDaysRemaining: 5, sslCheckDomain: 'shop.example.com' };
    expect(await sendToChannel('PAGERDUTY', { serviceKey: 'routing' }, ssl, { timeoutMs: 2000, providerUrls: { pagerduty: base } })).toMatchObject({ kind: 'sent' });
    expect(JSON.parse(received[0]!.body)).toMatchObject({ event_action: 'trigger', dedup_key: 'c-1:ssl', payload: { severity: 'warning', summary: `The SSL certificate of check 'Shop "API"' expires in 5 days` } });
  });

  it('records an incident e-mail to a subscriber undeliverable without --smtp (delivery through SMTP: test/e2e/incidents.test.ts)', async () => {
    const update = { address: 'fan@example.com', statusPageName: 'Acme status', incidentName: 'Shop is down', severity: 'MAJOR', status: 'RESOLVED', description: "Check 'Shop' has recovered." };
    expect(await sendToChannel(SUBSCRIBER_DELIVERY, update, context, { timeoutMs: 2000 })).toEqual({
      kind: 'undeliverable',
      reason: 'no SMTP server is configured for this service (vigil server --smtp URL), so e-mail cannot be sent',
    });
  });
});
