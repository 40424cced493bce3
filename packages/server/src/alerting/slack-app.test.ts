import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseNetworkPolicy } from '@vigil/runner';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../store/index.js';
import { startTestServer, TEST_ACCOUNT } from '../test-support.js';
import { sendToChannel, type AlertContext } from './channels.js';
import { Alerting } from './index.js';
import type { DeliveryEvent } from './outbox.js';
import { openRepositories } from '../repositories.js';

const TOKEN = 'xoxb-1111-2222-slackbottoken';
const context: AlertContext = {
  notificationId: 'n-1',
  alertType: 'ALERT_FAILURE',
  checkId: 'c-1',
  checkName: 'Shop <API> & co',
  checkType: 'API',
  checkResultId: 'r-1',
  responseTime: 42,
  runLocation: 'eu-west-1',
  startedAt: '2030-01-01T00:00:00.000Z',
  errorMessage: null,
  groupName: null,
  tags: [],
  statusCode: 500,
  statusText: 'Internal Server Error',
};

let slack: Server;
let base: string;
const received: Array<{ url: string; headers: IncomingMessage['headers']; body: Record<string, unknown> }> = [];
/** What the stand-in answers for a Slack channel: `ok`, a Slack error code, or an HTTP status. */
let answers: Record<string, string | number> = {};

