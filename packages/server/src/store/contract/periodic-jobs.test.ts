/** The periodic-job port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const NOW = Date.UTC(2026, 10, 1);
const EVERY = 60_000;

describe.each(engines)('periodic jobs on $name', (engine) => {
  it('lets exactly one of two replicas asking 20 times each at once run a job in one period', async () => {
    const [a, b] = await twoReplicas(engine);
    const turns = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).periodicJobs.tryRun('prune-results', NOW + (i % 5), EVERY, `replica-${i % 2}`)));
    expect(turns.filter(Boolean)).toHaveLength(1);
    const winner = turns.indexOf(true);
    expect(await b.periodicJobs.lastRun('prune-results')).toEqual({ atMs: NOW + (winner % 5), owner: `replica-${winner % 2}` });
  });

  it('runs a job again once its period has passed since the last run, not before', async () => {
    const [a, b] = await twoReplicas(engine);
    expect(await a.periodicJobs.tryRun('prune-rollups', NOW, EVERY, 'replica-a')).toBe(true);
    expect(await b.periodicJobs.tryRun('prune-rollups', NOW + EVERY - 1, EVERY, 'replica-b')).toBe(false);
    expect(await b.periodicJobs.tryRun('prune-rollups', NOW + EVERY, EVERY, 'replica-b')).toBe(true);
    expect(await a.periodicJobs.tryRun('prune-rollups', NOW + EVERY, EVERY, 'replica-a')).toBe(false);
    expect(await a.periodicJobs.lastRun('prune-rollups')).toEqual({ atMs: NOW + EVERY, owner: 'replica-b' });
    // A replica whose clock is behind the last run's never runs it in the past.
    expect(await a.periodicJobs.tryRun('prune-rollups', NOW, EVERY, 'replica-a')).toBe(false);
  });

  it('keeps jobs apart, and knows no run of a job that never ran', async () => {
    const [a, b] = await twoReplicas(engine);
    expect(await a.periodicJobs.tryRun('prune-results', NOW, EVERY, 'replica-a')).toBe(true);
    expect(await b.periodicJobs.tryRun('prune-claims', NOW, EVERY, 'replica-b')).toBe(true);
    expect(await b.periodicJobs.lastRun('prune-events')).toBeUndefined();
  });

  it.each([
    ['an empty name', ['', NOW, EVERY, 'r'], 'job name must be a string of 1 to 200 characters, got ""'],
    ['a negative moment', ['job', -1, EVERY, 'r'], 'nowMs must be a whole number of milliseconds since the epoch, got -1'],
    ['a period of 0', ['job', NOW, 0, 'r'], 'everyMs must be a whole number of at least 1, got 0'],
    ['a fractional period', ['job', NOW, 1.5, 'r'], 'everyMs must be a whole number of at least 1, got 1.5'],
    ['an empty owner', ['job', NOW, EVERY, ''], 'job owner must be a string of 1 to 200 characters, got ""'],
  ] as const)('refuses a turn with %s, recording nothing', async (_name, args, message) => {
    const [a] = await twoReplicas(engine);
    await expect(a.periodicJobs.tryRun(args[0], args[1], args[2], args[3])).rejects.toThrow(message);
    expect(await a.periodicJobs.lastRun('job')).toBeUndefined();
  });

  it('refuses to look up a job without a name', async () => {
    const [a] = await twoReplicas(engine);
    await expect(a.periodicJobs.lastRun('')).rejects.toThrow('job name must be a string of 1 to 200 characters, got ""');
  });
});
