/**
 * A check's `triggerIncident` on PostgreSQL: the alerting built on PostgreSQL ports opens and resolves
 * the check's incident through the incidents port in the unit that moves its alert state, whether the
 * evaluation has a unit of its own (`onFinalResult`) or is part of the caller's (`evaluateIn`). The
 * replica keeps a SQLite store of its own only for what alerting reads synchronously (the profile).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StoragePorts } from '../store/ports.js';
import { openPostgresPorts } from '../store/postgres/index.js';
import { useTestPostgres } from '../store/postgres/test-database.js';
import { Alerting } from './index.js';
import { finalResultsFrom } from './test-results.js';

const ACCOUNT = 'acct';
const T0 = Date.UTC(2030, 0, 1);

const postgres = useTestPostgres();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function replica(): Promise<{ alerting: Alerting; ports: StoragePorts }> {
  const ports = await openPostgresPorts({ connectionString: await postgres.freshDatabase() });
  const alerting = new Alerting({ ports, replicaId: 'replica-0' }, { now: () => T0, pollMs: 60_000 });
  // Nobody delivers: the subscribers' mail stays queued to be read.
  await alerting.stop();
  cleanups.push(() => ports.close());
  return { alerting, ports };
}

/** A service on a status page with a VERIFIED and a PENDING subscriber, and a check whose failures open an incident on it. */
async function checkWithTrigger(ports: StoragePorts): Promise<string> {
  const service = await ports.documents.insert('services', ACCOUNT, (id) => ({ id, name: 'Shop', created_at: new Date(T0).toISOString(), updated_at: null }));
  await ports.statusPages.save(ACCOUNT, { id: 'page-1', name: 'Acme status', url: 'acme', cards: [{ id: 'card-1', name: 'Web', services: [{ id: String(service.id) }] }] });
  await ports.statusPages.addSubscription(ACCOUNT, 'page-1', { id: 's1', type: 'EMAIL', address: 'fan@example.com', status: 'VERIFIED' });
  await ports.statusPages.addSubscription(ACCOUNT, 'page-1', { id: 's2', type: 'EMAIL', address: 'unconfirmed@example.com', status: 'PENDING' });
  const check = await ports.documents.insert('checks', ACCOUNT, (id) => ({
    id,
    name: 'Shop API',
    checkType: 'API',
    activated: true,
    muted: false,
    useGlobalAlertSettings: false,
    triggerIncident: { serviceId: String(service.id), name: 'Shop is down', severity: 'MAJOR', description: 'Orders fail.', notifySubscribers: true },
  }));
  return String(check.id);
}

const run = finalResultsFrom(T0);

async function incidentsOf(ports: StoragePorts) {
  return (await ports.incidents.pageBefore(ACCOUNT, Number.MAX_SAFE_INTEGER, 10)).map((row) => row.incident);
}

async function subscriberMail(ports: StoragePorts) {
  const queued = await ports.outbox.claimDue('reader', T0 + 3_600_000, 60_000, 100);
  return queued.filter((notification) => notification.channelType === 'STATUS_PAGE_SUBSCRIBER').map((notification) => ({ alertType: notification.alertType, address: (JSON.parse(notification.doc) as { alertConfig: { address: string } }).alertConfig.address }));
}

describe('triggerIncident on PostgreSQL ports', () => {
  it('opens one incident at the failure and resolves it at the recovery, through onFinalResult', async () => {
    const { alerting, ports } = await replica();
    const checkId = await checkWithTrigger(ports);
    expect(await alerting.onFinalResult(ACCOUNT, checkId, run(true, 0))).toEqual(['ALERT_FAILURE']);
    const opened = await alerting.openIncidentOf(ACCOUNT, checkId);
    expect(opened).toMatchObject({ name: 'Shop is down', severity: 'MAJOR', lastUpdateStatus: 'INVESTIGATING' });
    // Still failing: the open incident is the check's one.
    await alerting.onFinalResult(ACCOUNT, checkId, run(true, 1));
    expect(await alerting.onFinalResult(ACCOUNT, checkId, run(false, 2))).toEqual(['ALERT_RECOVERY']);

    const stored = await incidentsOf(ports);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.id).toBe(opened!.id);
    expect(stored[0]!.lastUpdateStatus).toBe('RESOLVED');
    expect(stored[0]!.incidentUpdates.map((update) => [update.status, update.description])).toEqual([
      ['INVESTIGATING', 'Orders fail.'],
      ['RESOLVED', "Check 'Shop API' has recovered."],
    ]);
    expect(await alerting.openIncidentOf(ACCOUNT, checkId)).toBeUndefined();
    expect(await subscriberMail(ports)).toEqual([
      { alertType: 'INCIDENT_INVESTIGATING', address: 'fan@example.com' },
      { alertType: 'INCIDENT_RESOLVED', address: 'fan@example.com' },
    ]);
  });

  it('opens and resolves it in the caller’s unit through evaluateIn, and a unit that gives up keeps neither the state nor the incident', async () => {
    const { alerting, ports } = await replica();
    const checkId = await checkWithTrigger(ports);
    const failure = new Error('the run could not be stored');
    await expect(
      ports.transaction(async (tx) => {
        expect((await alerting.evaluateIn(tx, ACCOUNT, checkId, run(true, 0))).alerts).toEqual(['ALERT_FAILURE']);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await incidentsOf(ports)).toEqual([]);
    expect(await ports.alertStates.read(ACCOUNT, checkId)).toBeUndefined();

    const failing = await ports.transaction((tx) => alerting.evaluateIn(tx, ACCOUNT, checkId, run(true, 1)));
    expect(failing).toEqual({ alerts: ['ALERT_FAILURE'], queued: true });
    expect((await incidentsOf(ports)).map((incident) => incident.lastUpdateStatus)).toEqual(['INVESTIGATING']);
    const recovering = await ports.transaction((tx) => alerting.evaluateIn(tx, ACCOUNT, checkId, run(false, 2)));
    expect(recovering).toEqual({ alerts: ['ALERT_RECOVERY'], queued: true });
    expect((await incidentsOf(ports)).map((incident) => incident.lastUpdateStatus)).toEqual(['RESOLVED']);
    expect(await alerting.openIncidentOf(ACCOUNT, checkId)).toBeUndefined();
  });
});
