import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Store } from '../store/index.js';
import type { RunJob, RunQueue } from './queue.js';
import { CHANGE_FEED_RETENTION_MS, PRUNE_JOB, schedulable, Scheduler } from './scheduler.js';
import { dueSlots } from './slots.js';
import type { CheckResultDocument, SlotClaim, SlotClaims, StoragePorts } from '../store/ports.js';
import { sqlitePorts } from '../store/sqlite/index.js';

/** A queue that only records what it was handed. */
class RecordingQueue implements RunQueue {
  readonly jobs: RunJob[] = [];
  /** Date.now() when each job was handed over. */
  readonly handedOverAt: number[] = [];
  readonly pending = 0;
  submit(job: RunJob): void {
    this.jobs.push(job);
    this.handedOverAt.push(Date.now());
  }
  async drain(): Promise<void> {}
}

const T0 = Date.UTC(2030, 0, 1); // a period boundary for every frequency
const stores: Store[] = [];
const cleanups: Array<() => void> = [];
afterEach(() => {
  cleanups.splice(0).forEach((cleanup) => cleanup());
  stores.splice(0).forEach((store) => store.close());
});

function storeWith(checks: Array<Record<string, unknown>>, groups: Array<Record<string, unknown>> = []): Store {
  const store = new Store(':memory:');
  stores.push(store);
  for (const group of groups) store.checkGroups.insert('acct', (id) => ({ ...group, id }));
  for (const check of checks) store.checks.insert('acct', (id) => ({ checkType: 'API', activated: true, frequency: 0, frequencyOffset: 10, locations: ['eu-west-1'], ...check, id }));
  return store;
}

/** All the scheduler needs of a service: the storage ports on its database, and a replica id of its own. */
function openRepositories(store: Store): { ports: StoragePorts; replicaId: string } {
  return { ports: sqlitePorts(store), replicaId: randomUUID() };
}

/** A FINAL result of check `c`, created at `createdMs`. */
function result(id: string, createdMs: number): CheckResultDocument {
  return { id, checkId: 'c', created_at: new Date(createdMs).toISOString(), runLocation: 'eu-west-1', hasFailures: false, resultType: 'FINAL' };
}

async function resultIdsOf(ports: StoragePorts): Promise<string[]> {
  return (await ports.checkResults.newestFirst('acct', 'c', { limit: 10_000 })).map((stored) => stored.id);
}

function scheduler(store: Store, queue: RunQueue): Scheduler {
  return new Scheduler({ repositories: openRepositories(store), queue, now: () => T0, refreshMs: 0 });
}

