import { describe, expect, it } from 'vitest';
import { QUICK_RANGES, type QuickRange } from '@vigil/schema';
import { analyticsWindow, checkResultWindow, heartbeatWindow, inWindow, quickRangeWindow, startOfIsoWeek } from './windows.js';

const at = (iso: string) => Date.parse(iso);
// A Wednesday.
const now = at('2026-03-18T15:30:00.000Z');

describe('quickRange windows at Wednesday 2026-03-18 15:30 UTC', () => {
  const expected: Record<QuickRange, [string, string]> = {
    last24Hours: ['2026-03-17T15:30:00.000Z', '2026-03-18T15:30:00.000Z'],
    last7Days: ['2026-03-11T15:30:00.000Z', '2026-03-18T15:30:00.000Z'],
    last30Days: ['2026-02-16T15:30:00.000Z', '2026-03-18T15:30:00.000Z'],
    thisWeek: ['2026-03-16T00:00:00.000Z', '2026-03-18T15:30:00.000Z'],
    thisMonth: ['2026-03-01T00:00:00.000Z', '2026-03-18T15:30:00.000Z'],
    lastWeek: ['2026-03-09T00:00:00.000Z', '2026-03-16T00:00:00.000Z'],
    lastMonth: ['2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z'],
  };
  it.each(QUICK_RANGES)('%s', (range) => {
    const window = quickRangeWindow(range, now);
    expect([new Date(window.from).toISOString(), new Date(window.to).toISOString()]).toEqual(expected[range]);
  });
});

describe('weeks start on Monday 00:00 UTC', () => {
  it('a Sunday belongs to the week that started six days earlier', () => {
    expect(new Date(startOfIsoWeek(at('2026-03-22T23:59:59Z'))).toISOString()).toBe('2026-03-16T00:00:00.000Z');
  });
  it('Monday midnight starts a new week', () => {
    expect(new Date(startOfIsoWeek(at('2026-03-23T00:00:00Z'))).toISOString()).toBe('2026-03-23T00:00:00.000Z');
  });
  it('lastMonth in January is the previous December', () => {
    const window = quickRangeWindow('lastMonth', at('2026-01-10T00:00:00Z'));
    expect(new Date(window.from).toISOString()).toBe('2025-12-01T00:00:00.000Z');
  });
});

describe('analytics window: custom from/to override quickRange', () => {
  const fromSeconds = at('2026-03-01T00:00:00Z') / 1000;
  const toSeconds = at('2026-03-02T00:00:00Z') / 1000;
  it('uses last24Hours without any input', () => {
    expect(analyticsWindow({ now })).toEqual({ from: now - 86_400_000, to: now });
  });
  it('uses both custom ends and ignores quickRange', () => {
    expect(analyticsWindow({ now, quickRange: 'lastMonth', fromSeconds, toSeconds }))
      .toEqual({ from: fromSeconds * 1000, to: toSeconds * 1000 });
  });
  it('runs a lone from until now', () => {
    expect(analyticsWindow({ now, quickRange: 'last7Days', fromSeconds })).toEqual({ from: fromSeconds * 1000, to: now });
  });
  it('covers the 24 hours before a lone to', () => {
    expect(analyticsWindow({ now, toSeconds })).toEqual({ from: toSeconds * 1000 - 86_400_000, to: toSeconds * 1000 });
  });
});

describe('check-result window', () => {
  const sixHours = 6 * 3_600_000;
  it('defaults to the six hours before now', () => {
    expect(checkResultWindow({ now })).toEqual({ from: now - sixHours, to: now });
  });
  it('ends six hours after a lone from', () => {
    expect(checkResultWindow({ now, fromSeconds: 1000 })).toEqual({ from: 1_000_000, to: 1_000_000 + sixHours });
  });
  it('starts six hours before a lone to', () => {
    expect(checkResultWindow({ now, toSeconds: 100_000 })).toEqual({ from: 100_000_000 - sixHours, to: 100_000_000 });
  });
  it('takes both ends as given', () => {
    expect(checkResultWindow({ now, fromSeconds: 10, toSeconds: 20 })).toEqual({ from: 10_000, to: 20_000 });
  });
});

describe('heartbeat window and window membership', () => {
  it('defaults to the last 24 hours', () => {
    expect(heartbeatWindow({ now })).toEqual({ from: now - 86_400_000, to: now });
  });
  it('includes the start and excludes the end', () => {
    expect(inWindow(10, { from: 10, to: 20 })).toBe(true);
    expect(inWindow(20, { from: 10, to: 20 })).toBe(false);
  });
});
