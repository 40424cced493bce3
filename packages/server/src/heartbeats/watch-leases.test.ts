/**
 * A watch killed between the claim of a missed window and its confirm: the window is failed by
 * another watch once the lease ran out, and exactly once (one failing result, one notification),
 * whether the kill came before or after the failing result was stored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Alerting } from '../alerting/index.js';
import { NotificationLog } from '../alerting/notifications.js';
import { openRepositories, type Repositories } from '../repositories.js';
import { allResultsOf } from '../result-test-support.js';
import { Store } from '../store/index.js';
import { CLAIM_LEASE_MS, HeartbeatWatch } from './watch.js';
import { withReportedMissed } from './port-overrides.js';

const CREATED = Date.UTC(2026, 10, 1, 8);
/** Period 5 minutes, grace 10 seconds: no later window closes within a lease, so each test sees one. */
const DUE = CREATED + 310_000;
const MESSAGE = 'No ping received within 5 minutes (period) + 10 seconds (grace)';
/**
 * The watches' refresh: between two refreshes a watch asks the port only at deadlines it knows of, so
 * a window another watch's lease held is claimed at the first refresh after the lease ran out.
 */
const REFRESH_MS = 5_000;
/** When a surviving watch has asked the port after the killed one's lease ran out. */
const TAKEN_OVER = DUE + CLAIM_LEASE_MS + REFRESH_MS;

const dirs: string[] = [];
const stores: Store[] = [];
const alertings: Alerting[] = [];
afterEach(async () => {
  await Promise.all(alertings.splice(0).map((alerting) => alerting.stop()));
  stores.splice(0).forEach((store) => store.close());
  dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});

/** One database file with a heartbeat subscribed to a webhook, and a way to open replicas (processes) on it. */
function sharedDatabase() {
  const dir = mkdtempSync(path.join(tmpdir(), 'vigil-heartbeat-leases-'));
  dirs.push(dir);
  const file = path.join(dir, 'vigil.db');
  const setup = new Store({ file });
  stores.push(setup);
  const hook = setup.alertChannels.insert('acme', (id) => ({ id, type: 'WEBHOOK', config: { name: 'hook', url: 'http://127.0.0.1:1/hook' } }));
  const check = setup.checks.insert('acme', (id) => ({
    id,
    name: 'nightly backup',
    checkType: 'HEARTBEAT',
    activated: true,
    useGlobalAlertSettings: true,
    heartbeat: { period: 5, periodUnit: 'minutes', grace: 10, graceUnit: 'seconds', pingToken: 'token' },
    created_at: new Date(CREATED).toISOString(),
  }));
  setup.subscriptions.set('acme', 'check', check.id, [{ alertChannelId: hook.id as number, activated: true }]);
  const sent: string[] = [];
  /** What the replicas' outboxes logged (a failing claim, a refused late outcome). */
  const logged: string[] = [];
  const replica = (change: (repositories: Repositories) => Repositories = (same) => same) => {
    const store = new Store({ file });
    stores.push(store);
    const repositories = change(openRepositories(store));
    const alerting = new Alerting(repositories, {
      now: () => DUE,
      send: async (_type, _config, context) => (sent.push(`${context.alertType} ${context.checkResultId}`), { kind: 'sent', result: '200 ok' }),
      log: (line) => logged.push(line),
    });
    alertings.push(alerting);
    return { repositories, alerting, watch: new HeartbeatWatch({ repositories, alerting, refreshMs: REFRESH_MS }) };
  };
  return { checkId: String(check.id), sent, logged, replica, setup: openRepositories(setup) };
}

/** The port as a process sees it that is killed the moment it would confirm a window. */
function killedAtConfirm(repositories: Repositories): Repositories {
  return withReportedMissed(repositories, () => Promise.reject(new Error('killed before the confirm')));
}

