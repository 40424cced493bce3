/**
 * Alerting on several replicas sharing one database: each `Alerting` evaluates in units of work of its
 * own storage ports, and the compare-and-set of the alert state makes every transition, and its
 * notifications, happen once however the evaluations of one check interleave. On SQLite the replicas
 * are two `Store`s on one file, whose units take turns on it (so none loses a compare-and-set); on
 * PostgreSQL two pools on one database, whose units race (each replica keeps a SQLite store of its
 * own only for what alerting reads synchronously: the account's profile).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openRepositories } from '../repositories.js';
import { Store } from '../store/index.js';
import type { AlertStates, StoragePorts } from '../store/ports.js';
import { openPostgresPorts } from '../store/postgres/index.js';
import { useTestPostgres } from '../store/postgres/test-database.js';
import { Alerting, type FinalResultFacts } from './index.js';

const ACCOUNT = 'acct';
const NOW = Date.UTC(2026, 10, 1);
/** Failing and recovering in runs of different lengths: every change of run is a transition that notifies. */
const PATTERN = 'FFFPPFPFFFFPPPFPFFPPFPPPFFFFPFPF';

const postgres = useTestPostgres();
let tempDir = '';
const cleanups: Array<() => Promise<void> | void> = [];
beforeAll(async () => {
  tempDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-alerting-replicas-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
});

interface Replica {
  alerting: Alerting;
  ports: StoragePorts;
  /** Transitions this replica lost to the other (it read again and evaluated again). */
  lost: { count: number };
}

/** Alert states whose transitions count the compare-and-sets lost. */
function countingStates(states: AlertStates, lost: { count: number }): AlertStates {
  return {
    read: (...args) => states.read(...args),
    queueDailySslAlerts: (...args) => states.queueDailySslAlerts(...args),
    transition: async (...args) => {
      const moved = await states.transition(...args);
      if (!moved) lost.count += 1;
      return moved;
    },
  };
}

/** Ports whose transitions, in their units too, count the compare-and-sets this replica lost. */
function counting(ports: StoragePorts, lost: { count: number }): StoragePorts {
  return {
    ...ports,
    alertStates: countingStates(ports.alertStates, lost),
    transaction: (work) => ports.transaction((tx) => work({ ...tx, alertStates: countingStates(tx.alertStates, lost) })),
  };
}

async function sqliteReplicas(): Promise<Replica[]> {
  const file = path.join(tempDir, `replicas-${cleanups.length}.db`);
  return [0, 1].map(() => {
    const store = new Store({ file });
    const repositories = openRepositories(store);
    const lost = { count: 0 };
    const ports = counting(repositories.ports, lost);
    const alerting = new Alerting({ ...repositories, ports }, { now: () => NOW, pollMs: 60_000 });
    cleanups.push(() => store.close());
    return { alerting, ports, lost };
  });
}

async function postgresReplicas(): Promise<Replica[]> {
  const connectionString = await postgres.freshDatabase();
  const replicas: Replica[] = [];
  for (let index = 0; index < 2; index++) {
    const pool = await openPostgresPorts({ connectionString });
    const lost = { count: 0 };
    const ports = counting(pool, lost);
    const alerting = new Alerting({ ports, replicaId: `replica-${index}` }, { now: () => NOW, pollMs: 60_000 });
    cleanups.push(() => pool.close());
    replicas.push({ alerting, ports, lost });
  }
  return replicas;
}

/** A check alerting on its first failure, subscribed to one webhook that takes failures and recoveries. */
async function failingAndRecoveringCheck(ports: StoragePorts): Promise<string> {
  const channel = await ports.documents.insert('alert_channels', ACCOUNT, (id) => ({ id, type: 'WEBHOOK', config: { name: 'hook', url: 'http://127.0.0.1:1/hook' }, sendRecovery: true }));
  const check = await ports.documents.insert('checks', ACCOUNT, (id) => ({ id, name: 'Shop', checkType: 'API', activated: true }));
  await ports.alertSubscriptions.replace(ACCOUNT, 'check', String(check.id), [{ alertChannelId: channel.id as number, activated: true }]);
  return String(check.id);
}

function run(index: number, failed: boolean): FinalResultFacts {
  const at = new Date(NOW + index * 1000).toISOString();
  return { id: `result-${index}`, hasFailures: failed, hasErrors: false, isDegraded: false, responseTime: 10, runLocation: 'eu-west-1', startedAt: at, stoppedAt: at };
}

describe.each([
  ['SQLite, two stores on one file', sqliteReplicas, false],
  ['PostgreSQL, two pools on one database', postgresReplicas, true],
])('alerting on %s', (_name, openReplicas, unitsRace) => {
  it('notifies every transition of a check exactly once while both replicas evaluate its results at once', async () => {
    const replicas = await openReplicas();
    // Nobody delivers: the notifications stay queued to be counted.
    for (const { alerting } of replicas) await alerting.stop();
    const checkId = await failingAndRecoveringCheck(replicas[0]!.ports);
    const evaluations = [...PATTERN].map((letter, index) => replicas[index % 2]!.alerting.onFinalResult(ACCOUNT, checkId, run(index, letter === 'F')));
    const alerts = (await Promise.all(evaluations)).flat();
    // Every evaluation was serialised after the others by its compare-and-set: the alerts the winners
    // reported are exactly the notifications queued, one per transition, failure and recovery in turn.
    const queued = await replicas[1]!.ports.outbox.claimDue('counter', NOW, 60_000, 1000);
    expect(queued.map((notification) => notification.alertType)).toEqual(alerts.map((_alert, index) => (index % 2 === 0 ? 'ALERT_FAILURE' : 'ALERT_RECOVERY')));
    expect(alerts.length).toBeGreaterThan(1);
    expect(alerts.filter((alert) => alert === 'ALERT_FAILURE')).toHaveLength(queued.filter((notification) => notification.alertType === 'ALERT_FAILURE').length);
    expect(new Set(queued.map((notification) => notification.id)).size).toBe(queued.length);
    const lost = replicas[0]!.lost.count + replicas[1]!.lost.count;
    // On PostgreSQL the race was run: some evaluations lost their compare-and-set and were evaluated
    // again. On SQLite the units of one file take turns, so none reads a version another then moves.
    if (unitsRace) expect(lost).toBeGreaterThan(0);
    else expect(lost).toBe(0);
    // The state stored last is the one the last transition left: `alerts` is in the order the
    // evaluations were asked for, the queue in the order their transitions committed.
    const state = JSON.parse((await replicas[0]!.ports.alertStates.read(ACCOUNT, checkId))!.state) as { status: string };
    expect(state.status).toBe(queued.at(-1)!.alertType === 'ALERT_FAILURE' ? 'failing' : 'passing');
  });
});
