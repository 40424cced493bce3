/**
 * Two replicas' agent hubs on one database (SQLite file, PostgreSQL), each on its own ports: an agent
 * polling one replica is live for the other, a run queued through either goes to it (at once, woken by
 * the store's word of it; after losing that word, by the sweep once it is back), its report through
 * either is recorded once, and a run whose agent is gone from both is recorded not executed once. The
 * clock is the test's: it moves only when a step says so.
 */
import { RUN_WIRE_VERSION, type AgentPoll, type RunReport, type RunJob as WireRunJob } from '@vigil/schema';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordReport } from '../scheduler/execute.js';
import type { QueuedEvent } from '../store/agent-ports.js';
import type { StoragePorts } from '../store/ports.js';
import { enginesUnderTest, twoReplicas } from '../store/contract/engines.js';
import { openPostgresPorts } from '../store/postgres/index.js';
import { refuseLogins, replicaRole, terminateListening } from '../store/postgres/test-listening-outage.js';
import { AgentHub, ReportRefusal, type AgentIdentity } from './hub.js';

const engines = enginesUnderTest();
const LEASE_MS = 1500;
const START_MS = 1_700_000_000_000;
const EU: AgentIdentity = { queue: 'eu-west-1', location: 'eu-west-1' };

interface Recorded {
  key: string;
  via: string;
  notExecuted: string | undefined;
}

const hubs: AgentHub[] = [];
afterEach(() => {
  for (const hub of hubs.splice(0)) hub.stop();
});

/** Records a run as the scheduler's recorder does, as far as replicas meet: its guard in a unit, and what committed. */
function recorderOn(ports: StoragePorts, via: string, recorded: Recorded[]): RecordReport {
  return async (job, report, options = {}) => {
    await ports.transaction(async (tx) => {
      await options.guard?.(tx);
    });
    recorded.push({ key: job.slot.key, via, notExecuted: (report.final as { notExecuted?: { reason: string } }).notExecuted?.reason });
  };
}

/**
 * Hubs whose timed sweep never comes during a test, and whose polls wait 20 s (a third of the lease):
 * a poll whose wait runs out answers no runs, so only a wake hands it one.
 */
const NO_TIMED_SWEEP = { leaseMs: 60_000, sweepEveryMs: 3_600_000 };

async function twoHubs(
  engine: (typeof engines)[number],
  options: { leaseMs?: number; sweepEveryMs?: number; replicas?: [StoragePorts, StoragePorts]; realClock?: boolean } = {},
) {
  const [portsA, portsB] = options.replicas ?? (await twoReplicas(engine));
  const world = { clock: START_MS, recorded: [] as Recorded[], logged: [] as string[], portsA, portsB };
  // The test's clock, unless the test waits for a lease to run out as time passes.
  const now = options.realClock ? Date.now : () => world.clock;
  const hubOn = (ports: StoragePorts, via: string) => {
    const hub = new AgentHub({ ports, leaseMs: options.leaseMs ?? LEASE_MS, now, log: (line) => world.logged.push(line), ...(options.sweepEveryMs ? { sweepEveryMs: options.sweepEveryMs } : {}) });
    hubs.push(hub);
    hub.start(recorderOn(ports, via, world.recorded));
    return hub;
  };
  return { ...world, world, a: hubOn(portsA, 'A'), b: hubOn(portsB, 'B') };
}

function poll(agentId: string, overrides: Partial<AgentPoll> = {}): AgentPoll {
  return { agentId, wireVersion: RUN_WIRE_VERSION, agentVersion: '1.0.0', location: 'eu-west-1', capacity: 1, leases: [], ...overrides };
}

function enqueue(hub: AgentHub, dueMs: number, location = 'eu-west-1', privateLocations?: string[]): string {
  const key = `c1@${dueMs}@${location}`;
  hub.enqueue({ slot: { accountId: 'acme', checkId: 'c1', dueMs, location, key }, check: { id: 'c1', name: 'Shop', checkType: 'API', ...(privateLocations ? { privateLocations } : {}) } });
  return key;
}