describe('a missed window whose watch was killed before the confirm', () => {
  it('is failed by another watch once the lease ran out, when the kill came before the failing result', async () => {
    const { checkId, sent, replica, setup } = sharedDatabase();
    const survivor = replica();
    expect(await survivor.watch.tick(DUE - 1)).toBe(0);
    // The killed process got as far as its claim.
    const killed = replica();
    expect(await killed.repositories.ports.heartbeatDeadlines.claimMissed(DUE, 500, killed.repositories.replicaId, CLAIM_LEASE_MS)).toHaveLength(1);

    expect(await survivor.watch.tick(DUE)).toBe(0);
    expect(await survivor.watch.tick(DUE + CLAIM_LEASE_MS - 1)).toBe(0);
    expect(await survivor.watch.tick(TAKEN_OVER)).toBe(1);
    expect(await survivor.watch.tick(TAKEN_OVER + REFRESH_MS)).toBe(0);

    const results = (await allResultsOf(setup.ports.checkResults, 'acme', checkId));
    expect(results.map((result) => [result.hasFailures, result.error, result.startedAt])).toEqual([[true, MESSAGE, new Date(DUE).toISOString()]]);
    await survivor.alerting.idle();
    expect(sent).toEqual([`ALERT_FAILURE ${results[0]!.id}`]);
    expect(await setup.ports.heartbeatDeadlines.reported('acme', checkId)).toEqual({ dueMs: DUE, owner: survivor.repositories.replicaId, leaseUntilMs: null });
  });

  it('is confirmed by another watch without a second result or notification, when the kill came after the failing result', async () => {
    const { checkId, sent, replica, setup } = sharedDatabase();
    const killed = replica(killedAtConfirm);
    expect(await killed.watch.tick(DUE - 1)).toBe(0);
    await expect(killed.watch.tick(DUE)).rejects.toThrow('killed before the confirm');
    const stored = (await allResultsOf(setup.ports.checkResults, 'acme', checkId));
    expect(stored.map((result) => [result.hasFailures, result.error])).toEqual([[true, MESSAGE]]);
    await killed.alerting.idle();
    expect(sent).toEqual([`ALERT_FAILURE ${stored[0]!.id}`]);

    const survivor = replica();
    expect(await survivor.watch.tick(DUE + CLAIM_LEASE_MS - 1)).toBe(0);
    expect(await setup.ports.heartbeatDeadlines.reported('acme', checkId)).toEqual({ dueMs: DUE, owner: killed.repositories.replicaId, leaseUntilMs: DUE + CLAIM_LEASE_MS });
    // Handed out again and confirmed; the result it would store is the one already there.
    expect(await survivor.watch.tick(TAKEN_OVER)).toBe(0);
    expect(await setup.ports.heartbeatDeadlines.reported('acme', checkId)).toEqual({ dueMs: DUE, owner: survivor.repositories.replicaId, leaseUntilMs: null });
    expect((await allResultsOf(setup.ports.checkResults, 'acme', checkId)).map((result) => result.id)).toEqual([stored[0]!.id]);
    await survivor.alerting.idle();
    expect(sent).toEqual([`ALERT_FAILURE ${stored[0]!.id}`]);
    expect((await new NotificationLog(setup.ports.outbox).list('acme', { fromMs: 0, toMs: DUE + 86_400_000 }, { page: 1, limit: 10 })).items.map((item) => item.alertType)).toEqual(['ALERT_FAILURE']);
  });

  it('joins the history without failing the status or alerting again when a ping came while the lease ran', async () => {
    const { checkId, sent, replica, setup } = sharedDatabase();
    const survivor = replica();
    expect(await survivor.watch.tick(DUE - 1)).toBe(0);
    const killed = replica();
    expect(await killed.repositories.ports.heartbeatDeadlines.claimMissed(DUE, 500, killed.repositories.replicaId, CLAIM_LEASE_MS)).toHaveLength(1);
    // A passing result from a ping answered after the deadline, while the window waited on the lease.
    const pingAt = new Date(DUE + 1_000).toISOString();
    await setup.ports.checkStatuses.record('acme', { name: 'nightly backup', checkId, hasFailures: false, hasErrors: false, isDegraded: false, responseTime: 0, runLocation: 'local', checkRunId: 1, stoppedAt: pingAt });

    expect(await survivor.watch.tick(TAKEN_OVER)).toBe(1);
    expect((await allResultsOf(setup.ports.checkResults, 'acme', checkId)).map((result) => [result.hasFailures, result.startedAt])).toEqual([[true, new Date(DUE).toISOString()]]);
    expect(await setup.ports.checkStatuses.find('acme', checkId)).toMatchObject({ hasFailures: false, updated_at: pingAt });
    await survivor.alerting.idle();
    expect(sent).toEqual([]);
    expect((await setup.ports.heartbeatDeadlines.reported('acme', checkId))?.leaseUntilMs).toBeNull();
  });
});

