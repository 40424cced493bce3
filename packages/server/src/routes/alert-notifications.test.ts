import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AlertNotification } from '@vigil/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Alerting } from '../alerting/index.js';
import { Store } from '../store/index.js';
import { OTHER_API_KEY, TEST_ACCOUNT, apiFor, startTestServer, type TestApi } from '../test-support.js';
import { openRepositories } from '../repositories.js';

let api: TestApi;
let dir: string;
let hookId: number;
let emailId: number;
const NOW = Date.now();

/** Writes notifications through Alerting into a database the server then opens. */
async function seedNotifications(dataDir: string): Promise<void> {
  const store = new Store(dataDir);
  const hook = store.alertChannels.insert(TEST_ACCOUNT, (id) => ({ id, type: 'WEBHOOK', config: { name: 'hook', url: 'http://127.0.0.1:1/hook', webhookSecret: 'secret', headers: [{ key: 'Authorization', value: 'Bearer token' }] } }));
  const email = store.alertChannels.insert(TEST_ACCOUNT, (id) => ({ id, type: 'EMAIL', config: { address: 'ops@example.com' } }));
  hookId = hook.id as number;
  emailId = email.id as number;
  const check = store.checks.insert(TEST_ACCOUNT, (id) => ({ id, name: 'Shop', checkType: 'API', useGlobalAlertSettings: true }));
  store.subscriptions.set(TEST_ACCOUNT, 'check', check.id, [{ alertChannelId: hookId, activated: true }, { alertChannelId: emailId, activated: true }]);
  const alerting = new Alerting(openRepositories(store), {
    send: async (type) => (type === 'EMAIL' ? { kind: 'undeliverable', reason: 'no SMTP server is configured for this service, so e-mail cannot be sent' } : { kind: 'sent', result: '200 ok' }),
  });
  const result = { id: 'result-1', hasFailures: true, hasErrors: false, isDegraded: false, responseTime: 5, runLocation: 'eu-west-1', startedAt: null, stoppedAt: new Date(NOW - 120_000).toISOString() };
  await alerting.onFinalResult(TEST_ACCOUNT, String(check.id), result);
  // A minute later it recovers: the newest notifications.
  await alerting.onFinalResult(TEST_ACCOUNT, String(check.id), { ...result, id: 'result-2', hasFailures: false, stoppedAt: new Date(NOW - 60_000).toISOString() });
  await alerting.idle();
  await alerting.stop();
  store.close();
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'vigil-notifications-'));
  await seedNotifications(dir);
  api = await startTestServer({ dataDir: dir });
});
afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('GET /v1/alert-notifications', () => {
  it('lists the notifications of the last 24 hours, newest first as the real API, with their delivery state, secrets masked', async () => {
    const reply = await api.get('/v1/alert-notifications');
    expect(reply.status).toBe(200);
    expect(reply.body.map((notification: { alertType: string; type: string }) => `${notification.alertType} ${notification.type}`)).toEqual([
      'ALERT_RECOVERY EMAIL', 'ALERT_RECOVERY WEBHOOK', 'ALERT_FAILURE EMAIL', 'ALERT_FAILURE WEBHOOK',
    ]);
    for (const notification of reply.body) expect(AlertNotification.safeParse(notification).success).toBe(true);
    const [email, hook] = reply.body.slice(2);
    expect(hook).toMatchObject({ type: 'WEBHOOK', status: 'SUCCESS', delivery: 'SENT', attempts: 1, lastError: null, alertType: 'ALERT_FAILURE', alertChannelId: hookId, checkResultId: 'result-1', notificationResult: '200 ok' });
    expect(hook.alertConfig).toEqual({ name: 'hook', url: 'http://127.0.0.1:1/hook', webhookSecret: '*****', headers: [{ key: 'Authorization', value: '*****' }] });
    expect(email).toMatchObject({ type: 'EMAIL', status: 'FAILURE', delivery: 'UNDELIVERABLE', lastError: 'no SMTP server is configured for this service, so e-mail cannot be sent' });
    expect(hook.checkAlertId).toBe(email.checkAlertId);
  });

  it.each([
    [`alertChannelId=EMAIL`, ['UNDELIVERABLE', 'UNDELIVERABLE']],
    ['hasFailures=true', ['UNDELIVERABLE', 'UNDELIVERABLE']],
    ['hasFailures=false', ['SENT', 'SENT']],
    [`from=${Math.floor(NOW / 1000) - 3600}&to=${Math.floor(NOW / 1000) - 600}`, []],
    ['limit=1&page=2', ['SENT']],
    // A default window reaching before 1970 starts there (a port refuses negative moments).
    ['to=1', []],
    ['to=1&page=1054960998', []],
  ])('filters: %s', async (query, expected) => {
    const reply = await api.get(`/v1/alert-notifications?${query.replace('EMAIL', String(emailId))}`);
    expect(reply.status).toBe(200);
    expect(reply.body.map((notification: { delivery: string }) => notification.delivery)).toEqual(expected);
  });

  it('refuses an empty or inverted window', async () => {
    const reply = await api.get('/v1/alert-notifications?from=2000&to=1000');
    expect(reply.status).toBe(400);
    expect(reply.body.message).toBe('"to" must be greater than "from"');
  });

  it("never shows another tenant's notifications", async () => {
    const other = apiFor(api.server, OTHER_API_KEY);
    const reply = await other.get('/v1/alert-notifications');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([]);
  });
});
