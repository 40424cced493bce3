/**
 * The scheduler on the storage ports alone, on each engine (SQLite, and PostgreSQL with no SQLite
 * store anywhere): replicas on one database follow the checks, groups and maintenance windows any of
 * them writes, through the documents' change feed, and prune results through `CheckResults`.
 */
import { describe, expect, it } from 'vitest';
import type { DocumentId, ResourceDocument } from '../store/document-ports.js';
import { enginesUnderTest, twoReplicas } from '../store/contract/engines.js';
import type { CheckResultDocument, StoragePorts } from '../store/ports.js';
import type { RunJob, RunQueue } from './queue.js';
import { Scheduler } from './scheduler.js';

const engines = enginesUnderTest();
const T0 = Date.UTC(2030, 0, 1); // a period boundary for every frequency
const DAY = 24 * 60 * 60 * 1000;

class RecordingQueue implements RunQueue {
  readonly jobs: RunJob[] = [];
  readonly pending = 0;
  submit(job: RunJob): void {
    this.jobs.push(job);
  }
  async drain(): Promise<void> {}
}

/** An API check every 10 seconds; each slot sits at the check's own point inside its 10-second step. */
const check =
  (name: string, extra: Record<string, unknown> = {}) =>
  (id: DocumentId): ResourceDocument => ({ id, name, checkType: 'API', activated: true, frequency: 0, frequencyOffset: 10, locations: ['eu-west-1'], tags: [], ...extra });

function schedulerOn(ports: StoragePorts, queue: RunQueue, options: { replicaId?: string; log?: (line: string) => void; retentionDays?: number } = {}): Scheduler {
  return new Scheduler({ repositories: { ports, replicaId: options.replicaId ?? 'replica' }, queue, now: () => T0, ...options });
}

/** Each check's 10-second steps (from T0) that ran, by name. */
function stepsByName(jobs: readonly RunJob[]): Record<string, number[]> {
  const steps: Record<string, number[]> = {};
  for (const job of jobs) (steps[String(job.check.name)] ??= []).push(Math.floor((job.slot.dueMs - T0) / 10_000));
  for (const list of Object.values(steps)) list.sort((x, y) => x - y);
  return steps;
}