function reportOf(job: WireRunJob): RunReport {
  const at = new Date(job.dueMs).toISOString();
  const final = {
    id: 'r1', name: 'Shop', checkId: job.checkId, hasFailures: false, hasErrors: false, isDegraded: false, overMaxResponseTime: false,
    runLocation: job.location, startedAt: at, stoppedAt: at, created_at: at, responseTime: 12,
    apiCheckResult: null, browserCheckResult: null, multiStepCheckResult: null,
    checkRunId: Math.floor(job.dueMs / 1000), attempts: 0, resultType: 'FINAL' as const, sequenceId: null, error: null,
  };
  return { wireVersion: RUN_WIRE_VERSION, key: job.key, attempts: [], final };
}

/** Looks again every 10 ms until `found` answers true; `what` names it in the failure. */
/** Polls `found` until it holds; the limit is generous (a loaded 2-core machine is slow, and only a broken build waits it out). */
async function until(what: string, found: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await found())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const waitingRuns = async (ports: StoragePorts, nowMs: number) => (await ports.agentLeases.counts(nowMs)).waiting;

/** What the store tells replica `ports` of queued runs, collected beside its hub's own subscription. */
function heardOn(ports: StoragePorts): QueuedEvent[] {
  const events: QueuedEvent[] = [];
  const stop = ports.agentLeases.onQueued((event) => events.push(event));
  listeners.push(stop);
  return events;
}
const timesListening = (events: readonly QueuedEvent[]) => events.filter((event) => event.kind === 'listening').length;

const listeners: Array<() => void> = [];
afterEach(() => {
  for (const stop of listeners.splice(0)) stop();
});

/** Whether `promise` has settled by now (a look, never a wait). */
function settledYet(promise: Promise<unknown>): () => boolean {
  let settled = false;
  void promise.finally(() => {
    settled = true;
  });
  return () => settled;
}

