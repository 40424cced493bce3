/** The alert-state port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import type { QueuedNotification, StoragePorts } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const NOW = Date.UTC(2026, 10, 1);

function notification(id: string, accountId = 'acc'): QueuedNotification {
  return { id, accountId, checkId: 'check-1', alertChannelId: 1, channelType: 'WEBHOOK', alertType: 'ALERT_FAILURE', doc: JSON.stringify({ id }) };
}

const state = (status: string, count = 0) => JSON.stringify({ status, count });

/** Reads and moves the state until this replica's transition wins; resolves to the notification ids it tried, the winner's last. */
async function moveOnce(ports: StoragePorts, name: string, round: number): Promise<string[]> {
  const tried: string[] = [];
  for (;;) {
    const current = await ports.alertStates.read('acc', 'check-1');
    const id = `${name}-${round}-${tried.length}`;
    tried.push(id);
    const count = current === undefined ? 1 : (JSON.parse(current.state) as { count: number }).count + 1;
    if (await ports.alertStates.transition('acc', 'check-1', current?.version ?? 0, state('failing', count), [notification(id)], NOW)) return tried;
  }
}

describe.each(engines)('alert states on $name', (engine) => {
  it('lets one of two replicas moving a check without a state at once win, and queues only the winner\'s notifications', async () => {
    const [a, b] = await twoReplicas(engine);
    const [byA, byB] = await Promise.all([
      a.alertStates.transition('acc', 'check-1', 0, state('failing'), [notification('a-1'), notification('a-2')], NOW),
      b.alertStates.transition('acc', 'check-1', 0, state('degraded'), [notification('b-1')], NOW),
    ]);
    expect([byA, byB].filter(Boolean)).toHaveLength(1);
    const [winner, loser] = byA ? [['a-1', 'a-2'], ['b-1']] : [['b-1'], ['a-1', 'a-2']];
    for (const id of winner) expect(await b.outbox.find(id)).toEqual({ delivery: 'PENDING', attempts: 0, leaseOwner: null });
    for (const id of loser) expect(await a.outbox.find(id)).toBeUndefined();
    expect(await a.alertStates.read('acc', 'check-1')).toEqual({ state: byA ? state('failing') : state('degraded'), version: 1 });
  });

  it('lets one of two replicas moving the same version at once win, after earlier transitions', async () => {
    const [a, b] = await twoReplicas(engine);
    expect(await a.alertStates.transition('acc', 'check-1', 0, state('passing'), [], NOW)).toBe(true);
    expect(await b.alertStates.transition('acc', 'check-1', 1, state('failing'), [notification('first-failure')], NOW)).toBe(true);
    const results = await Promise.all([
      a.alertStates.transition('acc', 'check-1', 2, state('passing', 1), [notification('recovery-a')], NOW + 1),
      b.alertStates.transition('acc', 'check-1', 2, state('passing', 2), [notification('recovery-b')], NOW + 1),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await a.alertStates.read('acc', 'check-1')).toEqual({ state: results[0] ? state('passing', 1) : state('passing', 2), version: 3 });
    expect((await a.outbox.claimDue('r', NOW + 1, 60_000, 10)).map((queued) => queued.id).sort()).toEqual(['first-failure', results[0] ? 'recovery-a' : 'recovery-b']);
  });

  it('serialises 20 transitions raced by two replicas: each moves the version once and queues once', async () => {
    const [a, b] = await twoReplicas(engine);
    const rounds = await Promise.all([a, b].map(async (ports, index) => {
      const attempts: string[][] = [];
      for (let round = 0; round < 10; round += 1) attempts.push(await moveOnce(ports, index === 0 ? 'a' : 'b', round));
      return attempts;
    }));
    const current = await a.alertStates.read('acc', 'check-1');
    expect(current?.version).toBe(20);
    expect(JSON.parse(current!.state)).toEqual({ status: 'failing', count: 20 });
    // The last attempt of each round won; only those 20 are queued, none of the attempts that lost.
    const winners = rounds.flat().map((attempts) => attempts.at(-1)!);
    const queued = (await b.outbox.claimDue('r', NOW, 60_000, 1000)).map((entry) => entry.id);
    expect(queued.sort()).toEqual(winners.sort());
    for (const lost of rounds.flat().flatMap((attempts) => attempts.slice(0, -1))) expect(await a.outbox.find(lost)).toBeUndefined();
  });

  it('refuses a transition from a version another replica moved on from, storing and queuing nothing', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.alertStates.transition('acc', 'check-1', 0, state('passing'), [], NOW);
    const seen = await a.alertStates.read('acc', 'check-1');
    expect(await b.alertStates.transition('acc', 'check-1', seen!.version, state('failing'), [notification('by-b')], NOW)).toBe(true);
    expect(await a.alertStates.transition('acc', 'check-1', seen!.version, state('degraded'), [notification('by-a')], NOW)).toBe(false);
    expect(await a.alertStates.transition('acc', 'check-1', 0, state('degraded'), [notification('by-a')], NOW)).toBe(false);
    expect(await a.outbox.find('by-a')).toBeUndefined();
    expect(await a.alertStates.read('acc', 'check-1')).toEqual({ state: state('failing'), version: 2 });
  });

  it('moves neither the state nor the outbox when a notification cannot be queued', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.outbox.enqueue(notification('taken'), NOW);
    await expect(b.alertStates.transition('acc', 'check-1', 0, state('failing'), [notification('fresh'), notification('taken')], NOW)).rejects.toThrow();
    expect(await a.alertStates.read('acc', 'check-1')).toBeUndefined();
    expect(await a.outbox.find('fresh')).toBeUndefined();
  });

  it('keeps the states of checks and accounts apart', async () => {
    const [a, b] = await twoReplicas(engine);
    expect(await a.alertStates.transition('acc-1', 'check-1', 0, state('failing'), [], NOW)).toBe(true);
    expect(await b.alertStates.transition('acc-2', 'check-1', 0, state('passing'), [], NOW)).toBe(true);
    expect(await b.alertStates.transition('acc-1', 'check-2', 0, state('degraded'), [], NOW)).toBe(true);
    expect(await a.alertStates.read('acc-2', 'check-1')).toEqual({ state: state('passing'), version: 1 });
    expect(await a.alertStates.read('acc-1', 'check-3')).toBeUndefined();
  });

  it.each([
    ['an empty account', ['', 'check-1', 0, state('failing'), [], NOW], 'accountId must be a string that is not empty, got ""'],
    ['an empty check', ['acc', '', 0, state('failing'), [], NOW], 'checkId must be a string that is not empty, got ""'],
    ['a negative version', ['acc', 'check-1', -1, state('failing'), [], NOW], 'expectedVersion must be a whole number of at least 0 (0: the check has no state yet), got -1'],
    ['a fractional version', ['acc', 'check-1', 1.5, state('failing'), [], NOW], 'expectedVersion must be a whole number of at least 0 (0: the check has no state yet), got 1.5'],
    ['a state that is no JSON', ['acc', 'check-1', 0, '{status', [], NOW], 'alert state must be the JSON text of an object, got "{status"'],
    ['a state that is a JSON array', ['acc', 'check-1', 0, '[]', [], NOW], 'alert state must be the JSON text of an object, got "[]"'],
    ['a fractional moment', ['acc', 'check-1', 0, state('failing'), [], NOW + 0.5], `nowMs must be a whole number of milliseconds since the epoch, got ${NOW + 0.5}`],
    ['a notification of another account', ['acc', 'check-1', 0, state('failing'), [notification('n-1', 'other')], NOW], 'notification "n-1" is of account "other", not of the transition\'s account "acc"'],
    ['a notification listed twice', ['acc', 'check-1', 0, state('failing'), [notification('n-1'), notification('n-1')], NOW], 'notification "n-1" is listed twice in one transition'],
    ['a notification without a channel', ['acc', 'check-1', 0, state('failing'), [{ ...notification('n-1'), alertChannelId: 0 }], NOW], 'alertChannelId must be a whole number of at least 1, got 0'],
  ] as const)('refuses a transition with %s, storing nothing', async (_name, args, message) => {
    const [a] = await twoReplicas(engine);
    await expect(a.alertStates.transition(args[0], args[1], args[2], args[3], args[4], args[5])).rejects.toThrow(message);
    expect(await a.alertStates.read('acc', 'check-1')).toBeUndefined();
  });

  it('queues a certificate alert once a day per check and channel, whichever of two replicas asks', async () => {
    const [a, b] = await twoReplicas(engine);
    const ssl = (id: string, alertChannelId: number, checkId = 'check-1'): QueuedNotification => ({ ...notification(id), checkId, alertChannelId, alertType: 'ALERT_SSL' });
    const [byA, byB] = await Promise.all([
      a.alertStates.queueDailySslAlerts('acc', 'check-1', 100, [ssl('a-1', 1), ssl('a-2', 2)], NOW),
      b.alertStates.queueDailySslAlerts('acc', 'check-1', 100, [ssl('b-1', 1), ssl('b-2', 2)], NOW),
    ]);
    expect([...byA, ...byB].map((id) => id.slice(2)).sort()).toEqual(['1', '2']);
    for (const id of [...byA, ...byB]) expect((await a.outbox.find(id))?.delivery).toBe('PENDING');
    for (const id of ['a-1', 'a-2', 'b-1', 'b-2'].filter((id) => ![...byA, ...byB].includes(id))) expect(await b.outbox.find(id)).toBeUndefined();
    // Another channel, or another check, that day is its own claim; an earlier day than one claimed is not due.
    expect(await b.alertStates.queueDailySslAlerts('acc', 'check-1', 100, [ssl('c-1', 1), ssl('c-3', 3)], NOW)).toEqual(['c-3']);
    expect(await b.alertStates.queueDailySslAlerts('acc', 'check-2', 100, [ssl('d-1', 1, 'check-2')], NOW)).toEqual(['d-1']);
    expect(await a.alertStates.queueDailySslAlerts('acc', 'check-1', 99, [ssl('e-1', 1)], NOW)).toEqual([]);
    expect(await a.alertStates.queueDailySslAlerts('acc', 'check-1', 101, [ssl('f-2', 2), ssl('f-1', 1)], NOW)).toEqual(['f-2', 'f-1']);
  });

  it.each([
    ['a negative day', ['acc', 'check-1', -1, [], NOW], 'day must be a whole number of UTC days since the epoch, got -1'],
    ['a fractional day', ['acc', 'check-1', 1.5, [], NOW], 'day must be a whole number of UTC days since the epoch, got 1.5'],
    ['an empty check', ['acc', '', 1, [], NOW], 'checkId must be a string that is not empty, got ""'],
    ['a notification of another check', ['acc', 'check-2', 1, [notification('n-1')], NOW], 'notification "n-1" is of check "check-1" of account "acc", not of the claim\'s check "check-2" of account "acc"'],
    ['a channel listed twice', ['acc', 'check-1', 1, [notification('n-1'), notification('n-2')], NOW], 'channel 1 is listed twice in one day\'s claim'],
    ['a fractional moment', ['acc', 'check-1', 1, [], NOW + 0.5], `nowMs must be a whole number of milliseconds since the epoch, got ${NOW + 0.5}`],
  ] as const)('refuses a certificate claim with %s, queuing nothing', async (_name, args, message) => {
    const [a] = await twoReplicas(engine);
    await expect(a.alertStates.queueDailySslAlerts(args[0], args[1], args[2], args[3], args[4])).rejects.toThrow(message);
    expect(await a.outbox.find('n-1')).toBeUndefined();
  });

  it('refuses a read without an account', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.alertStates.read('', 'check-1')).rejects.toThrow('accountId must be a string that is not empty, got ""');
  });
});

