/**
 * Pings turned into results by watches sharing one database (two `Store`s on one SQLite file stand
 * for two processes): each ping becomes one result and one alert evaluation, in its check's order,
 * whichever watch claims it, and a watch killed before its confirm leaves its pings to the other.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { Alerting } from '../alerting/index.js';
import { openRepositories, type Repositories } from '../repositories.js';
import { allResultsOf } from '../result-test-support.js';
import { Store } from '../store/index.js';
import { recordPing, type PingInput, type RecordedPing } from './pings.js';
import { withPingsProcessed } from './port-overrides.js';
import { CLAIM_LEASE_MS, HeartbeatWatch } from './watch.js';

/** Period 1 hour: no deadline closes while a test runs, so every result is a ping's. */
const CREATED = Date.now();
const CHECKS = 4;

const dirs: string[] = [];
const stores: Store[] = [];
const alertings: Alerting[] = [];
afterEach(async () => {
  await Promise.all(alertings.splice(0).map((alerting) => alerting.stop()));
  stores.splice(0).forEach((store) => store.close());
  dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});

/** One database file with CHECKS heartbeats subscribed to a webhook, and replicas (processes) on it. */
/** A ping as the route records it: in a unit of its own; every ping here has a known token. */
async function pingAs(repositories: Repositories, input: PingInput): Promise<RecordedPing> {
  const recorded = await repositories.ports.transaction((tx) => recordPing(tx, input));
  if (!recorded) throw new Error(`no heartbeat monitor has the token ${input.token}`);
  return recorded;
}

function sharedDatabase() {
  const dir = mkdtempSync(path.join(tmpdir(), 'vigil-heartbeat-pings-'));
  dirs.push(dir);
  const file = path.join(dir, 'vigil.db');
  const open = () => {
    const store = new Store({ file });
    stores.push(store);
    return openRepositories(store);
  };
  const setup = open();
  const hook = setup.store.alertChannels.insert('acme', (id) => ({ id, type: 'WEBHOOK', config: { name: 'hook', url: 'http://127.0.0.1:1/hook' } }));
  const tokens = Array.from({ length: CHECKS }, (_, index) => {
    const check = setup.store.checks.insert('acme', (id) => ({
      id,
      name: `job ${index}`,
      checkType: 'HEARTBEAT',
      activated: true,
      useGlobalAlertSettings: true,
      heartbeat: { period: 1, periodUnit: 'hours', grace: 0, graceUnit: 'seconds', pingToken: `token-${index}` },
      created_at: new Date(CREATED).toISOString(),
    }));
    setup.store.subscriptions.set('acme', 'check', check.id, [{ alertChannelId: hook.id as number, activated: true }]);
    return `token-${index}`;
  });
  const sent: string[] = [];
  /** Every alert evaluation of every replica, in the order they ran: `checkId result-id`. */
  const evaluated: string[] = [];
  const replica = (change: (repositories: Repositories) => Repositories = (same) => same) => {
    const repositories = change(open());
    const alerting = new Alerting(repositories, {
      send: async (_type, _config, context) => (sent.push(`${context.alertType} ${context.checkResultId}`), { kind: 'sent', result: '200 ok' }),
    });
    alertings.push(alerting);
    const counted: Pick<Alerting, 'evaluateIn' | 'notify'> = {
      evaluateIn: (...args: Parameters<Alerting['evaluateIn']>) => {
        evaluated.push(`${args[2]} ${args[3].id}`);
        return alerting.evaluateIn(...args);
      },
      notify: (evaluation) => alerting.notify(evaluation),
    };
    return { repositories, alerting, watch: new HeartbeatWatch({ repositories, alerting: counted }) };
  };
  return { setup, tokens, sent, evaluated, replica };
}