describe('Scheduler.tick', () => {
  it('claims each due slot once and hands it to the queue; the first tick only sets the origin', async () => {
    const store = storeWith([{ name: 'every 10 s' }]);
    const queue = new RecordingQueue();
    const subject = scheduler(store, queue);
    expect(await subject.tick(T0)).toBe(0);
    await subject.tick(T0 + 60_000);
    expect(queue.jobs).toHaveLength(6);
    expect(queue.jobs.every((job) => job.slot.location === 'eu-west-1' && job.check.name === 'every 10 s')).toBe(true);
    // Ticking the same window again (a clock that went back, a slow tick) claims nothing twice.
    expect(await subject.tick(T0 + 60_000)).toBe(0);
  });

  it('never runs a slot twice, even with a second scheduler on the same database', async () => {
    const store = storeWith([{ name: 'shared' }]);
    const first = new RecordingQueue();
    const second = new RecordingQueue();
    const a = scheduler(store, first);
    const b = scheduler(store, second);
    await a.tick(T0);
    await b.tick(T0);
    await a.tick(T0 + 30_000);
    await b.tick(T0 + 30_000);
    const keys = [...first.jobs, ...second.jobs].map((job) => job.slot.key);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(3);
  });

  it('skips the slots of checks a maintenance window with pauseAllChecks covers, while it runs', async () => {
    const store = storeWith([{ name: 'paused', tags: ['db'] }, { name: 'running', tags: ['web'] }], [{ name: 'db group', tags: ['db'] }]);
    const [group] = store.checkGroups.all('acct');
    store.checks.insert('acct', (id) => ({ id, name: 'paused through its group', checkType: 'API', activated: true, groupId: group!.id, frequency: 0, frequencyOffset: 10, locations: ['eu-west-1'] }));
    // 20 s from T0 + 20 s, in Amsterdam (the zone does not matter for a window that does not repeat).
    store.maintenanceWindows.insert('acct', (id) => ({
      id, name: 'db upgrade', tags: ['db'], repeatUnit: 'DAY', repeatInterval: null, timezone: 'Europe/Amsterdam', pauseAllChecks: true,
      startsAt: new Date(T0 + 20_000).toISOString(), endsAt: new Date(T0 + 40_000).toISOString(),
    }));
    const queue = new RecordingQueue();
    const subject = scheduler(store, queue);
    await subject.tick(T0);
    await subject.tick(T0 + 60_000);
    // Each check's slots sit at its own point inside each 10-second step.
    const stepsOf = (name: string) => queue.jobs.filter((job) => job.check.name === name).map((job) => Math.floor((job.slot.dueMs - T0) / 10_000));
    expect(stepsOf('running')).toEqual([0, 1, 2, 3, 4, 5]);
    expect(stepsOf('paused')).toEqual([0, 1, 4, 5]);
    expect(stepsOf('paused through its group')).toEqual([0, 1, 4, 5]);
  });

  it('skips deactivated checks, checks in a deactivated group and heartbeats', async () => {
    const store = storeWith([], [{ name: 'off', activated: false }, { name: 'on', activated: true, locations: ['us-east-1'] }]);
    const [offGroup, onGroup] = store.checkGroups.all('acct');
    store.checks.insert('acct', (id) => ({ id, name: 'deactivated', checkType: 'API', activated: false, frequency: 0, frequencyOffset: 10, locations: [] }));
    store.checks.insert('acct', (id) => ({ id, name: 'in off group', checkType: 'API', activated: true, groupId: offGroup!.id, frequency: 0, frequencyOffset: 10, locations: [] }));
    store.checks.insert('acct', (id) => ({ id, name: 'heartbeat', checkType: 'HEARTBEAT', activated: true, frequency: 0, frequencyOffset: 10, locations: [] }));
    store.checks.insert('acct', (id) => ({ id, name: 'in on group', checkType: 'API', activated: true, groupId: onGroup!.id, frequency: 0, frequencyOffset: 10, locations: [] }));
    const queue = new RecordingQueue();
    const subject = scheduler(store, queue);
    await subject.tick(T0);
    await subject.tick(T0 + 20_000);
    expect(new Set(queue.jobs.map((job) => job.check.name))).toEqual(new Set(['in on group']));
    // The group's locations apply to a check that names none, and the group travels with the job.
    expect(queue.jobs.every((job) => job.slot.location === 'us-east-1' && job.group?.name === 'on')).toBe(true);
  });
});