describe.each(engines)('alert states in a unit of work on $name', (engine) => {
  const ssl = (id: string): QueuedNotification => ({ ...notification(id), alertType: 'ALERT_SSL' });

  it('rolls a transition and its queued notifications, and a certificate claim, back with the unit', async () => {
    const [a, b] = await twoReplicas(engine);
    const failure = new Error('the unit gave up after evaluating');
    await expect(
      a.transaction(async (tx) => {
        expect(await tx.alertStates.transition('acc', 'check-1', 0, state('failing'), [notification('in-unit')], NOW)).toBe(true);
        expect(await tx.alertStates.queueDailySslAlerts('acc', 'check-1', 100, [ssl('ssl-in-unit')], NOW)).toEqual(['ssl-in-unit']);
        expect(await tx.alertStates.read('acc', 'check-1')).toEqual({ state: state('failing'), version: 1 });
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await b.alertStates.read('acc', 'check-1')).toBeUndefined();
    expect(await b.outbox.find('in-unit')).toBeUndefined();
    expect(await b.outbox.find('ssl-in-unit')).toBeUndefined();
    // The day's claim went with the unit: the next claim of that day is queued.
    expect(await b.alertStates.queueDailySslAlerts('acc', 'check-1', 100, [ssl('ssl-after')], NOW)).toEqual(['ssl-after']);
  });

  it('keeps a transition and its notifications that the unit committed, shown to another replica only then', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.transaction(async (tx) => {
      expect(await tx.alertStates.transition('acc', 'check-1', 0, state('failing'), [notification('committed')], NOW)).toBe(true);
      expect(await b.outbox.find('committed')).toBeUndefined();
    });
    expect(await b.alertStates.read('acc', 'check-1')).toEqual({ state: state('failing'), version: 1 });
    expect((await b.outbox.find('committed'))?.delivery).toBe('PENDING');
  });

  it('answers a lost compare-and-set with false and no error, and lets the unit read the winner\'s version and move on from it', async () => {
    const [a, b] = await twoReplicas(engine);
    const stale = await a.alertStates.read('acc', 'check-1');
    expect(await b.alertStates.transition('acc', 'check-1', 0, state('failing', 1), [notification('by-b')], NOW)).toBe(true);
    await a.transaction(async (tx) => {
      expect(await tx.alertStates.transition('acc', 'check-1', stale?.version ?? 0, state('failing', 1), [notification('lost')], NOW)).toBe(false);
      const current = await tx.alertStates.read('acc', 'check-1');
      expect(current).toEqual({ state: state('failing', 1), version: 1 });
      expect(await tx.alertStates.transition('acc', 'check-1', current!.version, state('failing', 2), [notification('won')], NOW)).toBe(true);
    });
    expect(await b.alertStates.read('acc', 'check-1')).toEqual({ state: state('failing', 2), version: 2 });
    expect(await b.outbox.find('lost')).toBeUndefined();
    expect((await b.outbox.find('won'))?.delivery).toBe('PENDING');
  });

  it('leaves the unit usable after a transition it refused, and commits what the unit wrote besides', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.outbox.enqueue(notification('taken'), NOW);
    await a.transaction(async (tx) => {
      await expect(tx.alertStates.transition('acc', 'check-1', 0, state('failing'), [notification('fresh'), notification('taken')], NOW)).rejects.toThrow();
      expect(await tx.alertStates.transition('acc', 'check-1', 0, state('failing'), [notification('fresh')], NOW)).toBe(true);
    });
    expect(await b.alertStates.read('acc', 'check-1')).toEqual({ state: state('failing'), version: 1 });
    expect((await b.outbox.find('fresh'))?.delivery).toBe('PENDING');
  });

  it('undoes only what a savepoint wrote when it throws, rejects with the same error, and commits the rest of the unit', async () => {
    const [a, b] = await twoReplicas(engine);
    const failure = new Error('the evaluation broke');
    await a.transaction(async (tx) => {
      expect(await tx.alertStates.transition('acc', 'check-1', 0, state('passing'), [], NOW)).toBe(true);
      await expect(
        tx.savepoint(async () => {
          expect(await tx.alertStates.transition('acc', 'check-1', 1, state('failing'), [notification('undone')], NOW)).toBe(true);
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await tx.alertStates.read('acc', 'check-1')).toEqual({ state: state('passing'), version: 1 });
      expect(await tx.savepoint(async () => tx.alertStates.transition('acc', 'check-1', 1, state('degraded'), [notification('kept')], NOW))).toBe(true);
    });
    expect(await b.alertStates.read('acc', 'check-1')).toEqual({ state: state('degraded'), version: 2 });
    expect(await b.outbox.find('undone')).toBeUndefined();
    expect((await b.outbox.find('kept'))?.delivery).toBe('PENDING');
  });
});