describe.each(engines)('agent hubs of two replicas on $name', (engine) => {
  it('hands a run queued through B to the agent polling A, never records it not executed, and records its report through B once', async () => {
    const { world, a, b, portsB } = await twoHubs(engine);
    const polled = a.poll(poll('agent-1'), EU);
    await until('replica B to list agent-1 as live', async () => (await b.agents()).some((agent) => agent.agentId === 'agent-1' && agent.state === 'live'));
    const key = enqueue(b, START_MS);
    // Stored, and perhaps handed already: A's own timed sweep may wake its waiting poll first.
    await until('the run to be stored', async () => {
      const { waiting, running } = await portsB.agentLeases.counts(world.clock);
      return waiting + running === 1;
    });
    // A lease period later, B's sweep would give the run up had it only its own agents to ask.
    world.clock += LEASE_MS;
    await b.sweep();
    expect(world.recorded).toEqual([]);
    // A's sweep finds the run of its live agent's queue and wakes the poll, which claims it.
    await a.sweep();
    const [leased] = await polled;
    expect(leased?.job.key).toBe(key);

    await b.report('agent-1', EU, leased!.leaseId, reportOf(leased!.job));
    await expect(a.report('agent-1', EU, leased!.leaseId, reportOf(leased!.job))).rejects.toThrow(new ReportRefusal('conflict', `run ${key} already has its result; this one is not recorded`));
    world.clock += 10 * LEASE_MS;
    await Promise.all([a.sweep(), b.sweep()]);
    expect(world.recorded).toEqual([{ key, via: 'B', notExecuted: undefined }]);
    expect(world.logged).toEqual([]);
  });

  it('records a run not executed exactly once when its agent is gone from both replicas, and lists the agent gone on both', async () => {
    const { world, a, b, portsB } = await twoHubs(engine);
    // One poll that ends at once: the agent is heard from at START_MS only.
    expect(await a.poll(poll('agent-1', { capacity: 0 }), EU, AbortSignal.abort())).toEqual([]);
    const key = enqueue(b, START_MS);
    await until('the run to be stored', async () => (await waitingRuns(portsB, world.clock)) === 1);
    world.clock += 2 * LEASE_MS - 1;
    await Promise.all([a.sweep(), b.sweep()]);
    expect(world.recorded).toEqual([]);
    expect((await b.agents()).map((agent) => [agent.agentId, agent.state])).toEqual([['agent-1', 'live']]);

    world.clock += 1;
    await Promise.all([a.sweep(), b.sweep(), a.sweep(), b.sweep()]);
    expect(world.recorded).toEqual([{ key, via: expect.stringMatching(/^[AB]$/), notExecuted: 'no agent of location eu-west-1 is connected and the location is not run by the service itself' }]);
    for (const hub of [a, b]) expect((await hub.agents()).map((agent) => [agent.agentId, agent.state])).toEqual([['agent-1', 'gone']]);
    expect(world.logged).toEqual([]);
  });

  it('frees at once, for an agent polling A, the run an agent polling B held under a key revoked through A, and lists that agent gone on both', async () => {
    const { world, a, b, portsA } = await twoHubs(engine);
    await portsA.privateLocations.insert('acme', { id: 'pl-1', slugName: 'dc-1' });
    for (const keyId of ['key-1', 'key-2']) {
      await portsA.privateLocations.addKey('acme', { id: keyId, privateLocationId: 'pl-1', maskedKey: `...${keyId}`, createdAt: '2026-11-28T00:00:00.000Z' }, new Uint8Array(32).fill(keyId === 'key-1' ? 1 : 2));
    }
    const identity = (keyId: string): AgentIdentity => ({ queue: 'dc-1@acme', location: 'dc-1', privateLocation: { accountId: 'acme', id: 'pl-1', keyId } });
    const key = enqueue(a, START_MS, 'dc-1', ['dc-1']);
    await until('the run to be stored', async () => (await waitingRuns(portsA, world.clock)) === 1);
    const [held] = await b.poll(poll('revoked-agent', { location: 'dc-1' }), identity('key-1'));
    expect(held?.job.key).toBe(key);

    const other = a.poll(poll('other-agent', { location: 'dc-1' }), identity('key-2'));
    await until('replica A to know other-agent', async () => (await a.agents('acme')).some((agent) => agent.agentId === 'other-agent'));
    expect(await portsA.privateLocations.removeKey('acme', 'pl-1', 'key-1')).toBe(true);
    a.revokeKey('key-1');
    const [taken] = await other;
    expect(taken).toMatchObject({ job: { key }, first: false });
    for (const hub of [a, b]) {
      expect((await hub.agents('acme')).map((agent) => [agent.agentId, agent.state])).toEqual([['other-agent', 'live'], ['revoked-agent', 'gone']]);
    }
    expect(world.logged).toEqual([]);
  });

  it('hands a run queued through B to the agent whose poll waits on A at once, woken by the store with no sweep running', async () => {
    const { world, a, b, portsA } = await twoHubs(engine, NO_TIMED_SWEEP);
    const heard = heardOn(portsA);
    await until('replica A to listen for queued runs', async () => timesListening(heard) === 1);
    // Listening started a sweep on A (runs queued before may not have been told): over before the run is queued.
    await a.sweep();
    const polled = a.poll(poll('agent-1'), EU);
    await until("agent-1's poll to wait on A", async () => a.waitingPolls('eu-west-1') === 1);
    const key = enqueue(b, START_MS);
    const [leased] = await polled;
    expect(leased).toMatchObject({ job: { key }, first: true });
    expect(heard).toContainEqual({ kind: 'queued', queue: 'eu-west-1' });
    expect(world.logged).toEqual([]);
  });

  it('hands the run a release through B freed to the agent whose poll waits on A at once, woken by the store with no sweep running', async () => {
    const { world, a, b, portsA } = await twoHubs(engine, NO_TIMED_SWEEP);
    const heard = heardOn(portsA);
    await until('replica A to listen for queued runs', async () => timesListening(heard) === 1);
    await a.sweep();
    const key = enqueue(b, START_MS);
    await until('the run to be stored', async () => (await waitingRuns(portsA, world.clock)) === 1);
    const [held] = await b.poll(poll('agent-0'), EU);
    expect(held).toMatchObject({ job: { key }, first: true });
    const polled = a.poll(poll('agent-1'), EU);
    await until("agent-1's poll to wait on A", async () => a.waitingPolls('eu-west-1') === 1);
    // As the agents route does when an agent's key is refused after its poll was answered.
    await b.releaseLeases(['agent-0']);
    const [taken] = await polled;
    expect(taken).toMatchObject({ job: { key }, first: false });
    expect(heard).toContainEqual({ kind: 'queued', queue: 'eu-west-1' });
    expect(world.logged).toEqual([]);
  });

  it('hands a run whose lease ran out on B to the agent whose poll waits on A when it runs out, with no sweep running', async () => {
    const { world, a, b, portsA } = await twoHubs(engine, { leaseMs: LEASE_MS, sweepEveryMs: 3_600_000, realClock: true });
    const heard = heardOn(portsA);
    await until('replica A to listen for queued runs', async () => timesListening(heard) === 1);
    await a.sweep();
    const key = enqueue(b, Date.now());
    await until('the run to be stored', async () => (await waitingRuns(portsA, Date.now())) === 1);
    const [held] = await b.poll(poll('agent-0'), EU);
    expect(held).toMatchObject({ job: { key }, first: true });
    // One poll waits a third of a lease at most: it starts once the lease ends within that wait, and
    // a wait that ran out would answer no runs.
    await until("agent-0's lease to end within one poll's wait", async () => Date.now() >= held!.leaseExpiresMs - a.pollMs / 2);
    const [taken] = await a.poll(poll('agent-1'), EU);
    expect(taken).toMatchObject({ job: { key }, first: false });
    expect(world.logged).toEqual([]);
  });
});

