/** The agent-lease port, the same assertions on every engine (see engines.ts), with replicas sharing the runs. */
import { RUN_WIRE_VERSION, type RunJob } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import type { QueuedEvent } from '../agent-ports.js';
import type { StoragePorts } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const LEASE_MS = 3000;

function job(checkId: string, dueMs: number, location = 'eu-west-1'): RunJob {
  return {
    wireVersion: RUN_WIRE_VERSION,
    key: `${checkId}@${dueMs}@${location}`,
    accountId: 'acct',
    checkId,
    location,
    dueMs,
    check: { checkType: 'API', name: checkId },
    group: null,
  };
}

/** Looks again every 10 ms until `found` holds; the limit is generous (a loaded machine is slow, only a broken build waits it out). */
async function until(what: string, found: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!found()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What `onQueued` tells a replica, collected, and the subscription's end. */
function heardOn(replica: StoragePorts): { events: QueuedEvent[]; stop: () => void } {
  const events: QueuedEvent[] = [];
  return { events, stop: replica.agentLeases.onQueued((event) => events.push(event)) };
}

const toldOf = (events: readonly QueuedEvent[], queue: string) => events.some((event) => event.kind === 'queued' && event.queue === queue);
const listening = (events: readonly QueuedEvent[]) => events.some((event) => event.kind === 'listening');

describe.each(engines)('agent leases on $name', (engine) => {
  it('hands a queued run to one agent of its location at a time, oldest slot first', async () => {
    const leases = (await twoReplicas(engine))[0].agentLeases;
    expect((await leases.enqueue(job('b', 2000), 'eu-west-1', 2000)).queued).toBe(true);
    expect((await leases.enqueue(job('a', 1000), 'eu-west-1', 2000)).queued).toBe(true);
    expect((await leases.enqueue(job('c', 1000, 'us-east-1'), 'us-east-1', 2000)).queued).toBe(true);
    const first = await leases.claim('eu-west-1', 'agent-1', 1, 2100, LEASE_MS);
    expect(first.map((run) => run.job.key)).toEqual(['a@1000@eu-west-1']);
    expect(first[0]!.leaseExpiresMs).toBe(2100 + LEASE_MS);
    const second = await leases.claim('eu-west-1', 'agent-2', 5, 2100, LEASE_MS);
    expect(second.map((run) => run.job.key)).toEqual(['b@2000@eu-west-1']);
    expect(await leases.claim('eu-west-1', 'agent-3', 5, 2100, LEASE_MS)).toEqual([]);
  });

  it('queues a slot once', async () => {
    const leases = (await twoReplicas(engine))[0].agentLeases;
    expect((await leases.enqueue(job('a', 1000), 'eu-west-1', 1000)).queued).toBe(true);
    expect((await leases.enqueue(job('a', 1000), 'eu-west-1', 1000)).queued).toBe(false);
  });

  it('hands a run again once its lease expired, under a new lease id', async () => {
    const leases = (await twoReplicas(engine))[0].agentLeases;
    await leases.enqueue(job('a', 1000), 'eu-west-1', 1000);
    const [lost] = await leases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    expect(await leases.claim('eu-west-1', 'agent-2', 1, 1000 + LEASE_MS - 1, LEASE_MS)).toEqual([]);
    const [again] = await leases.claim('eu-west-1', 'agent-2', 1, 1000 + LEASE_MS, LEASE_MS);
    expect(again!.job.key).toBe('a@1000@eu-west-1');
    expect(again!.leaseId).not.toBe(lost!.leaseId);
  });

  it('keeps a renewed lease and refuses to renew a lease handed to another agent', async () => {
    const leases = (await twoReplicas(engine))[0].agentLeases;
    await leases.enqueue(job('a', 1000), 'eu-west-1', 1000);
    const [held] = await leases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    expect(await leases.renew('agent-1', [held!.leaseId], 3000, LEASE_MS)).toEqual([held!.leaseId]);
    expect(await leases.claim('eu-west-1', 'agent-2', 1, 1000 + LEASE_MS, LEASE_MS)).toEqual([]);
    expect(await leases.renew('agent-2', [held!.leaseId], 3000, LEASE_MS)).toEqual([]);
    const [taken] = await leases.claim('eu-west-1', 'agent-2', 1, 3000 + LEASE_MS, LEASE_MS);
    expect(taken!.job.key).toBe('a@1000@eu-west-1');
    expect(await leases.renew('agent-1', [held!.leaseId], 3000 + LEASE_MS, LEASE_MS)).toEqual([]);
  });

  it('records a report once: a second report under the same lease is refused', async () => {
    const leases = (await twoReplicas(engine))[0].agentLeases;
    await leases.enqueue(job('a', 1000), 'eu-west-1', 1000);
    const [held] = await leases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    expect(await leases.complete(held!.leaseId, 'a@1000@eu-west-1', 1500)).toMatchObject({ kind: 'completed', agentId: 'agent-1', job: { key: 'a@1000@eu-west-1' } });
    expect(await leases.complete(held!.leaseId, 'a@1000@eu-west-1', 1600)).toEqual({ kind: 'already-finished', key: 'a@1000@eu-west-1', outcome: 'reported' });
    expect(await leases.claim('eu-west-1', 'agent-2', 1, 1000 + LEASE_MS, LEASE_MS)).toEqual([]);
  });

  it('refuses the report of an agent whose expired lease was handed to another, and records the new holder\'s', async () => {
    const leases = (await twoReplicas(engine))[0].agentLeases;
    await leases.enqueue(job('a', 1000), 'eu-west-1', 1000);
    const [stale] = await leases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    const [current] = await leases.claim('eu-west-1', 'agent-2', 1, 1000 + LEASE_MS, LEASE_MS);
    expect(await leases.complete(stale!.leaseId, 'a@1000@eu-west-1', 5000)).toEqual({ kind: 'unknown-lease' });
    expect(await leases.complete(current!.leaseId, 'a@1000@eu-west-1', 5000)).toMatchObject({ kind: 'completed', agentId: 'agent-2' });
  });

  it('accepts the report of an expired lease nobody else took', async () => {
    const leases = (await twoReplicas(engine))[0].agentLeases;
    await leases.enqueue(job('a', 1000), 'eu-west-1', 1000);
    const [late] = await leases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    expect(await leases.complete(late!.leaseId, 'a@1000@eu-west-1', 1000 + 10 * LEASE_MS)).toMatchObject({ kind: 'completed' });
  });

  it('refuses a report whose key is not the leased run', async () => {
    const leases = (await twoReplicas(engine))[0].agentLeases;
    await leases.enqueue(job('a', 1000), 'eu-west-1', 1000);
    const [held] = await leases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    expect(await leases.complete(held!.leaseId, 'b@1000@eu-west-1', 1500)).toEqual({ kind: 'other-run', key: 'a@1000@eu-west-1' });
  });

  it('replaces an older slot no agent started by the newer one of the same check and location', async () => {
    const leases = (await twoReplicas(engine))[0].agentLeases;
    await leases.enqueue(job('a', 1000), 'eu-west-1', 1000);
    await leases.enqueue(job('a', 2000), 'eu-west-1', 2000);
    expect((await leases.claim('eu-west-1', 'agent-1', 5, 2000, LEASE_MS)).map((run) => run.job.key)).toEqual(['a@2000@eu-west-1']);
  });

  it('keeps an older slot an agent started, so a peer runs it once its lease expires', async () => {
    const leases = (await twoReplicas(engine))[0].agentLeases;
    await leases.enqueue(job('a', 1000), 'eu-west-1', 1000);
    await leases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    await leases.enqueue(job('a', 20_000), 'eu-west-1', 20_000);
    expect((await leases.claim('eu-west-1', 'agent-2', 5, 20_000, LEASE_MS)).map((run) => run.job.key)).toEqual(['a@1000@eu-west-1', 'a@20000@eu-west-1']);
  });

  it('lists waiting runs of a location, gives them up as not executed, and refuses a report after that', async () => {
    const leases = (await twoReplicas(engine))[0].agentLeases;
    await leases.enqueue(job('a', 1000), 'eu-west-1', 1000);
    await leases.enqueue(job('b', 1000, 'us-east-1'), 'us-east-1', 1000);
    const [held] = await leases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    expect((await leases.openQueues()).sort()).toEqual(['eu-west-1', 'us-east-1']);
    expect(await leases.waiting('eu-west-1', 1000, 2000, 100)).toEqual([]);
    const waiting = await leases.waiting('eu-west-1', 1000, 1000 + LEASE_MS, 100);
    expect(waiting.map((run) => [run.key, run.handouts])).toEqual([['a@1000@eu-west-1', 1]]);
    expect(await leases.giveUp('acct', 'a@1000@eu-west-1', 5000)).toBe(true);
    expect(await leases.giveUp('acct', 'a@1000@eu-west-1', 5000)).toBe(false);
    expect(await leases.complete(held!.leaseId, 'a@1000@eu-west-1', 5000)).toEqual({ kind: 'already-finished', key: 'a@1000@eu-west-1', outcome: 'not-executed' });
    expect(await leases.openQueues()).toEqual(['us-east-1']);
  });

  it('prunes finished runs after a day and keeps open ones', async () => {
    const leases = (await twoReplicas(engine))[0].agentLeases;
    await leases.enqueue(job('a', 1000), 'eu-west-1', 1000);
    await leases.enqueue(job('b', 1000), 'eu-west-1', 1000);
    await leases.giveUp('acct', 'a@1000@eu-west-1', 1000);
    expect(await leases.prune(1000 + 24 * 60 * 60 * 1000 + 1)).toBe(1);
    expect(await leases.openQueues()).toEqual(['eu-west-1']);
  });

  it('renews, reports and releases through one replica a run leased through another', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.agentLeases.enqueue(job('a', 1000), 'eu-west-1', 1000);
    await a.agentLeases.enqueue(job('b', 1000), 'eu-west-1', 1000);
    const [first, second] = await a.agentLeases.claim('eu-west-1', 'agent-1', 2, 1000, LEASE_MS);
    expect(await b.agentLeases.leased(first!.leaseId)).toEqual({ job: job('a', 1000), queue: 'eu-west-1' });
    expect(await b.agentLeases.counts(1000)).toEqual({ running: 2, waiting: 0 });
    expect(await b.agentLeases.renew('agent-1', [first!.leaseId, second!.leaseId, 'no-such-lease'], 3000, LEASE_MS)).toEqual([first!.leaseId, second!.leaseId]);
    expect(await a.agentLeases.claim('eu-west-1', 'agent-2', 2, 1000 + LEASE_MS, LEASE_MS)).toEqual([]);
    expect(await b.agentLeases.complete(first!.leaseId, 'a@1000@eu-west-1', 3500)).toMatchObject({ kind: 'completed', agentId: 'agent-1' });
    expect(await a.agentLeases.complete(first!.leaseId, 'a@1000@eu-west-1', 3600)).toEqual({ kind: 'already-finished', key: 'a@1000@eu-west-1', outcome: 'reported' });
    expect(await b.agentLeases.release(['agent-1'], 3700)).toBe(1);
    const [taken] = await a.agentLeases.claim('eu-west-1', 'agent-2', 2, 3700, LEASE_MS);
    expect(taken).toMatchObject({ job: { key: 'b@1000@eu-west-1' }, first: false });
    expect(await a.agentLeases.counts(3700)).toEqual({ running: 1, waiting: 0 });
  });

  it('hands each of 40 runs to exactly one agent when two replicas hand them out at once', async () => {
    const [a, b] = await twoReplicas(engine);
    for (let index = 0; index < 40; index++) await a.agentLeases.enqueue(job(`c${index}`, 1000 + index), 'eu-west-1', 1000);
    const claims = await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? a : b).agentLeases.claim('eu-west-1', `agent-${index}`, 3, 2000, LEASE_MS)));
    const keys = claims.flat().map((run) => run.job.key);
    expect(keys).toHaveLength(40);
    expect(new Set(keys).size).toBe(40);
  });

  it('records one of two reports of one lease sent through two replicas at once', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.agentLeases.enqueue(job('a', 1000), 'eu-west-1', 1000);
    const [held] = await b.agentLeases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    const outcomes = await Promise.all([a, b].map((replica) => replica.transaction((tx) => tx.agentLeases.complete(held!.leaseId, 'a@1000@eu-west-1', 1500))));
    expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(['already-finished', 'completed']);
  });

  it('undoes a report completed in a unit that failed, so the run is still the lease holder\'s', async () => {
    const [a, b] = await twoReplicas(engine);
    await a.agentLeases.enqueue(job('a', 1000), 'eu-west-1', 1000);
    const [held] = await a.agentLeases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    const failed = b.transaction(async (tx) => {
      await tx.agentLeases.complete(held!.leaseId, 'a@1000@eu-west-1', 1500);
      throw new Error('the results could not be stored');
    });
    await expect(failed).rejects.toThrow('the results could not be stored');
    expect(await a.agentLeases.complete(held!.leaseId, 'a@1000@eu-west-1', 1600)).toMatchObject({ kind: 'completed' });
  });

  it('refuses input the engines could not store', async () => {
    const [leases] = await twoReplicas(engine);
    await expect(leases.agentLeases.claim('eu-west-1', 'agent-1', -1, 1000, LEASE_MS)).rejects.toThrow('max must be a whole number of at least 0, got -1');
    await expect(leases.agentLeases.claim('eu-west-1', '', 1, 1000, LEASE_MS)).rejects.toThrow('agentId must be a string of 1 to 1000 characters, got ""');
    await expect(leases.agentLeases.enqueue(job('a', 1000), 'eu-west-1', 1.5)).rejects.toThrow('nowMs must be a whole number of milliseconds since the epoch, got 1.5');
    await expect(leases.agentLeases.renew('agent-1', [''], 1000, LEASE_MS)).rejects.toThrow('leaseId must be a string of 1 to 1000 characters, got ""');
    expect(() => leases.agentLeases.onQueued('wake' as never)).toThrow('onQueued needs a listener function, got "wake"');
    await expect(leases.agentLeases.nextLeaseEnd('', 1000)).rejects.toThrow('queue must be a string of 1 to 1000 characters, got ""');
    await expect(leases.agentLeases.nextLeaseEnd('eu-west-1', -1)).rejects.toThrow('nowMs must be a whole number of milliseconds since the epoch, got -1');
  });

  it("tells when a queue's next lease runs out, through any replica, of unfinished runs only", async () => {
    const [a, b] = await twoReplicas(engine);
    expect(await b.agentLeases.nextLeaseEnd('eu-west-1', 1000)).toBeUndefined();
    for (const checkId of ['a', 'b', 'c']) await a.agentLeases.enqueue(job(checkId, 1000), 'eu-west-1', 1000);
    await a.agentLeases.enqueue(job('d', 1000, 'us-east-1'), 'us-east-1', 1000);
    // Never handed out: no lease to run out.
    expect(await b.agentLeases.nextLeaseEnd('eu-west-1', 1000)).toBeUndefined();
    const [first] = await a.agentLeases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    await a.agentLeases.claim('eu-west-1', 'agent-2', 1, 1500, LEASE_MS);
    await a.agentLeases.claim('us-east-1', 'agent-3', 1, 500, LEASE_MS);
    expect(await b.agentLeases.nextLeaseEnd('eu-west-1', 1000)).toBe(1000 + LEASE_MS);
    // A lease that ran out by then is not next: the one after it is.
    expect(await b.agentLeases.nextLeaseEnd('eu-west-1', 1000 + LEASE_MS)).toBe(1500 + LEASE_MS);
    await b.agentLeases.complete(first!.leaseId, 'a@1000@eu-west-1', 1200);
    expect(await b.agentLeases.nextLeaseEnd('eu-west-1', 1200)).toBe(1500 + LEASE_MS);
    expect(await b.agentLeases.nextLeaseEnd('eu-west-1', 1500 + LEASE_MS)).toBeUndefined();
  });

  it('tells a listening replica of the runs queued through another replica and through itself, by queue', async () => {
    const [a, b] = await twoReplicas(engine);
    const heard = heardOn(a);
    await until('replica A to be listening', () => listening(heard.events));
    expect(heard.events).toEqual([{ kind: 'listening' }]);
    await b.agentLeases.enqueue(job('a', 1000), 'eu-west-1', 1000);
    await until('replica A to be told of the run queued through B', () => toldOf(heard.events, 'eu-west-1'));
    await a.agentLeases.enqueue(job('b', 1000, 'dc-1@acct'), 'dc-1@acct', 1000);
    await until("replica A to be told of its own run's queue", () => toldOf(heard.events, 'dc-1@acct'));
    expect(new Set(heard.events.map((event) => (event.kind === 'queued' ? event.queue : event.kind)))).toEqual(new Set(['listening', 'eu-west-1', 'dc-1@acct']));
    heard.stop();
  });

  it('tells a listening replica of the runs a release through another replica freed, by queue', async () => {
    const [a, b] = await twoReplicas(engine);
    await b.agentLeases.enqueue(job('a', 1000), 'eu-west-1', 1000);
    await b.agentLeases.enqueue(job('b', 1000, 'dc-1@acct'), 'dc-1@acct', 1000);
    await b.agentLeases.claim('eu-west-1', 'agent-1', 1, 1000, LEASE_MS);
    await b.agentLeases.claim('dc-1@acct', 'agent-2', 1, 1000, LEASE_MS);
    const heard = heardOn(a);
    await until('replica A to be listening', () => listening(heard.events));
    expect(await b.agentLeases.release(['agent-1', 'agent-9'], 2000)).toBe(1);
    await until('replica A to be told of the run released through B', () => toldOf(heard.events, 'eu-west-1'));
    expect(toldOf(heard.events, 'dc-1@acct')).toBe(false);
    const [taken] = await a.agentLeases.claim('eu-west-1', 'agent-3', 1, 2000, LEASE_MS);
    expect(taken).toMatchObject({ job: { key: 'a@1000@eu-west-1' }, first: false });
    // A release that frees nothing tells nothing.
    expect(await b.agentLeases.release(['agent-1'], 2100)).toBe(0);
    expect(await b.agentLeases.release(['agent-2'], 2100)).toBe(1);
    await until('replica A to be told of the private queue released through B', () => toldOf(heard.events, 'dc-1@acct'));
    expect(heard.events.filter((event) => event.kind === 'queued' && event.queue === 'eu-west-1')).toHaveLength(1);
    heard.stop();
  });

  it('tells nothing more once a listener unsubscribed, while the replica\'s other listeners still hear', async () => {
    const [a, b] = await twoReplicas(engine);
    const first = heardOn(a);
    await until('the first listener to be listening', () => listening(first.events));
    const second = heardOn(a);
    await until('the second listener to be told it is listening too', () => listening(second.events));
    first.stop();
    await b.agentLeases.enqueue(job('a', 1000), 'eu-west-1', 1000);
    await until('the second listener to be told of the run', () => toldOf(second.events, 'eu-west-1'));
    expect(first.events).toEqual([{ kind: 'listening' }]);
    second.stop();
    // Listening again after every listener left: the new one is told it listens, and hears.
    const third = heardOn(a);
    await until('the third listener to be listening', () => listening(third.events));
    await b.agentLeases.enqueue(job('b', 1000, 'us-east-1'), 'us-east-1', 1000);
    await until('the third listener to be told of the run', () => toldOf(third.events, 'us-east-1'));
    third.stop();
  });
});