describe.each(engines)('the scheduler on $name', (engine) => {
  it('follows what either replica writes: a group switched off and on, a window that pauses checks, a deleted check; each slot runs once', async () => {
    const [a, b] = await twoReplicas(engine);
    const group = await a.documents.insert('check_groups', 'acct', (id) => ({ id, name: 'db', activated: true, tags: ['db'] }));
    await a.documents.insert('checks', 'acct', check('in group', { groupId: group.id }));
    const plain = await a.documents.insert('checks', 'acct', check('plain', { tags: ['web'] }));
    const queues = [new RecordingQueue(), new RecordingQueue()];
    const schedulers = [schedulerOn(a, queues[0]!, { replicaId: 'a' }), schedulerOn(b, queues[1]!, { replicaId: 'b' })];
    const tickBoth = async (at: number) => {
      for (const scheduler of schedulers) await scheduler.tick(at);
    };
    await tickBoth(T0);
    // Their first prune turn (which prunes the feed too, as of T0) has ended: what follows reads changes, not everything.
    await Promise.all(schedulers.map((scheduler) => scheduler.idle()));
    await tickBoth(T0 + 10_000);
    await b.documents.replace('check_groups', 'acct', { ...group, activated: false });
    await tickBoth(T0 + 20_000);
    await a.documents.replace('check_groups', 'acct', { ...group, activated: true });
    await b.documents.insert('maintenance_windows', 'acct', (id) => ({
      id, name: 'web upgrade', tags: ['web'], repeatUnit: 'DAY', repeatInterval: null, timezone: 'UTC', pauseAllChecks: true,
      startsAt: new Date(T0 + 30_000).toISOString(), endsAt: new Date(T0 + 40_000).toISOString(),
    }));
    await tickBoth(T0 + 50_000);
    await b.documents.remove('checks', 'acct', plain.id);
    await tickBoth(T0 + 70_000);
    await Promise.all(schedulers.map((scheduler) => scheduler.stop()));

    const jobs = [...queues[0]!.jobs, ...queues[1]!.jobs];
    expect(new Set(jobs.map((job) => job.slot.key)).size).toBe(jobs.length);
    // Switched off for the window [10 s, 20 s), on again for [20 s, 50 s): the slots of that window run.
    expect(stepsByName(jobs)).toEqual({ 'in group': [0, 2, 3, 4, 5, 6], plain: [0, 1, 2, 4] });
    expect(jobs.filter((job) => job.check.name === 'in group').every((job) => job.group?.name === 'db')).toBe(true);
  });

  it('reads everything again when the change feed was pruned past where it had read to', async () => {
    const [a] = await twoReplicas(engine);
    const queue = new RecordingQueue();
    const subject = schedulerOn(a, queue);
    await subject.tick(T0);
    // Its first prune turn (which prunes the feed too, as of T0) has ended before the write.
    await subject.idle();
    await a.documents.insert('checks', 'acct', check('written while behind'));
    // The write's entry goes with the rest of the feed (once numbered: PostgreSQL numbers entries as the
    // feed is read), so only a full read can find the check.
    await a.documents.latestPosition();
    expect(await a.documents.pruneChanges(Date.now() + 60_000)).toBeGreaterThan(0);
    await subject.tick(T0 + 20_000);
    await subject.stop();
    expect(stepsByName(queue.jobs)).toEqual({ 'written while behind': [0, 1] });
  });

  it('runs the checks it knows while the feed cannot be read, says so once, and catches up once it can', async () => {
    const [a] = await twoReplicas(engine);
    await a.documents.insert('checks', 'acct', check('known'));
    let away = false;
    const documents = new Proxy(a.documents, {
      get(target, property) {
        if (property === 'latestPosition' && away) return async () => Promise.reject(new Error('connection lost'));
        const value = Reflect.get(target, property) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const queue = new RecordingQueue();
    const lines: string[] = [];
    const subject = schedulerOn({ ...a, documents }, queue, { log: (line) => lines.push(line) });
    await subject.tick(T0);
    away = true;
    await a.documents.insert('checks', 'acct', check('created while away'));
    await subject.tick(T0 + 10_000);
    await subject.tick(T0 + 20_000);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^vigil server: reading changed checks failed; checks run as they were until it works again: Error: connection lost\n/);
    away = false;
    await subject.tick(T0 + 30_000);
    await subject.stop();
    expect(stepsByName(queue.jobs)).toEqual({ known: [0, 1, 2], 'created while away': [2] });
    expect(lines).toHaveLength(1);
  });

  it('prunes results older than the retention through the port, keeping their rollups', async () => {
    const [a, b] = await twoReplicas(engine);
    const result = (id: string, createdMs: number): CheckResultDocument => ({ id, checkId: 'c', created_at: new Date(createdMs).toISOString(), runLocation: 'eu-west-1', hasFailures: false, resultType: 'FINAL' });
    await a.checkResults.appendKept('acct', result('old', T0 - 40 * DAY));
    await a.checkResults.appendKept('acct', result('just too old', T0 - 30 * DAY - 1));
    await a.checkResults.appendKept('acct', result('kept', T0 - 30 * DAY));
    const subject = schedulerOn(b, new RecordingQueue(), { retentionDays: 30 });
    expect(await subject.prune(T0)).toEqual({ raw: T0 - 30 * DAY, hourly: T0 - 60 * DAY, daily: T0 - 400 * DAY });
    expect((await a.checkResults.newestFirst('acct', 'c', { limit: 10 })).map((stored) => stored.id)).toEqual(['kept']);
    expect((await a.checkResults.rollups('acct', 'c', 'daily', T0 - 41 * DAY, T0)).map((row) => row.results)).toEqual([1, 1, 1]);
  });
});