describe('pings turned into results by two watches on one database', () => {
  it('make each of 240 pings, arriving while both tick, one result and one alert evaluation, in its check\'s order', async () => {
    const { setup, tokens, sent, evaluated, replica } = sharedDatabase();
    // Each confirm comes a few turns after the results are stored, as from a busy process: the other
    // watch claims meanwhile, and finds the checks held until then.
    const slowConfirms = (repositories: Repositories) => {
      const real = repositories.ports.heartbeatPings;
      return withPingsProcessed(repositories, async (pings, owner) => {
        for (let turn = 0; turn < 3; turn += 1) await nextTurn();
        return real.processed(pings, owner);
      });
    };
    const watches = [replica(slowConfirms), replica(slowConfirms)];
    // The route's process: pings stored one per turn, while both watches tick turn after turn.
    const pinged: Array<{ checkId: string; id: string; failed: boolean }> = [];
    let pinging = true;
    const ticking = watches.map(async ({ watch }) => {
      while (pinging) {
        await watch.tick(Date.now());
        await nextTurn();
      }
    });
    for (let index = 0; index < 240; index += 1) {
      // Each check fails on every third of its pings: failures and recoveries, whose order matters.
      const failed = Math.floor(index / CHECKS) % 3 === 1;
      const recorded = await pingAs(setup, { token: tokens[index % CHECKS]!, failed, source: 'job', userAgent: 'test', atMs: CREATED + 1 + index });
      pinged.push({ checkId: String((await setup.ports.heartbeatPings.monitorOfToken(tokens[index % CHECKS]!))!.check.id), id: recorded.event.id, failed });
      await nextTurn();
    }
    pinging = false;
    await Promise.all(ticking);
    // The pings of the last turns, which a watch may have claimed after its loop's last tick.
    for (const { watch } of watches) await watch.tick(Date.now());

    const checkIds = [...new Set(pinged.map((ping) => ping.checkId))];
    for (const checkId of checkIds) {
      const ofCheck = pinged.filter((ping) => ping.checkId === checkId);
      expect((await allResultsOf(setup.ports.checkResults, 'acme', checkId)).map((result) => result.id).sort()).toEqual(ofCheck.map((ping) => ping.id).sort());
      // Evaluated once each, in the order the check was pinged.
      expect(evaluated.filter((line) => line.startsWith(`${checkId} `))).toEqual(ofCheck.map((ping) => `${checkId} ${ping.id}`));
    }
    expect(evaluated).toHaveLength(240);
    for (const ping of pinged) expect(await setup.ports.heartbeatPings.progress('acme', ping.id)).toMatchObject({ processed: true, leaseUntilMs: null });

    // One failure alert and one recovery per run of failing pings of each check, as in one process.
    await Promise.all(watches.map(({ alerting }) => alerting.idle()));
    const expected = checkIds.flatMap((checkId) => {
      const alerts: string[] = [];
      let failing = false;
      for (const ping of pinged.filter((candidate) => candidate.checkId === checkId)) {
        if (ping.failed !== failing) alerts.push(`${ping.failed ? 'ALERT_FAILURE' : 'ALERT_RECOVERY'} ${ping.id}`);
        failing = ping.failed;
      }
      return alerts;
    });
    expect(sent.sort()).toEqual(expected.sort());
  });

  it('process a ping stored while no watch ran, after the database\'s first start, when one starts again', async () => {
    const { setup, tokens, evaluated, replica } = sharedDatabase();
    const before = await pingAs(setup, { token: tokens[0]!, failed: false, source: 'job', userAgent: 'test', atMs: CREATED + 1 });
    const first = replica();
    expect(await first.watch.tick(CREATED + 2)).toBe(0);
    // Stopped; a ping comes; another process starts.
    const whileOff = await pingAs(setup, { token: tokens[0]!, failed: false, source: 'job', userAgent: 'test', atMs: CREATED + 3 });
    const second = replica();
    expect(await second.watch.tick(CREATED + 4)).toBe(1);
    expect(evaluated.map((line) => line.split(' ')[1])).toEqual([whileOff.event.id]);
  });

  it('leave the pings of a watch killed before its confirm to the other once the lease ran out, without a second result or evaluation', async () => {
    const { setup, tokens, evaluated, replica } = sharedDatabase();
    const killed = replica((repositories) => withPingsProcessed(repositories, () => Promise.reject(new Error('killed before the confirm'))));
    const survivor = replica();
    const pings: string[] = [];
    for (const failed of [false, true]) {
      const recorded = await pingAs(setup, { token: tokens[0]!, failed, source: 'job', userAgent: 'test', atMs: CREATED + 1 + pings.length });
      pings.push(recorded.event.id);
    }
    await expect(killed.watch.tick(CREATED + 10)).rejects.toThrow('killed before the confirm');
    const checkId = String((await setup.ports.heartbeatPings.monitorOfToken(tokens[0]!))!.check.id);
    expect((await allResultsOf(setup.ports.checkResults, 'acme', checkId)).map((result) => result.id).sort()).toEqual([...pings].sort());
    // Held while the lease runs: a newer ping of the same check waits behind them.
    const newer = await pingAs(setup, { token: tokens[0]!, failed: false, source: 'job', userAgent: 'test', atMs: CREATED + 5 });
    expect(await survivor.watch.tick(CREATED + 10 + CLAIM_LEASE_MS - 1)).toBe(0);
    expect(await survivor.watch.tick(CREATED + 10 + CLAIM_LEASE_MS)).toBe(1);
    expect(evaluated.map((line) => line.split(' ')[1])).toEqual([...pings, newer.event.id]);
    expect((await allResultsOf(setup.ports.checkResults, 'acme', checkId)).map((result) => result.id).sort()).toEqual([...pings, newer.event.id].sort());
    for (const id of [...pings, newer.event.id]) expect(await setup.ports.heartbeatPings.progress('acme', id)).toEqual({ processed: true, owner: survivor.repositories.replicaId, leaseUntilMs: null });
  });
});
