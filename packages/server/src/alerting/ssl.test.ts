import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../store/index.js';
import type { AlertContext, SendOutcome } from './channels.js';
import { Alerting, type FinalResultFacts } from './index.js';
import { sslDaysRemaining } from './ssl.js';
import { openRepositories } from '../repositories.js';

const ACCOUNT = 'acct';
const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2030, 0, 1, 12);
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()));

describe('sslDaysRemaining', () => {
  it.each([
    [new Date(T0 + 20 * DAY).toISOString(), 20],
    [new Date(T0 + 20 * DAY - 1).toISOString(), 19],
    [new Date(T0 - 1).toISOString(), -1],
    [null, null],
    ['not a date', null],
  ])('a certificate expiring %s has %s whole days left', (expiresAt, days) => {
    expect(sslDaysRemaining(expiresAt, T0)).toBe(days);
  });
});

describe('SSL expiry alerts', () => {
  function setup(check: Record<string, unknown> = {}) {
    const store = new Store(':memory:');
    cleanups.push(() => store.close());
    const channel = (name: string, fields: Record<string, unknown>) =>
      store.alertChannels.insert(ACCOUNT, (id) => ({ id, type: 'WEBHOOK', config: { name, url: `http://127.0.0.1:1/${name}` }, ...fields })).id as number;
    const channels = [
      channel('default-threshold', { sslExpiry: true }),
      channel('two-weeks', { sslExpiry: true, sslExpiryThreshold: 14 }),
      channel('off', { sslExpiry: false }),
    ];
    const created = store.checks.insert(ACCOUNT, (id) => ({ id, name: 'Secure shop', checkType: 'API', activated: true, muted: false, ...check }));
    const checkId = String(created.id);
    store.subscriptions.set(ACCOUNT, 'check', checkId, channels.map((alertChannelId) => ({ alertChannelId, activated: true })));
    const sent: Array<{ url: unknown; alertType: string; days: unknown; domain: unknown }> = [];
    const send = async (_type: string, config: Record<string, unknown>, context: AlertContext): Promise<SendOutcome> => {
      sent.push({ url: config.url, alertType: context.alertType, days: context.sslDaysRemaining, domain: context.sslCheckDomain });
      return { kind: 'sent', result: '200' };
    };
    const alerting = new Alerting(openRepositories(store), { pollMs: 10_000, send });
    cleanups.push(() => void alerting.stop());
    return { store, checkId, alerting, sent };
  }

  const run = (atMs: number, expiresInDays: number, failed = false): FinalResultFacts => ({
    id: `result-${atMs}`,
    hasFailures: failed,
    hasErrors: false,
    isDegraded: false,
    responseTime: 10,
    runLocation: 'eu-west-1',
    startedAt: new Date(atMs).toISOString(),
    stoppedAt: new Date(atMs).toISOString(),
    certificateExpiresAt: new Date(atMs + expiresInDays * DAY + 1000).toISOString(),
    sslCheckDomain: 'shop.example.com',
  });

  it('alerts each sslExpiry channel whose threshold the certificate is within, once a day per check, from passing and failing runs alike', async () => {
    const { checkId, alerting, sent } = setup();
    expect(await alerting.onFinalResult(ACCOUNT, checkId, run(T0, 40))).toEqual([]);
    expect(await alerting.onFinalResult(ACCOUNT, checkId, run(T0 + 60_000, 20))).toEqual(['ALERT_SSL']);
    expect(await alerting.onFinalResult(ACCOUNT, checkId, run(T0 + 120_000, 20))).toEqual([]);
    await alerting.idle();
    expect(sent).toEqual([{ url: 'http://127.0.0.1:1/default-threshold', alertType: 'ALERT_SSL', days: 20, domain: 'shop.example.com' }]);
    sent.length = 0;
    // The next UTC day, within both thresholds, from a failing run (which also alerts its failure).
    expect(await alerting.onFinalResult(ACCOUNT, checkId, run(T0 + DAY, 10, true))).toEqual(['ALERT_FAILURE', 'ALERT_SSL']);
    await alerting.idle();
    expect(sent.filter((entry) => entry.alertType === 'ALERT_SSL').map((entry) => entry.url)).toEqual(['http://127.0.0.1:1/default-threshold', 'http://127.0.0.1:1/two-weeks']);
  });

  it('a muted check, or a run without a certificate (plain http), alerts nothing', async () => {
    const { checkId, alerting, sent, store } = setup({ muted: true });
    expect(await alerting.onFinalResult(ACCOUNT, checkId, run(T0, 3))).toEqual([]);
    store.checks.replace(ACCOUNT, { ...store.checks.get(ACCOUNT, checkId)!, muted: false });
    expect(await alerting.onFinalResult(ACCOUNT, checkId, { ...run(T0, 3), certificateExpiresAt: null })).toEqual([]);
    await alerting.idle();
    expect(sent).toEqual([]);
  });
});