describe('Scheduler claiming through the SlotClaims port', () => {
  it('runs every slot exactly once across two schedulers on two connections to one database, ticking on the same clock', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vigil-scheduler-claims-'));
    const [first, second] = [new Store(dir), new Store(dir)];
    stores.push(first, second);
    const checks = [
      ...Array.from({ length: 12 }, (_, index) => ({ name: `every 10 s ${index}` })),
      ...Array.from({ length: 6 }, (_, index) => ({ name: `every 20 s, two locations at once ${index}`, frequencyOffset: 20, locations: ['eu-west-1', 'us-east-1'], runParallel: true })),
      ...Array.from({ length: 6 }, (_, index) => ({ name: `every minute, rotating ${index}`, frequency: 1, frequencyOffset: index + 1, locations: ['eu-west-1', 'ap-south-1'] })),
    ];
    for (const check of checks) first.checks.insert('acct', (id) => ({ checkType: 'API', activated: true, frequency: 0, frequencyOffset: 10, locations: ['eu-west-1'], ...check, id }));
    let clock = T0;
    const queues = [new RecordingQueue(), new RecordingQueue()];
    const [a, b] = [first, second].map((store, index) => new Scheduler({ repositories: openRepositories(store), queue: queues[index]!, now: () => clock, refreshMs: 0 }));
    await Promise.all([a!.tick(T0), b!.tick(T0)]);
    // Uneven steps, both ticking at every one: at once (in turns, which one asks first), or one after the other.
    const steps = [7, 993, 1500, 2, 4000, 250, 9000, 11, 3, 12_000, 600, 30_000, 45_000, 5, 80_000];
    for (const [index, step] of steps.entries()) {
      clock += step;
      const [leader, follower] = index % 2 === 0 ? [a!, b!] : [b!, a!];
      if (index % 3 === 0) {
        await leader.tick(clock);
        await follower.tick(clock);
      } else {
        await Promise.all([leader.tick(clock), follower.tick(clock)]);
      }
    }
    const ran = new Map<string, number>();
    for (const job of [...queues[0]!.jobs, ...queues[1]!.jobs]) ran.set(job.slot.key, (ran.get(job.slot.key) ?? 0) + 1);
    const expected = first.checks.all('acct').flatMap((check) => dueSlots(schedulable('acct', String(check.id), check, undefined)!, T0, clock).map((slot) => slot.key));
    expect(expected.length).toBeGreaterThan(200);
    expect([...ran.keys()].sort()).toEqual([...expected].sort());
    expect([...ran.entries()].filter(([, runs]) => runs !== 1)).toEqual([]);
    // Both took part: the slots were shared out, not all run by one of them.
    expect(queues[0]!.jobs.length).toBeGreaterThan(0);
    expect(queues[1]!.jobs.length).toBeGreaterThan(0);
  });

  it('runs a location a check lists twice once per slot, as before, and the other checks of the tick with it', async () => {
    const store = storeWith([{ name: 'twice in eu-west-1', locations: ['eu-west-1', 'eu-west-1', 'us-east-1'], runParallel: true }, { name: 'plain' }]);
    const queue = new RecordingQueue();
    const subject = scheduler(store, queue);
    await subject.tick(T0);
    await subject.tick(T0 + 20_000);
    const keysOf = (name: string) => queue.jobs.filter((job) => job.check.name === name).map((job) => job.slot.location);
    expect(keysOf('twice in eu-west-1')).toEqual(['eu-west-1', 'us-east-1', 'eu-west-1', 'us-east-1']);
    expect(keysOf('plain')).toHaveLength(2);
  });

  it('starts a tick only after the claim of the one before was answered, and a stop waits for a claim in flight', async () => {
    const store = storeWith([{ name: 'every 10 s' }]);
    const repositories = openRepositories(store);
    const held = new HeldClaims(repositories.ports.slotClaims);
    const queue = new RecordingQueue();
    const subject = new Scheduler({ repositories: { ...repositories, ports: { ...repositories.ports, slotClaims: held } }, queue, now: () => T0, refreshMs: 0 });
    await subject.tick(T0);
    const firstTick = subject.tick(T0 + 10_000);
    const secondTick = subject.tick(T0 + 20_000);
    await held.asked(1);
    // The second tick waits behind the first one's claim: it has not asked the port yet.
    await new Promise((resolve) => setImmediate(resolve));
    expect(held.calls).toHaveLength(1);
    held.answer();
    expect(await firstTick).toBe(1);
    await held.asked(2);
    const stopped = subject.stop();
    let stopResolved = false;
    void stopped.then(() => (stopResolved = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopResolved).toBe(false);
    held.answer();
    await stopped;
    // The second claim was answered after the stop: its slot is claimed but not handed over.
    expect(await secondTick).toBe(0);
    expect(queue.jobs.map((job) => job.slot.key)).toEqual([held.calls[0]![0]!.key]);
    expect(held.calls.map((slots) => slots.length)).toEqual([1, 1]);
  });

  it('prunes claim marks not raised for two days', async () => {
    const store = storeWith([{ name: 'every 10 s' }]);
    const repositories = openRepositories(store);
    const queue = new RecordingQueue();
    const subject = new Scheduler({ repositories, queue, now: () => T0 + 15_000, refreshMs: 0 });
    await subject.tick(T0);
    await subject.tick(T0 + 10_000);
    const [job] = queue.jobs;
    const { slotClaims } = repositories.ports;
    const { accountId, checkId, location, dueMs } = job!.slot;
    expect(await slotClaims.find(accountId, checkId, location)).toEqual({ dueMs, claimedMs: T0 + 15_000, finishedDueMs: null, finishedMs: null });
    const twoDays = 2 * 24 * 60 * 60 * 1000;
    await subject.prune(dueMs + twoDays);
    expect(await slotClaims.find(accountId, checkId, location)).toBeDefined();
    await subject.prune(dueMs + twoDays + 1);
    expect(await slotClaims.find(accountId, checkId, location)).toBeUndefined();
  });
});

/** The SQLite port, with each claim held until the test answers it. */
class HeldClaims implements SlotClaims {
  readonly calls: SlotClaim[][] = [];
  readonly #inner: SlotClaims;
  readonly #waiting: Array<() => void> = [];
  readonly #askedWaiters: Array<() => void> = [];

  constructor(inner: SlotClaims) {
    this.#inner = inner;
  }

  async claim(slots: readonly SlotClaim[], claimedMs: number): Promise<SlotClaim[]> {
    this.calls.push([...slots]);
    this.#askedWaiters.splice(0).forEach((wake) => wake());
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
    return this.#inner.claim(slots, claimedMs);
  }

  /** Lets the oldest held claim through. */
  answer(): void {
    this.#waiting.shift()?.();
  }

