import { describe, expect, it } from 'vitest';
import { dueSlots, nextDueMs, periodMs, phaseMs, type SchedulableCheck } from './slots.js';

const MINUTE = 60_000;
const check = (overrides: Partial<SchedulableCheck>): SchedulableCheck => ({
  accountId: 'a',
  id: 'c1',
  frequency: 5,
  frequencyOffset: 1,
  locations: ['eu-west-1'],
  ...overrides,
});

describe('periodMs and phaseMs', () => {
  it.each([
    ['frequency 0, offset 10: every 10 s', { frequency: 0, frequencyOffset: 10 }, 10_000],
    ['frequency 0, offset 30: every 30 s', { frequency: 0, frequencyOffset: 30 }, 30_000],
    ['frequency 1: every minute', { frequency: 1, frequencyOffset: 3 }, MINUTE],
    ['frequency 720: every 12 hours', { frequency: 720, frequencyOffset: 2 }, 720 * MINUTE],
  ])('%s', (_name, overrides, period) => {
    expect(periodMs(check(overrides))).toBe(period);
  });

  it.each([
    ['offset steps are 6 s up to 60 minutes', { frequency: 5, frequencyOffset: 7 }, 42_000, 6_000],
    ['the largest offset wraps to the period start', { frequency: 5, frequencyOffset: 50 }, 0, 6_000],
    ['offset steps are hours above 60 minutes', { frequency: 720, frequencyOffset: 3 }, 3 * 60 * MINUTE, 60 * MINUTE],
  ])('%s, the start spread inside the step by the check id', (_name, overrides, stepStart, step) => {
    const phases = ['a', 'b', 'c', 'd'].map((id) => phaseMs(check({ ...overrides, id })));
    expect(phases.every((phase) => phase >= stepStart && phase < stepStart + step)).toBe(true);
    expect(new Set(phases).size).toBe(4);
    expect(phaseMs(check({ ...overrides, id: 'a' }))).toBe(phases[0]);
  });

  it('without an offset, spreads checks by a hash of their id, the same every time', () => {
    const phases = ['a', 'b', 'c', 'd'].map((id) => phaseMs(check({ id, frequencyOffset: null, frequency: 10 })));
    expect(new Set(phases).size).toBeGreaterThan(1);
    expect(phases.every((phase) => phase >= 0 && phase < 10 * MINUTE)).toBe(true);
    expect(phaseMs(check({ id: 'a', frequencyOffset: null, frequency: 10 }))).toBe(phases[0]);
  });
});

describe('dueSlots', () => {
  it('spreads checks without an offset across the period to the millisecond, so a minute of them is no burst', () => {
    const phases = Array.from({ length: 1000 }, (_, index) => phaseMs(check({ id: `check-${index}`, frequency: 1, frequencyOffset: null })));
    const perSecond = new Map<number, number>();
    for (const phase of phases) perSecond.set(Math.floor(phase / 1000), (perSecond.get(Math.floor(phase / 1000)) ?? 0) + 1);
    // 1,000 checks over 60 seconds: about 17 a second, never a pile-up on one moment.
    expect(new Set(phases).size).toBeGreaterThan(990);
    expect(Math.max(...perSecond.values())).toBeLessThan(40);
  });

  it('lists each period once, at its phase, in the window [from, to)', () => {
    const everyMinute = check({ frequency: 1, frequencyOffset: 5 });
    const phase = phaseMs(everyMinute);
    const slots = dueSlots(everyMinute, 0, 3 * MINUTE);
    expect(slots.map((slot) => slot.dueMs)).toEqual([phase, MINUTE + phase, 2 * MINUTE + phase]);
    // A slot exactly at `to` belongs to the next window, so consecutive windows never run it twice.
    expect(dueSlots(everyMinute, 0, phase)).toEqual([]);
    expect(dueSlots(everyMinute, phase, phase + 1)).toHaveLength(1);
  });

  it('rotates through the locations one per slot, by slot index so a restart keeps the rotation', () => {
    const rotating = check({ frequency: 0, frequencyOffset: 10, locations: ['x', 'y', 'z'], id: 'r' });
    const first = dueSlots(rotating, 0, 60_000).map((slot) => slot.location);
    expect(first).toHaveLength(6);
    expect(new Set(first.slice(0, 3))).toEqual(new Set(['x', 'y', 'z']));
    const later = dueSlots(rotating, 30_000, 60_000).map((slot) => slot.location);
    expect(later).toEqual(first.slice(3));
  });

  it('runs every location at each slot with runParallel', () => {
    const parallel = check({ frequency: 10, frequencyOffset: 1, locations: ['x', 'y'], runParallel: true });
    const slots = dueSlots(parallel, 0, 10 * MINUTE);
    const due = phaseMs(parallel);
    expect(slots.map((slot) => `${slot.dueMs}:${slot.location}`)).toEqual([`${due}:x`, `${due}:y`]);
  });

  it('uses the default location when the check names none, and keys slots by check, moment and location', () => {
    const nowhere = check({ locations: [], frequency: 1, frequencyOffset: 1 });
    const [slot] = dueSlots(nowhere, 0, MINUTE);
    const due = phaseMs(nowhere);
    expect(slot).toEqual({ accountId: 'a', checkId: 'c1', dueMs: due, location: 'local', key: `c1@${due}@local` });
  });

  it('gives the next due moment at or after now', () => {
    const every10s = check({ frequency: 0, frequencyOffset: 10, id: 'n' });
    const next = nextDueMs(every10s, 1_000_000);
    expect(next).toBeGreaterThanOrEqual(1_000_000);
    expect(next - 1_000_000).toBeLessThan(10_000);
    expect(dueSlots(every10s, 1_000_000, next + 1)[0]?.dueMs).toBe(next);
  });
});
