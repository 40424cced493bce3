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
    ['offset steps are 6 s up to 60 minutes', { frequency: 5, frequencyOffset: 7 }, 42_000],
    ['the largest offset wraps to the period start', { frequency: 5, frequencyOffset: 50 }, 0],
    ['offset steps are hours above 60 minutes', { frequency: 720, frequencyOffset: 3 }, 3 * 60 * MINUTE],
  ])('%s', (_name, overrides, phase) => {
    expect(phaseMs(check(overrides))).toBe(phase);
  });

  it('without an offset, spreads checks by a hash of their id, the same every time', () => {
    const phases = ['a', 'b', 'c', 'd'].map((id) => phaseMs(check({ id, frequencyOffset: null, frequency: 10 })));
    expect(new Set(phases).size).toBeGreaterThan(1);
    expect(phases.every((phase) => phase >= 0 && phase < 10 * MINUTE && phase % 1000 === 0)).toBe(true);
    expect(phaseMs(check({ id: 'a', frequencyOffset: null, frequency: 10 }))).toBe(phases[0]);
  });
});

describe('dueSlots', () => {
  it('lists each period once, at its phase, in the window [from, to)', () => {
    const slots = dueSlots(check({ frequency: 1, frequencyOffset: 5 }), 0, 3 * MINUTE);
    expect(slots.map((slot) => slot.dueMs)).toEqual([30_000, 90_000, 150_000]);
    // A slot exactly at `to` belongs to the next window, so consecutive windows never run it twice.
    expect(dueSlots(check({ frequency: 1, frequencyOffset: 5 }), 0, 30_000)).toEqual([]);
    expect(dueSlots(check({ frequency: 1, frequencyOffset: 5 }), 30_000, 30_001)).toHaveLength(1);
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
    const slots = dueSlots(check({ frequency: 10, frequencyOffset: 1, locations: ['x', 'y'], runParallel: true }), 0, 10 * MINUTE);
    expect(slots.map((slot) => `${slot.dueMs}:${slot.location}`)).toEqual(['6000:x', '6000:y']);
  });

  it('uses the default location when the check names none, and keys slots by check, moment and location', () => {
    const [slot] = dueSlots(check({ locations: [], frequency: 1, frequencyOffset: 1 }), 0, MINUTE);
    expect(slot).toEqual({ accountId: 'a', checkId: 'c1', dueMs: 6000, location: 'local', key: 'c1@6000@local' });
  });

  it('gives the next due moment at or after now', () => {
    const every10s = check({ frequency: 0, frequencyOffset: 10, id: 'n' });
    const next = nextDueMs(every10s, 1_000_000);
    expect(next).toBeGreaterThanOrEqual(1_000_000);
    expect(next - 1_000_000).toBeLessThan(10_000);
    expect(dueSlots(every10s, 1_000_000, next + 1)[0]?.dueMs).toBe(next);
  });
});