beforeAll(async () => {
  slack = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      received.push({ url: request.url!, headers: request.headers, body });
      const answer = answers[String(body.channel)] ?? 'ok';
      // An unhelpful receiver quotes the request's credentials back: they must not reach a record.
      if (typeof answer === 'number') response.writeHead(answer).end(`refused ${request.headers.authorization}`);
      else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer === 'ok' ? { ok: true, channel: 'C1', ts: '1.2', message: { text: 'x'.repeat(2000) } } : { ok: false, error: answer }));
    });
  });
  await new Promise<void>((resolve) => slack.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(slack.address() as AddressInfo).port}/api`;
});
afterAll(() => new Promise((resolve) => slack.close(resolve)));
beforeEach(() => {
  received.length = 0;
  answers = {};
});

const options = () => ({ timeoutMs: 2000, providerUrls: { slack: base }, slackAppToken: TOKEN });

describe('sendToChannel SLACK_APP', () => {
  it('posts one chat.postMessage per Slack channel with the bot token, the channel, an escaped text and blocks', async () => {
    const outcome = await sendToChannel('SLACK_APP', { slackChannels: ['#alerts', '@oncall'] }, context, options());
    expect(outcome).toEqual({ kind: 'sent', result: 'chat.postMessage ok: #alerts, @oncall' });
    expect(received.map((request) => [request.url, request.body.channel])).toEqual([['/api/chat.postMessage', '#alerts'], ['/api/chat.postMessage', '@oncall']]);
    expect(received[0]!.headers).toMatchObject({ authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json; charset=utf-8', 'x-vigil-notification-id': 'n-1' });
    expect(received[0]!.body).toEqual({
      channel: '#alerts',
      text: "Check 'Shop &lt;API&gt; &amp; co' has failed · location eu-west-1 · 42 ms",
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: "*Check 'Shop &lt;API&gt; &amp; co' has failed*" } },
        { type: 'context', elements: [{ type: 'mrkdwn', text: 'location eu-west-1 · 42 ms' }] },
      ],
      unfurl_links: false,
      unfurl_media: false,
    });
  });

  it('cuts a long error message to what Slack accepts in one block', async () => {
    await sendToChannel('SLACK_APP', { slackChannels: ['#alerts'] }, { ...context, notificationId: 'n-long', errorMessage: 'e'.repeat(5000) }, options());
    const [, details] = received[0]!.body.blocks as Array<{ elements: Array<{ text: string }> }>;
    expect(details!.elements[0]!.text).toHaveLength(3000);
    expect(details!.elements[0]!.text.endsWith('e…')).toBe(true);
  });

  it('is UNDELIVERABLE, sending nothing, for an account without a Slack App installation', async () => {
    expect(await sendToChannel('SLACK_APP', { slackChannels: ['#alerts'] }, context, { ...options(), slackAppToken: undefined })).toEqual({
      kind: 'undeliverable',
      reason: 'no Slack App is installed for this account on this service (slackAppToken in vigil server --accounts FILE), so Slack App messages cannot be sent',
    });
    expect(received).toEqual([]);
  });

  it("FAILS with Slack's error code when Slack refuses a channel for good, still posting to the others", async () => {
    answers = { '#gone': 'channel_not_found' };
    const outcome = await sendToChannel('SLACK_APP', { slackChannels: ['#gone', '#alerts'] }, { ...context, notificationId: 'n-gone' }, options());
    expect(outcome).toEqual({ kind: 'failed', reason: 'Slack refused to post to #gone (channel_not_found); posted to #alerts' });
    expect(received.map((request) => request.body.channel)).toEqual(['#gone', '#alerts']);
  });

  it('throws on a rate limit (to be retried), and the retry posts only to the Slack channels not yet posted to', async () => {
    answers = { '#second': 'ratelimited' };
    const config = { slackChannels: ['#first', '#second', '#third'] };
    const retried = { ...context, notificationId: 'n-retried' };
    await expect(sendToChannel('SLACK_APP', config, retried, options())).rejects.toThrow('Slack answered ratelimited for #second');
    answers = {};
    expect(await sendToChannel('SLACK_APP', config, retried, options())).toEqual({ kind: 'sent', result: 'chat.postMessage ok: #first, #second, #third' });
    expect(received.map((request) => request.body.channel)).toEqual(['#first', '#second', '#second', '#third']);
  });

  it('never puts the token in what it throws, even where the receiver quotes it', async () => {
    answers = { '#alerts': 503 };
    await expect(sendToChannel('SLACK_APP', { slackChannels: ['#alerts'] }, { ...context, notificationId: 'n-echo' }, options())).rejects.toThrow('Slack answered HTTP 503: refused Bearer *****');
  });

  it('obeys the network policy: a denied Slack base URL is UNDELIVERABLE, never requested', async () => {
    const outcome = await sendToChannel('SLACK_APP', { slackChannels: ['#alerts'] }, { ...context, notificationId: 'n-denied' }, { ...options(), policy: parseNetworkPolicy(['127.0.0.0/8']) });
    expect(outcome).toEqual({ kind: 'undeliverable', reason: "connection to 127.0.0.1 refused by the service's network policy (--deny-network 127.0.0.0/8)" });
    expect(received).toEqual([]);
  });
});

describe('a failing check with a Slack App channel', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'vigil-slack-app-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("delivers one chat.postMessage with the account's token, which neither the notifications nor the log show", async () => {
    const store = new Store(dir);
    const channel = store.alertChannels.insert(TEST_ACCOUNT, (id) => ({ id, type: 'SLACK_APP', config: { slackChannels: ['#alerts'] } }));
    const broken = store.alertChannels.insert(TEST_ACCOUNT, (id) => ({ id, type: 'SLACK_APP', config: { slackChannels: ['#broken'] } }));
    const check = store.checks.insert(TEST_ACCOUNT, (id) => ({ id, name: 'Shop', checkType: 'API', useGlobalAlertSettings: true }));
    store.subscriptions.set(TEST_ACCOUNT, 'check', check.id, [{ alertChannelId: channel.id as number, activated: true }, { alertChannelId: broken.id as number, activated: true }]);
    answers = { '#broken': 500 };
    const log: DeliveryEvent[] = [];
    const alerting = new Alerting(openRepositories(store), {
      providerUrls: { slack: base },
      slackAppTokens: new Map([[TEST_ACCOUNT, TOKEN]]),
      denyNetworks: [],
      maxAttempts: 1,
      onDelivery: (event) => log.push(event),
    });
    const result = { id: 'result-1', hasFailures: true, hasErrors: false, isDegraded: false, responseTime: 5, runLocation: 'eu-west-1', startedAt: null, stoppedAt: new Date().toISOString() };
    expect(await alerting.onFinalResult(TEST_ACCOUNT, String(check.id), result)).toEqual(['ALERT_FAILURE']);
    await alerting.idle();
    await alerting.stop();
    store.close();

    const posted = received.filter((request) => request.body.channel === '#alerts');
    expect(posted).toHaveLength(1);
    expect(posted[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(posted[0]!.body.text).toBe("Check 'Shop' has failed · location eu-west-1 · 5 ms");

    const api = await startTestServer({ dataDir: dir });
    try {
      const reply = await api.get('/v1/alert-notifications');
      expect(reply.status).toBe(200);
      const byChannel = new Map(reply.body.map((item: { alertChannelId: number }) => [item.alertChannelId, item]));
      expect(byChannel.get(channel.id)).toMatchObject({ type: 'SLACK_APP', delivery: 'SENT', alertConfig: { slackChannels: ['#alerts'] }, notificationResult: 'chat.postMessage ok: #alerts' });
      expect(byChannel.get(broken.id)).toMatchObject({ type: 'SLACK_APP', delivery: 'FAILED', lastError: 'Slack answered HTTP 500: refused Bearer *****' });
      expect(JSON.stringify(reply.body)).not.toContain(TOKEN);
    } finally {
      await api.close();
    }
    expect(log.map((event) => [event.channelType, event.outcome]).sort()).toEqual([['SLACK_APP', 'failed'], ['SLACK_APP', 'sent']]);
    expect(JSON.stringify(log)).not.toContain(TOKEN);
  });
});
