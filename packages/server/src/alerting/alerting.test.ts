import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../store/index.js';
import type { AlertContext, SendOutcome } from './channels.js';
import { Alerting, type AlertingOptions } from './index.js';
import { finalResultsFrom } from './test-results.js';
import { openRepositories } from '../repositories.js';

const ACCOUNT = 'acct';
const T0 = Date.UTC(2030, 0, 1);
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()));

interface Sent {
  type: string;
  url: unknown;
  alertType: string;
  id: string;
}

function world(file?: string) {
  const store = new Store(file ? { file } : ':memory:');
  cleanups.push(() => store.close());
  return store;
}

function seed(store: Store, check: Record<string, unknown> = {}, channel: Record<string, unknown> = {}) {
  const hook = store.alertChannels.insert(ACCOUNT, (id) => ({ id, type: 'WEBHOOK', sendFailure: true, sendRecovery: true, sendDegraded: false, config: { name: 'hook', url: 'http://127.0.0.1:1/hook' }, ...channel }));
  const created = store.checks.insert(ACCOUNT, (id) => ({ id, name: 'Shop API', checkType: 'API', activated: true, muted: false, useGlobalAlertSettings: false, tags: ['shop'], ...check }));
  store.subscriptions.set(ACCOUNT, 'check', created.id, [{ alertChannelId: hook.id as number, activated: true }]);
  return { checkId: String(created.id), channelId: hook.id as number };
}

function recorder(outcome: (context: AlertContext) => Promise<SendOutcome> = async () => ({ kind: 'sent', result: '200' })) {
  const sent: Sent[] = [];
  const send = async (type: string, config: Record<string, unknown>, context: AlertContext) => {
    sent.push({ type, url: config.url, alertType: context.alertType, id: context.notificationId });
    return outcome(context);
  };
  return { sent, send };
}

function alerting(store: Store, options: AlertingOptions) {
  const subject = new Alerting(openRepositories(store), { pollMs: 10_000, backoffMs: 1, ...options });
  cleanups.push(() => void subject.stop());
  return subject;
}

const run = finalResultsFrom(T0);

function notifications(store: Store) {
  return store.db.prepare('SELECT alert_type, delivery, attempts, last_error, alert_channel_id FROM alert_notifications ORDER BY seq').all() as Array<Record<string, unknown>>;
}