describe.each(engines.filter((engine) => engine.name === 'postgres'))('agent hubs of two replicas on $name, one losing its listening connection', (engine) => {
  const closing: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const hub of hubs.splice(0)) hub.stop();
    for (const stop of listeners.splice(0)) stop();
    await Promise.all(closing.splice(0).map((close) => close()));
  });

  it("hands a run queued through B while A's listening connection was ended to the agent waiting on A, by the sweep A runs once it listens again", async () => {
    const database = await engine.freshDatabase();
    const adminUrl = database.connectionString!;
    const portsB = await database.replica();
    const warnings: string[] = [];
    // A logs in as a role of its own, so that its reconnecting can be refused while B goes on.
    const portsA = await openPostgresPorts({ connectionString: await replicaRole(adminUrl, 'replica_a'), warn: (message) => warnings.push(message) });
    closing.push(() => portsA.close());
    const { world, a, b } = await twoHubs(engine, { ...NO_TIMED_SWEEP, replicas: [portsA, portsB] });
    const heard = heardOn(portsA);
    await until('replica A to listen for queued runs', async () => timesListening(heard) === 1);
    await a.sweep();
    const polled = a.poll(poll('agent-1'), EU);
    const delivered = settledYet(polled);
    await until("agent-1's poll to wait on A", async () => a.waitingPolls('eu-west-1') === 1);

    await refuseLogins(adminUrl, 'replica_a', true);
    expect(await terminateListening(adminUrl, 'replica_a')).toBe(1);
    await until("replica A to warn that its listening connection failed", async () => warnings.length === 1);
    const key = enqueue(b, START_MS);
    await until('the run to be stored', async () => (await waitingRuns(portsB, world.clock)) === 1);
    // Its notification went to B's listener only: A is not listening, and sweeps only when it listens again.
    expect(delivered()).toBe(false);

    await refuseLogins(adminUrl, 'replica_a', false);
    const [leased] = await polled;
    expect(leased).toMatchObject({ job: { key }, first: true });
    expect(timesListening(heard)).toBe(2);
    expect(heard).not.toContainEqual({ kind: 'queued', queue: 'eu-west-1' });
    expect(warnings).toEqual([
      expect.stringMatching(/^the PostgreSQL connection listening for notifications on 127\.0\.0\.1:\d+\/test_\d+ failed \(terminating connection due to administrator command\); reconnecting, and agents' runs reach them at the next sweep meanwhile$/),
      expect.stringMatching(/^listening to PostgreSQL notifications on 127\.0\.0\.1:\d+\/test_\d+ again$/),
    ]);
    expect(world.logged).toEqual([]);
  });
});