  /** Resolves once the port was asked to claim `count` times. */
  async asked(count: number): Promise<void> {
    while (this.calls.length < count) await new Promise<void>((resolve) => this.#askedWaiters.push(resolve));
  }

  finish(slot: SlotClaim, finishedMs: number): Promise<boolean> {
    return this.#inner.finish(slot, finishedMs);
  }

  find(accountId: string, checkId: string, location: string) {
    return this.#inner.find(accountId, checkId, location);
  }

  prune(dueBeforeMs: number): Promise<number> {
    return this.#inner.prune(dueBeforeMs);
  }
}

describe('Scheduler.prune', () => {
  it('deletes results older than the retention in batches and keeps newer ones', async () => {
    const store = storeWith([]);
    const queue = new RecordingQueue();
    const repositories = openRepositories(store);
    const subject = new Scheduler({ repositories, queue, now: () => T0, retentionDays: 1 });
    const { checkResults } = repositories.ports;
    const day = 24 * 60 * 60 * 1000;
    for (let index = 0; index < 1200; index++) await checkResults.appendKept('acct', result(`old-${index}`, T0 - 2 * day + index));
    await checkResults.appendKept('acct', result('fresh', T0 - day / 2));
    // Hourly rollups outlive the raw results by 30 days, daily ones 400 days (the default).
    expect(await subject.prune(T0)).toEqual({ raw: T0 - day, hourly: T0 - 31 * day, daily: T0 - 400 * day });
    expect(await resultIdsOf(repositories.ports)).toEqual(['fresh']);
    // The rollups of the pruned results stay: analytics before the cutoff are answered from them.
    expect((await repositories.ports.checkResults.rollups('acct', 'c', 'daily', T0 - 3 * day, T0)).map((row) => row.results)).toEqual([1200, 1]);
  });
});

describe('Scheduler pruning on a timer', () => {
  it('prunes once per period of all the schedulers on one database: the one the periodic jobs port gives the turn to', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vigil-scheduler-prune-'));
    const [first, second] = [new Store(dir), new Store(dir)];
    stores.push(first, second);
    const day = 24 * 60 * 60 * 1000;
    const [one, other] = [openRepositories(first), openRepositories(second)];
    await one.ports.checkResults.appendKept('acct', result('old', T0 - 40 * day));
    const prunes = vi.spyOn(Scheduler.prototype, 'prune');
    cleanups.push(() => prunes.mockRestore());
    const schedulerOn = (repositories: typeof one) => new Scheduler({ repositories, queue: new RecordingQueue(), now: () => T0, refreshMs: 0 });
    const [a, b] = [schedulerOn(one), schedulerOn(other)];

    // Both housekeep in the same minute: one of them prunes.
    await a.tick(T0);
    await b.tick(T0);
    await Promise.all([a.idle(), b.idle()]);
    expect(prunes).toHaveBeenCalledTimes(1);
    expect(await resultIdsOf(one.ports)).toEqual([]);
    const turn = await one.ports.periodicJobs.lastRun(PRUNE_JOB);
    expect(turn?.atMs).toBe(T0);
    expect([one.replicaId, other.replicaId]).toContain(turn?.owner);

    // A scheduler started later in that minute asks at once and is refused: its timer is its own, the turn is not.
    const late = schedulerOn(openRepositories(second));
    await late.tick(T0 + 30_000);
    await late.idle();
    expect(prunes).toHaveBeenCalledTimes(1);

    // The next minute is the next period: again one of them.
    await a.tick(T0 + 60_000);
    await b.tick(T0 + 60_000);
    await Promise.all([a.idle(), b.idle()]);
    expect(prunes).toHaveBeenCalledTimes(2);
  });

  it('prunes the documents\' change feed on its turn: entries older than a day go, younger ones stay, and a reader behind them is reset', async () => {
    const store = new Store(mkdtempSync(path.join(tmpdir(), 'vigil-scheduler-feed-')));
    stores.push(store);
    const repositories = openRepositories(store);
    const feed = repositories.ports.documents;
    const writeWindow = (name: string) => feed.insert('maintenance_windows', 'acct', (id) => ({ id, name }));
    // The feed stamps its entries with the wall clock: the writes are made at the moments they stand for.
    vi.useFakeTimers({ toFake: ['Date'], now: T0 - CHANGE_FEED_RETENTION_MS - 60_000 });
    cleanups.push(() => vi.useRealTimers());
    await writeWindow('old');
    const beforeYoung = await feed.latestPosition();
    vi.setSystemTime(T0 - CHANGE_FEED_RETENTION_MS + 60_000);
    await writeWindow('young');
    vi.useRealTimers();

    const subject = new Scheduler({ repositories, queue: new RecordingQueue(), now: () => T0, refreshMs: 0 });
    await subject.tick(T0);
    await subject.idle();
    expect((await repositories.ports.periodicJobs.lastRun(PRUNE_JOB))?.atMs).toBe(T0);
    const afterPrune = await feed.changesSince(beforeYoung, 10);
    expect(afterPrune.reset).toBe(false);
    expect(afterPrune.changes.map((change) => change.kind)).toEqual(['maintenance_windows']);
    expect(afterPrune.changes).toHaveLength(1);
    expect(afterPrune.changes[0]!.position).toBeGreaterThan(beforeYoung);
    expect((await feed.changesSince(beforeYoung - 1, 10)).reset).toBe(true);
  });
});