describe('Alerting', () => {
  it('notifies the subscribed channel once per incident: one failure, one recovery', async () => {
    const store = world();
    const { checkId } = seed(store);
    const { sent, send } = recorder();
    const subject = alerting(store, { send });
    for (const [minute, failed] of [[0, false], [1, true], [2, true], [3, true], [4, false], [5, false]] as const) await subject.onFinalResult(ACCOUNT, checkId, run(failed, minute));
    await subject.idle();
    expect(sent.map((entry) => entry.alertType)).toEqual(['ALERT_FAILURE', 'ALERT_RECOVERY']);
    expect(notifications(store)).toEqual([
      expect.objectContaining({ alert_type: 'ALERT_FAILURE', delivery: 'SENT', attempts: 1 }),
      expect.objectContaining({ alert_type: 'ALERT_RECOVERY', delivery: 'SENT', attempts: 1 }),
    ]);
  });

  it("reaches the group's channels too, each channel once, and skips deactivated subscriptions and switched-off alert types", async () => {
    const store = world();
    const group = store.checkGroups.insert(ACCOUNT, (id) => ({ id, name: 'Shop', tags: [], alertSettings: {}, useGlobalAlertSettings: false }));
    const { checkId, channelId } = seed(store, { groupId: group.id });
    const noRecovery = store.alertChannels.insert(ACCOUNT, (id) => ({ id, type: 'SLACK', sendFailure: true, sendRecovery: false, config: { url: 'http://127.0.0.1:1/slack' } }));
    const off = store.alertChannels.insert(ACCOUNT, (id) => ({ id, type: 'WEBHOOK', config: { url: 'http://127.0.0.1:1/off' } }));
    store.subscriptions.set(ACCOUNT, 'group', group.id, [
      { alertChannelId: channelId, activated: true },
      { alertChannelId: noRecovery.id as number, activated: true },
      { alertChannelId: off.id as number, activated: false },
    ]);
    const { sent, send } = recorder();
    const subject = alerting(store, { send });
    await subject.onFinalResult(ACCOUNT, checkId, run(true, 0));
    await subject.onFinalResult(ACCOUNT, checkId, run(false, 1));
    await subject.idle();
    expect(sent.map((entry) => `${entry.type} ${entry.alertType}`).sort()).toEqual(['SLACK ALERT_FAILURE', 'WEBHOOK ALERT_FAILURE', 'WEBHOOK ALERT_RECOVERY']);
  });

  it.each([
    // A group that sets no escalation (null) leaves each check its own: two reminders, five minutes apart.
    ['keeps its own reminders in a group without an escalation', null, {}, ['0:ALERT_FAILURE', '5:ALERT_FAILURE_REMAIN', '10:ALERT_FAILURE_REMAIN']],
    // A group with its own escalation imposes it on every check: one reminder, ten minutes on.
    ["follows the group's reminders in a group with its own escalation", false, { reminders: { amount: 1, interval: 10 } }, ['0:ALERT_FAILURE', '10:ALERT_FAILURE_REMAIN']],
  ] as const)('a failing check %s', async (_name, useGlobalAlertSettings, groupSettings, expected) => {
    const store = world();
    const group = store.checkGroups.insert(ACCOUNT, (id) => ({ id, name: 'Shop', tags: [], alertSettings: groupSettings, useGlobalAlertSettings }));
    const { checkId } = seed(store, {
      groupId: group.id,
      alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 1 }, reminders: { amount: 2, interval: 5 } },
    });
    const { sent, send } = recorder();
    const subject = alerting(store, { send });
    const minuteOf = new Map<string, number>();
    for (let minute = 0; minute <= 20; minute += 1) {
      await subject.onFinalResult(ACCOUNT, checkId, run(true, minute));
      await subject.idle();
      for (const entry of sent) if (!minuteOf.has(entry.id)) minuteOf.set(entry.id, minute);
    }
    expect(sent.map((entry) => `${minuteOf.get(entry.id)}:${entry.alertType}`)).toEqual(expected);
  });

  it("sends the check's and its group's tags once each", async () => {
    const store = world();
    const group = store.checkGroups.insert(ACCOUNT, (id) => ({ id, name: 'Shop', tags: ['shop', 'prod'], alertSettings: {}, useGlobalAlertSettings: false }));
    const { checkId } = seed(store, { groupId: group.id, tags: ['shop', 'api', 'api'] });
    const tags: string[][] = [];
    const subject = alerting(store, {
      send: async (_type, _config, context) => {
        tags.push(context.tags);
        return { kind: 'sent', result: '200' };
      },
    });
    await subject.onFinalResult(ACCOUNT, checkId, run(true, 0));
    await subject.idle();
    expect(tags).toEqual([['shop', 'api', 'prod']]);
  });

  it('follows the alert settings of the check (failedRunThreshold) or, with useGlobalAlertSettings, the default of alerting on the first failure', async () => {
    const store = world();
    const { checkId: own } = seed(store, { alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 2 } } });
    const { checkId: global } = seed(store, { useGlobalAlertSettings: true, alertSettings: { runBasedEscalation: { failedRunThreshold: 5 } } });
    const subject = alerting(store, recorder());
    expect(await subject.onFinalResult(ACCOUNT, own, run(true, 0))).toEqual([]);
    expect(await subject.onFinalResult(ACCOUNT, own, run(true, 1))).toEqual(['ALERT_FAILURE']);
    expect(await subject.onFinalResult(ACCOUNT, global, run(true, 0))).toEqual(['ALERT_FAILURE']);
  });

  it('a muted check or one in a maintenance window notifies nobody, but its state moves', async () => {
    const store = world();
    const { checkId: muted } = seed(store, { muted: true });
    const { checkId: maintained } = seed(store, { tags: ['shop'] });
    store.maintenanceWindows.insert(ACCOUNT, (id) => ({ id, name: 'upgrade', tags: ['shop'], startsAt: new Date(T0).toISOString(), endsAt: new Date(T0 + 3_600_000).toISOString(), repeatUnit: 'DAY' }));
    const { sent, send } = recorder();
    const subject = alerting(store, { send });
    await subject.onFinalResult(ACCOUNT, muted, run(true, 120));
    await subject.onFinalResult(ACCOUNT, maintained, run(true, 1));
    await subject.idle();
    expect(sent).toEqual([]);
    expect(await subject.stateOf(ACCOUNT, muted)).toMatchObject({ status: 'failing', consecutiveFailures: 1 });
    // Still failing after the window: alerted then.
    await subject.onFinalResult(ACCOUNT, maintained, run(true, 61));
    await subject.idle();
    expect(sent.map((entry) => entry.alertType)).toEqual(['ALERT_FAILURE']);
  });

  it('a window with silenceAllAlerts silences every check of the account, whatever its tags, only while it runs', async () => {
    const store = world();
    const { checkId } = seed(store, { tags: ['web'] });
    store.maintenanceWindows.insert(ACCOUNT, (id) => ({
      id, name: 'freeze', tags: ['db'], silenceAllAlerts: true, timezone: 'Europe/Amsterdam',
      startsAt: new Date(T0).toISOString(), endsAt: new Date(T0 + 3_600_000).toISOString(), repeatUnit: 'DAY',
    }));
    const { sent, send } = recorder();
    const subject = alerting(store, { send });
    await subject.onFinalResult(ACCOUNT, checkId, run(true, 1));
    await subject.idle();
    expect(sent).toEqual([]);
    await subject.onFinalResult(ACCOUNT, checkId, run(true, 61));
    await subject.idle();
    expect(sent.map((entry) => entry.alertType)).toEqual(['ALERT_FAILURE']);
  });

  it('retries a failing receiver with backoff, then records FAILED with the last error; e-mail without SMTP is UNDELIVERABLE', async () => {
    const store = world();
    const { checkId } = seed(store);
    const email = store.alertChannels.insert(ACCOUNT, (id) => ({ id, type: 'EMAIL', config: { address: 'ops@example.com' } }));
    const hooks = store.subscriptions.ofOwners(ACCOUNT, 'check', [checkId]).get(checkId)!;
    store.subscriptions.set(ACCOUNT, 'check', checkId, [...hooks, { alertChannelId: email.id as number, activated: true }]);
    let calls = 0;
    const subject = alerting(store, {
      maxAttempts: 3,
      send: async (type) => {
        if (type === 'EMAIL') return { kind: 'undeliverable', reason: 'no SMTP server is configured' };
        calls++;
        throw new Error('the receiver answered HTTP 500');
      },
    });
    await subject.onFinalResult(ACCOUNT, checkId, run(true, 0));
    for (let i = 0; i < 20 && calls < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      await subject.idle();
    }
    expect(calls).toBe(3);
    expect(notifications(store)).toEqual([
      expect.objectContaining({ delivery: 'FAILED', attempts: 3, last_error: 'the receiver answered HTTP 500' }),
      expect.objectContaining({ delivery: 'UNDELIVERABLE', attempts: 1, last_error: 'no SMTP server is configured' }),
    ]);
  });

  it('records a webhook whose template cannot be rendered FAILED at its first attempt, with the template error, never retried', async () => {
    const store = world();
    const { checkId } = seed(store, {}, { config: { name: 'hook', url: 'http://127.0.0.1:1/hook', template: '{\n  "type": "{{ALERT_TYPE}}",\n  "tags": "{{#each TAGS}}{{this}}"\n}' } });
    const subject = alerting(store, { maxAttempts: 3 });
    await subject.onFinalResult(ACCOUNT, checkId, run(true, 0));
    await subject.idle();
    expect(notifications(store)).toEqual([
      expect.objectContaining({
        delivery: 'FAILED',
        attempts: 1,
        last_error: "the webhook template cannot be rendered: line 4: Expecting 'OPEN_INVERSE_CHAIN', 'INVERSE', 'OPEN_ENDBLOCK', got 'EOF', near `ch TAGS}}{{this}}\"}` (a {{#block}} is never closed)",
      }),
    ]);
  });

  it('a receiver that never answers holds one slot only: other notifications are delivered meanwhile', async () => {
    const store = world();
    const { checkId: slow } = seed(store, {}, { config: { url: 'http://127.0.0.1:1/slow' } });
    const { checkId: fast } = seed(store, {}, { config: { url: 'http://127.0.0.1:1/fast' } });
    const { sent, send } = recorder((context) => (context.checkId === slow ? new Promise<SendOutcome>(() => undefined) : Promise.resolve({ kind: 'sent', result: '200' })));
    const subject = alerting(store, { send, concurrency: 2 });
    await subject.onFinalResult(ACCOUNT, slow, run(true, 0));
    await subject.onFinalResult(ACCOUNT, fast, run(true, 0));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sent.map((entry) => entry.url)).toEqual(['http://127.0.0.1:1/slow', 'http://127.0.0.1:1/fast']);
    expect(notifications(store).map((row) => row.delivery)).toEqual(['PENDING', 'SENT']);
  });

  it('survives a restart: pending notifications are delivered by the next process, with the same id, and the state is not re-alerted', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vigil-alerting-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'vigil.db');
    const first = world(file);
    const { checkId } = seed(first);
    // It dies mid-delivery, holding the notification's claim for 30 s.
    const before = alerting(first, { ...recorder(() => new Promise<SendOutcome>(() => undefined)), leaseMs: 30_000 });
    await before.onFinalResult(ACCOUNT, checkId, run(true, 0));
    const queuedId = (first.db.prepare('SELECT id FROM alert_notifications').get() as { id: string }).id;
    // The claim is taken once the transaction that queued the notification is done.
    await before.claimsAnswered();
    first.close();

    // The next process starts once that claim has run out (its clock is that much later).
    const second = world(file);
    const { sent, send } = recorder();
    const after = alerting(second, { send, now: () => Date.now() + 30_000 });
    after.start();
    expect(await after.onFinalResult(ACCOUNT, checkId, run(true, 1))).toEqual([]);
    await after.idle();
    expect(sent).toEqual([expect.objectContaining({ alertType: 'ALERT_FAILURE', id: queuedId })]);
  });
});
