import { describe, expect, it } from 'vitest';
import { Store } from '../store/index.js';
import { Alerting, type FinalResultFacts } from './index.js';
import { combineParallel, ParallelSlots } from './parallel.js';
import { openRepositories } from '../repositories.js';

const T0 = Date.UTC(2030, 0, 1);

const result = (location: string, failed: boolean, extra: Partial<FinalResultFacts> = {}): FinalResultFacts => ({
  id: `result-${location}`,
  hasFailures: failed,
  hasErrors: false,
  isDegraded: false,
  responseTime: 10,
  runLocation: location,
  startedAt: new Date(T0).toISOString(),
  stoppedAt: new Date(T0).toISOString(),
  ...extra,
});

/** `pattern`: one letter per location, F failed, P passed. */
const slot = (pattern: string) => [...pattern].map((letter, index) => result(`loc-${index}`, letter === 'F'));

describe('combineParallel: when a parallel slot fails', () => {
  it.each([
    // pattern, enabled, percentage, slot fails
    ['PPP', false, 10, false],
    ['FPP', false, 10, true],
    ['FFF', false, 10, true],
    ['FPP', true, 30, true],
    ['FPP', true, 40, false],
    ['FFP', true, 60, true],
    ['FFP', true, 70, false],
    ['FFFF', true, 100, true],
    ['FFFP', true, 100, false],
    ['PPPP', true, 10, false],
  ] as const)('%s with the threshold enabled=%s at %i %% → failed=%s', (pattern, enabled, percentage, fails) => {
    const combined = combineParallel(slot(pattern), { enabled, percentage: percentage as 10 });
    expect(combined.hasFailures).toBe(fails);
    // A failed slot is reported by a location that failed; a passing one by one that passed.
    expect(pattern[Number(combined.runLocation!.slice(4))]).toBe(fails ? 'F' : 'P');
  });

  it('a passing slot is degraded when one of its passing locations is', () => {
    const combined = combineParallel([result('a', false), result('b', false, { isDegraded: true }), result('c', true)], { enabled: true, percentage: 50 });
    expect(combined).toMatchObject({ hasFailures: false, isDegraded: true, runLocation: 'b' });
  });
});

describe('ParallelSlots', () => {
  it('holds a slot until its last location reports, and flushes an incomplete one when the next slot reports', () => {
    const slots = new ParallelSlots();
    expect(slots.add('a', 'c', { dueMs: 1, locations: 2 }, result('x', false))).toEqual([]);
    expect(slots.add('a', 'c', { dueMs: 1, locations: 2 }, result('y', true))).toHaveLength(1);
    expect(slots.add('a', 'c', { dueMs: 2, locations: 2 }, result('x', true))).toEqual([]);
    // The other location of slot 2 never reports (its run crashed): slot 3 flushes slot 2 first.
    const ready = slots.add('a', 'c', { dueMs: 3, locations: 2 }, result('x', false));
    expect(ready.map((results) => results.map((entry) => entry.runLocation))).toEqual([['x']]);
    // Checks and accounts are apart.
    expect(slots.add('b', 'c', { dueMs: 3, locations: 2 }, result('y', false))).toEqual([]);
  });
});

describe('Alerting of a runParallel check', () => {
  it('alerts once per failing slot, not once per location, and counts slots towards failedRunThreshold', async () => {
    const store = new Store(':memory:');
    try {
      const check = store.checks.insert('acct', (id) => ({
        id,
        name: 'Parallel',
        checkType: 'API',
        runParallel: true,
        alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 2 }, parallelRunFailureThreshold: { enabled: true, percentage: 50 } },
      }));
      const checkId = String(check.id);
      const alerting = new Alerting(openRepositories(store), { pollMs: 10_000 });
      const feed = async (dueMs: number, pattern: string) => {
        const alerts: string[] = [];
        for (const entry of slot(pattern)) alerts.push(...(await alerting.onFinalResult('acct', checkId, { ...entry, stoppedAt: new Date(T0 + dueMs).toISOString() }, { dueMs, locations: pattern.length })));
        return alerts;
      };
      expect(await feed(0, 'FFF')).toEqual([]);
      expect(await alerting.stateOf('acct', checkId)).toMatchObject({ consecutiveFailures: 1 });
      // One of three failing is under 50 %: a passing slot, which resets the count.
      expect(await feed(10_000, 'FPP')).toEqual([]);
      expect(await alerting.stateOf('acct', checkId)).toMatchObject({ consecutiveFailures: 0 });
      expect(await feed(20_000, 'FFP')).toEqual([]);
      expect(await feed(30_000, 'FFF')).toEqual(['ALERT_FAILURE']);
      expect(await feed(40_000, 'PPF')).toEqual(['ALERT_RECOVERY']);
      void alerting.stop();
    } finally {
      store.close();
    }
  });
});