describe('Scheduler timing', () => {
  afterEach(() => vi.useRealTimers());

  it('wakes just after each due moment instead of on a fixed tick, so a run starts within milliseconds of its slot', async () => {
    vi.useFakeTimers({ now: T0 });
    const store = storeWith([{ name: 'every 10 s' }]);
    const queue = new RecordingQueue();
    const subject = new Scheduler({ repositories: openRepositories(store), queue, tickMs: 1000 });
    subject.start();
    await vi.advanceTimersByTimeAsync(30_000);
    await subject.stop();
    expect(queue.jobs.length).toBeGreaterThanOrEqual(2);
    // A fixed 1 s tick would hand a slot over up to 1 s late; the timer follows the heap's earliest slot.
    const lateness = queue.jobs.map((job, index) => queue.handedOverAt[index]! - job.slot.dueMs);
    expect(lateness.every((late) => late >= 0 && late <= 11)).toBe(true);
  });

  it('schedules a check created after the start at the next tick', async () => {
    const store = storeWith([]);
    const queue = new RecordingQueue();
    const repositories = openRepositories(store);
    const subject = new Scheduler({ repositories, queue, now: () => T0 });
    await subject.tick(T0);
    await repositories.ports.documents.insert('checks', 'acct', (id) => ({ id, name: 'new', checkType: 'API', activated: true, frequency: 0, frequencyOffset: 10, locations: [] }));
    await subject.tick(T0 + 20_000);
    expect(queue.jobs.map((job) => job.check.name)).toEqual(['new', 'new']);
  });

  it('picks up a check written through another database connection once the refresh interval passed', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vigil-scheduler-'));
    const store = new Store(dir);
    const other = new Store(dir);
    stores.push(store, other);
    const queue = new RecordingQueue();
    const subject = new Scheduler({ repositories: openRepositories(store), queue, now: () => T0, refreshMs: 5_000 });
    await subject.tick(T0);
    await openRepositories(other).ports.documents.insert('checks', 'acct', (id) => ({ id, name: 'from elsewhere', checkType: 'API', activated: true, frequency: 0, frequencyOffset: 10, locations: [] }));
    // Inside the refresh interval this process has not looked yet; after it, the check runs.
    await subject.tick(T0 + 1_000);
    expect(queue.jobs).toHaveLength(0);
    await subject.tick(T0 + 30_000);
    expect(queue.jobs.map((job) => job.check.name)).toContain('from elsewhere');
  });
});

describe('Scheduler following changes', () => {
  it('stops a deleted or deactivated check and runs a changed one on its new schedule, each slot once', async () => {
    const store = storeWith([{ name: 'deleted' }, { name: 'deactivated' }, { name: 'slowed down' }, { name: 'untouched' }]);
    const [deleted, deactivated, slowed] = store.checks.all('acct');
    const queue = new RecordingQueue();
    const subject = scheduler(store, queue);
    await subject.tick(T0);
    await subject.tick(T0 + 10_000);
    expect(queue.jobs).toHaveLength(4);
    const { documents } = openRepositories(store).ports;
    await documents.remove('checks', 'acct', deleted!.id);
    await documents.replace('checks', 'acct', { ...deactivated!, activated: false });
    await documents.replace('checks', 'acct', { ...slowed!, frequency: 1, frequencyOffset: 1 });
    queue.jobs.length = 0;
    await subject.tick(T0 + 70_000);
    const names = queue.jobs.map((job) => job.check.name);
    expect(names.filter((name) => name === 'untouched')).toHaveLength(6);
    expect(names.filter((name) => name === 'slowed down')).toHaveLength(1);
    expect(names).not.toContain('deleted');
    expect(names).not.toContain('deactivated');
  });
});
