import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../store/index.js';
import { sqlitePorts } from '../store/sqlite/index.js';
import { NotificationLog } from './notifications.js';
import { Alerting, type AlertingOptions } from './index.js';
import { finalResultsFrom } from './test-results.js';
import { openRepositories } from '../repositories.js';
import type { StoredDoc } from '../store/index.js';
import { openCheckIncident, resolveCheckIncident, resolveDeletedCheckIncident, type IncidentCause } from './incidents.js';

/** What `DELETE /v1/checks/{id}` does: in one unit of work the check goes and its open incident is resolved. */
async function deleteCheck(store: Store, accountId: string, id: string): Promise<void> {
  await openRepositories(store).ports.transaction(async (tx) => {
    const check = (await tx.documents.get('checks', accountId, id)) as StoredDoc;
    await tx.documents.remove('checks', accountId, id);
    await resolveDeletedCheckIncident(tx, accountId, check, Date.now());
  });
}

const ACCOUNT = 'acct';
const OTHER = 'other';
const T0 = Date.UTC(2030, 0, 1);
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()));

function world(file?: string) {
  const store = new Store(file ? { file } : ':memory:');
  cleanups.push(() => store.close());
  return store;
}

function alerting(store: Store, options: AlertingOptions = {}) {
  // No --smtp: subscriber e-mails end UNDELIVERABLE, as EMAIL channels do.
  const subject = new Alerting(openRepositories(store), { pollMs: 10_000, backoffMs: 1, ...options });
  cleanups.push(() => void subject.stop());
  return subject;
}

/** A service on a status page with a VERIFIED and a PENDING subscriber, and a page without it. */
async function statusPage(store: Store, accountId = ACCOUNT): Promise<string> {
  const service = store.services.insert(accountId, (id) => ({ id, name: 'Shop', created_at: new Date(T0).toISOString(), updated_at: null }));
  const { statusPages } = sqlitePorts(store);
  await statusPages.save(accountId, { id: 'page-1', name: 'Acme status', cards: [{ name: 'Web', services: [{ id: String(service.id) }] }] });
  await statusPages.save(accountId, { id: 'page-2', name: 'Other status', cards: [{ name: 'Other', services: [] }] });
  const subscription = (id: string, page: string, address: string, status: 'VERIFIED' | 'PENDING') =>
    statusPages.addSubscription(accountId, page, { id, type: 'EMAIL', address, status, created_at: new Date(T0).toISOString(), updated_at: null });
  await subscription(`${accountId}-s1`, 'page-1', 'fan@example.com', 'VERIFIED');
  await subscription(`${accountId}-s2`, 'page-1', 'unconfirmed@example.com', 'PENDING');
  await subscription(`${accountId}-s3`, 'page-2', 'elsewhere@example.com', 'VERIFIED');
  return String(service.id);
}

function check(store: Store, serviceId: string, fields: Record<string, unknown> = {}, accountId = ACCOUNT) {
  const created = store.checks.insert(accountId, (id) => ({
    id,
    name: 'Shop API',
    checkType: 'API',
    activated: true,
    muted: false,
    useGlobalAlertSettings: false,
    triggerIncident: { serviceId, name: 'Shop is down', severity: 'MAJOR', description: 'Orders fail.', notifySubscribers: true },
    ...fields,
  }));
  return String(created.id);
}

const run = finalResultsFrom(T0);

function incidents(store: Store, accountId = ACCOUNT) {
  return (store.db.prepare('SELECT state FROM incidents WHERE account_id = ? ORDER BY seq').all(accountId) as Array<{ state: string }>).map((row) => JSON.parse(row.state));
}

function subscriberMails(store: Store) {
  return store.db
    .prepare("SELECT alert_type, delivery, last_error, json_extract(doc, '$.alertConfig.address') AS address FROM alert_notifications WHERE channel_type = 'STATUS_PAGE_SUBSCRIBER' ORDER BY seq")
    .all() as Array<Record<string, unknown>>;
}