describe('a missed window\'s alert', () => {
  it('is evaluated in the unit that stores the failing result (a watch killed after it cannot leave it unevaluated), before the window is confirmed', async () => {
    const { checkId, sent, logged, replica, setup } = sharedDatabase();
    const { repositories, alerting } = replica();
    const seen: Array<{ inUnit: number; byAnotherProcess: number }> = [];
    const watch = new HeartbeatWatch({
      repositories,
      refreshMs: REFRESH_MS,
      alerting: {
        evaluateIn: async (tx, accountId, id, facts, parallel) => {
          // The unit sees the result it stored; another connection to the file does not yet.
          seen.push({ inUnit: (await tx.checkResults.newestFirst(accountId, id, { limit: 10 })).length, byAnotherProcess: (await allResultsOf(setup.ports.checkResults, 'acme', checkId)).length });
          return alerting.evaluateIn(tx, accountId, id, facts, parallel);
        },
        notify: (evaluation) => alerting.notify(evaluation),
      },
    });
    expect(await watch.tick(DUE - 1)).toBe(0);
    expect(await watch.tick(DUE)).toBe(1);
    expect(seen).toEqual([{ inUnit: 1, byAnotherProcess: 0 }]);
    const results = (await allResultsOf(setup.ports.checkResults, 'acme', checkId));
    expect(results).toHaveLength(1);
    await alerting.idle();
    expect(sent).toEqual([`ALERT_FAILURE ${results[0]!.id}`]);
    // The outbox, told of the notification inside that transaction, claims it after: not as a savepoint of it.
    expect(logged).toEqual([]);
  });

  it('that fails is undone alone: the failing result stays stored and the failure is thrown after the commit', async () => {
    const { checkId, replica, setup } = sharedDatabase();
    const { repositories } = replica();
    const watch = new HeartbeatWatch({
      repositories,
      refreshMs: REFRESH_MS,
      alerting: {
        evaluateIn: async () => {
          throw new Error('alerting broke');
        },
        notify: () => undefined,
      },
    });
    expect(await watch.tick(DUE - 1)).toBe(0);
    await expect(watch.tick(DUE)).rejects.toThrow('alerting broke');
    expect((await allResultsOf(setup.ports.checkResults, 'acme', checkId)).map((result) => result.hasFailures)).toEqual([true]);
  });

  it('is part of the unit that stores the result: a failure after the evaluation, before the commit, leaves neither result nor alert state nor notification, and the window is failed and alerted once when handed out again', async () => {
    const { checkId, sent, replica, setup } = sharedDatabase();
    /** A process killed between its unit's last statement and its commit. */
    const killedBeforeCommit = (repositories: Repositories): Repositories => ({
      ...repositories,
      ports: {
        ...repositories.ports,
        transaction: (work) =>
          repositories.ports.transaction(async (tx) => {
            await work(tx);
            throw new Error('killed before the commit');
          }),
      },
    });
    const killed = replica(killedBeforeCommit);
    expect(await killed.watch.tick(DUE - 1)).toBe(0);
    await expect(killed.watch.tick(DUE)).rejects.toThrow('killed before the commit');
    await killed.alerting.idle();
    expect((await allResultsOf(setup.ports.checkResults, 'acme', checkId))).toEqual([]);
    expect(await setup.ports.alertStates.read('acme', checkId)).toBeUndefined();
    expect(setup.store.db.prepare('SELECT COUNT(*) FROM alert_notifications').pluck().get()).toBe(0);
    expect(sent).toEqual([]);

    const survivor = replica();
    expect(await survivor.watch.tick(TAKEN_OVER)).toBe(1);
    const results = (await allResultsOf(setup.ports.checkResults, 'acme', checkId));
    expect(results.map((result) => [result.hasFailures, result.error])).toEqual([[true, MESSAGE]]);
    expect(await setup.ports.alertStates.read('acme', checkId)).toBeDefined();
    await survivor.alerting.idle();
    expect(sent).toEqual([`ALERT_FAILURE ${results[0]!.id}`]);
  });
});