describe('triggerIncident', () => {
  it('opens one incident when the failure alert is due, INVESTIGATING with the trigger’s name, severity and description, and resolves it on recovery', async () => {
    const store = world();
    const serviceId = await statusPage(store);
    const checkId = check(store, serviceId, { alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 2 } } });
    const subject = alerting(store);
    await subject.onFinalResult(ACCOUNT, checkId, run(true, 0));
    expect(incidents(store)).toEqual([]);
    for (const minute of [1, 2, 3]) await subject.onFinalResult(ACCOUNT, checkId, run(true, minute));
    expect(incidents(store)).toEqual([
      expect.objectContaining({
        name: 'Shop is down',
        severity: 'MAJOR',
        serviceIds: [serviceId],
        lastUpdateStatus: 'INVESTIGATING',
        incidentUpdates: [expect.objectContaining({ status: 'INVESTIGATING', description: 'Orders fail.', notifySubscribers: true, created_at: new Date(T0 + 60_000).toISOString() })],
      }),
    ]);
    await subject.onFinalResult(ACCOUNT, checkId, run(false, 4));
    const [resolved] = incidents(store);
    expect(resolved.lastUpdateStatus).toBe('RESOLVED');
    expect(resolved.incidentUpdates.map((update: { status: string; description: string }) => [update.status, update.description])).toEqual([
      ['INVESTIGATING', 'Orders fail.'],
      ['RESOLVED', "Check 'Shop API' has recovered."],
    ]);
    expect(await subject.openIncidentOf(ACCOUNT, checkId)).toBeUndefined();
    // The next failure is a new incident.
    await subject.onFinalResult(ACCOUNT, checkId, run(true, 5));
    await subject.onFinalResult(ACCOUNT, checkId, run(true, 6));
    expect(incidents(store).map((incident) => incident.lastUpdateStatus)).toEqual(['RESOLVED', 'INVESTIGATING']);
  });

  it('e-mails each update to the VERIFIED subscribers of the pages showing the service only, recorded UNDELIVERABLE without --smtp and not listed as alert notifications', async () => {
    const store = world();
    const serviceId = await statusPage(store);
    const checkId = check(store, serviceId);
    const quiet = check(store, serviceId, { name: 'Quiet', triggerIncident: { serviceId, name: 'Quiet down', severity: 'MINOR', notifySubscribers: false } });
    const subject = alerting(store);
    await subject.onFinalResult(ACCOUNT, checkId, run(true, 0));
    await subject.onFinalResult(ACCOUNT, checkId, run(false, 1));
    await subject.onFinalResult(ACCOUNT, quiet, run(true, 0));
    await subject.onFinalResult(ACCOUNT, quiet, run(false, 1));
    await subject.idle();
    const noSmtp = 'no SMTP server is configured for this service (vigil server --smtp URL), so e-mail cannot be sent';
    expect(subscriberMails(store)).toEqual([
      { alert_type: 'INCIDENT_INVESTIGATING', delivery: 'UNDELIVERABLE', last_error: noSmtp, address: 'fan@example.com' },
      { alert_type: 'INCIDENT_RESOLVED', delivery: 'UNDELIVERABLE', last_error: noSmtp, address: 'fan@example.com' },
    ]);
    expect(incidents(store)).toHaveLength(2);
    expect((await new NotificationLog(sqlitePorts(store).outbox).list(ACCOUNT, { fromMs: 0, toMs: Number.MAX_SAFE_INTEGER }, { page: 1, limit: 100 })).total).toBe(0);
  });

  it('a muted check opens no incident until the silence ends while it still fails; a recovery while muted still resolves the incident', async () => {
    const store = world();
    const serviceId = await statusPage(store);
    const checkId = check(store, serviceId, { muted: true });
    const subject = alerting(store);
    await subject.onFinalResult(ACCOUNT, checkId, run(true, 0));
    expect(incidents(store)).toEqual([]);
    const unmuted = { ...store.checks.get(ACCOUNT, checkId)!, muted: false };
    store.checks.replace(ACCOUNT, unmuted);
    await subject.onFinalResult(ACCOUNT, checkId, run(true, 1));
    expect(incidents(store).map((incident) => incident.lastUpdateStatus)).toEqual(['INVESTIGATING']);
    store.checks.replace(ACCOUNT, { ...unmuted, muted: true });
    await subject.onFinalResult(ACCOUNT, checkId, run(false, 2));
    expect(incidents(store).map((incident) => incident.lastUpdateStatus)).toEqual(['RESOLVED']);
  });

  it('survives a restart: the process after it neither opens a second incident nor loses the resolve', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vigil-incidents-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'vigil.db');
    const first = world(file);
    const serviceId = await statusPage(first);
    const checkId = check(first, serviceId);
    // The first process dies with its subscriber e-mail in flight, claimed for 30 s.
    const before = new Alerting(openRepositories(first), { pollMs: 10_000, leaseMs: 30_000, send: () => new Promise(() => undefined) });
    await before.onFinalResult(ACCOUNT, checkId, run(true, 0));
    await before.claimsAnswered();
    first.close();

    // The next process starts once that claim has run out (its clock is that much later).
    const second = world(file);
    const after = alerting(second, { now: () => Date.now() + 30_000 });
    await after.onFinalResult(ACCOUNT, checkId, run(true, 1));
    expect(incidents(second)).toHaveLength(1);
    await after.onFinalResult(ACCOUNT, checkId, run(false, 2));
    expect(incidents(second).map((incident) => incident.lastUpdateStatus)).toEqual(['RESOLVED']);
    // The e-mail the crash cut short is attempted by the next process, with the resolve's after it.
    await after.idle();
    expect(subscriberMails(second).map((mail) => [mail.alert_type, mail.delivery])).toEqual([
      ['INCIDENT_INVESTIGATING', 'UNDELIVERABLE'],
      ['INCIDENT_RESOLVED', 'UNDELIVERABLE'],
    ]);
  });

  it('an incident resolved or deleted through the API is no longer the check’s open incident', async () => {
    const store = world();
    const serviceId = await statusPage(store);
    const checkId = check(store, serviceId);
    const subject = alerting(store);
    await subject.onFinalResult(ACCOUNT, checkId, run(true, 0));
    const [opened] = incidents(store);
    await sqlitePorts(store).incidents.remove(ACCOUNT, opened.id);
    await subject.onFinalResult(ACCOUNT, checkId, run(false, 1));
    await subject.onFinalResult(ACCOUNT, checkId, run(true, 2));
    expect(incidents(store).map((incident) => incident.lastUpdateStatus)).toEqual(['INVESTIGATING']);
    expect((await subject.openIncidentOf(ACCOUNT, checkId))?.id).toBe(incidents(store)[0].id);
  });

  it('resolves the open incident of a check deleted through the API, "Check \'NAME\' was deleted.", mails the subscribers and forgets it; other checks’ incidents stay open', async () => {
    const store = world();
    const serviceId = await statusPage(store);
    const deleted = check(store, serviceId);
    const kept = check(store, serviceId, { name: 'Cart API', triggerIncident: { serviceId, name: 'Cart is down', severity: 'MINOR', notifySubscribers: false } });
    const subject = alerting(store);
    for (const checkId of [deleted, kept]) await subject.onFinalResult(ACCOUNT, checkId, run(true, 0));
    await subject.idle();

    await deleteCheck(store, ACCOUNT, deleted);

    const [shop, cart] = incidents(store);
    expect(shop.lastUpdateStatus).toBe('RESOLVED');
    expect(shop.incidentUpdates.map((update: { status: string; description: string }) => [update.status, update.description])).toEqual([
      ['INVESTIGATING', 'Orders fail.'],
      ['RESOLVED', "Check 'Shop API' was deleted."],
    ]);
    expect(cart.lastUpdateStatus).toBe('INVESTIGATING');
    expect(store.db.prepare('SELECT check_id FROM check_incidents').all()).toEqual([{ check_id: kept }]);
    await subject.idle();
    expect(subscriberMails(store).map((mail) => [mail.alert_type, mail.address])).toEqual([
      ['INCIDENT_INVESTIGATING', 'fan@example.com'],
      ['INCIDENT_RESOLVED', 'fan@example.com'],
    ]);
  });

  it('deleting a check without an open incident changes no incident', async () => {
    const store = world();
    const serviceId = await statusPage(store);
    const recovered = check(store, serviceId);
    const passing = check(store, serviceId);
    const subject = alerting(store);
    await subject.onFinalResult(ACCOUNT, recovered, run(true, 0));
    await subject.onFinalResult(ACCOUNT, recovered, run(false, 1));
    await subject.onFinalResult(ACCOUNT, passing, run(false, 1));
    const before = incidents(store);
    for (const checkId of [recovered, passing]) await deleteCheck(store, ACCOUNT, checkId);
    expect(incidents(store)).toEqual(before);
    expect(store.db.prepare('SELECT * FROM check_incidents').all()).toEqual([]);
  });

  it('keeps tenants apart: a check naming another account’s service opens nothing, and mails no one of that account', async () => {
    const store = world();
    const foreignService = await statusPage(store, OTHER);
    const checkId = check(store, foreignService);
    const subject = alerting(store);
    await subject.onFinalResult(ACCOUNT, checkId, run(true, 0));
    await subject.idle();
    expect(incidents(store, ACCOUNT)).toEqual([]);
    expect(incidents(store, OTHER)).toEqual([]);
    expect(subscriberMails(store)).toEqual([]);
  });

  describe("through a unit of work's ports", () => {
    const cause = (store: Store, checkId: string, minute: number): IncidentCause => ({
      accountId: ACCOUNT,
      check: store.checks.get(ACCOUNT, checkId)!,
      context: {
        checkId,
        checkName: 'Shop API',
        checkType: 'API',
        checkResultId: `result-${minute}`,
        responseTime: 12,
        runLocation: 'eu-west-1',
        startedAt: new Date(T0 + minute * 60_000).toISOString(),
        errorMessage: null,
        groupName: null,
        tags: [],
        statusCode: null,
        statusText: null,
      },
      atMs: T0 + minute * 60_000,
    });

    it('opens the check’s incident once and resolves it, each with the VERIFIED subscribers’ mail, committed with the unit', async () => {
      const store = world();
      const serviceId = await statusPage(store);
      const checkId = check(store, serviceId);
      const { ports } = openRepositories(store);
      expect(await ports.transaction((tx) => openCheckIncident(tx, cause(store, checkId, 0)))).toBe(true);
      expect(await ports.transaction((tx) => openCheckIncident(tx, cause(store, checkId, 1)))).toBe(false);
      const [opened] = incidents(store);
      expect(incidents(store)).toHaveLength(1);
      expect(opened).toMatchObject({ name: 'Shop is down', severity: 'MAJOR', lastUpdateStatus: 'INVESTIGATING', serviceIds: [serviceId] });
      expect(await ports.incidents.openOfCheck(ACCOUNT, checkId)).toEqual(opened);

      expect(await ports.transaction((tx) => resolveCheckIncident(tx, cause(store, checkId, 2)))).toBe(true);
      const [resolved] = incidents(store);
      expect(resolved.incidentUpdates.map((update: { status: string; description: string }) => [update.status, update.description])).toEqual([
        ['INVESTIGATING', 'Orders fail.'],
        ['RESOLVED', "Check 'Shop API' has recovered."],
      ]);
      expect(store.db.prepare('SELECT * FROM check_incidents').all()).toEqual([]);
      expect(subscriberMails(store).map((mail) => [mail.alert_type, mail.address])).toEqual([
        ['INCIDENT_INVESTIGATING', 'fan@example.com'],
        ['INCIDENT_RESOLVED', 'fan@example.com'],
      ]);
    });

    it('leaves no incident, row or mail behind when the unit fails after opening', async () => {
      const store = world();
      const checkId = check(store, await statusPage(store));
      const { ports } = openRepositories(store);
      await expect(
        ports.transaction(async (tx) => {
          await openCheckIncident(tx, cause(store, checkId, 0));
          throw new Error('the transition lost');
        }),
      ).rejects.toThrow('the transition lost');
      expect(incidents(store)).toEqual([]);
      expect(store.db.prepare('SELECT * FROM check_incidents').all()).toEqual([]);
      expect(subscriberMails(store)).toEqual([]);
    });

    it('opens nothing for a service of another account', async () => {
      const store = world();
      const checkId = check(store, await statusPage(store, OTHER));
      const { ports } = openRepositories(store);
      expect(await ports.transaction((tx) => openCheckIncident(tx, cause(store, checkId, 0)))).toBe(false);
      expect(incidents(store, ACCOUNT)).toEqual([]);
      expect(incidents(store, OTHER)).toEqual([]);
    });
  });
});
