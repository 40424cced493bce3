import { describe, expect, it } from 'vitest';
import type { HeartbeatEventState } from '@vigil/schema';
import { heartbeatRecord, pingsRead, type HeartbeatEvent } from './heartbeats.js';

const now = Date.parse('2026-03-18T12:00:00.000Z');
const hour = 3_600_000;
const event = (id: string, hoursAgo: number, state: HeartbeatEventState): HeartbeatEvent => ({
  id,
  state,
  timestamp: new Date(now - hoursAgo * hour).toISOString(),
  source: '10.0.0.1',
  userAgent: 'curl/8',
});

// Current 24 h: 3 received, 1 failing. Previous 24 h: 1 received, 1 late. Earlier in the week: 2 received.
const events = [
  event('e1', 1, 'RECEIVED'),
  event('e2', 2, 'FAILING'),
  event('e3', 3, 'EARLY'),
  event('e4', 23, 'GRACE'),
  event('e5', 30, 'RECEIVED'),
  event('e6', 40, 'LATE'),
  event('e7', 100, 'RECEIVED'),
  event('e8', 150, 'RECEIVED'),
  event('e9', 200, 'FAILING'),
];

describe('heartbeat record', () => {
  it('lists events in the window newest first, up to the limit', () => {
    const record = heartbeatRecord(events, { window: { from: now - 24 * hour, to: now }, limit: 3, now });
    expect(record.events.map((e) => e.id)).toEqual(['e1', 'e2', 'e3']);
  });

  it('walks back in time with page', () => {
    const record = heartbeatRecord(events, { window: { from: 0, to: now }, limit: 4, page: 2, now });
    expect(record.events.map((e) => e.id)).toEqual(['e5', 'e6', 'e7', 'e8']);
  });

  it('excludes the window end', () => {
    const record = heartbeatRecord(events, { window: { from: now - 30 * hour, to: now - hour }, limit: 10, now });
    expect(record.events.map((e) => e.id)).toEqual(['e2', 'e3', 'e4', 'e5']);
  });

  it('computes success ratios as percentages for the current and previous periods', () => {
    const { stats } = heartbeatRecord(events, { window: { from: 0, to: now }, limit: 10, now });
    expect(stats.last24Hours).toEqual({ successRatio: { previousPeriod: 50, currentPeriod: 75 }, totalEntitiesCurrentPeriod: 4 });
    // Current 7 days: e1..e8 → 6 of 8 succeeded (75); previous 7 days: e9 only (0).
    expect(stats.last7Days).toEqual({ successRatio: { previousPeriod: 0, currentPeriod: 75 }, totalEntitiesCurrentPeriod: 8 });
  });

  it('reports ratio 0 and no entities for a period without events', () => {
    const { stats } = heartbeatRecord([], { window: { from: 0, to: now }, limit: 10, now });
    expect(stats.last24Hours).toEqual({ successRatio: { previousPeriod: 0, currentPeriod: 0 }, totalEntitiesCurrentPeriod: 0 });
  });
});

describe('the pings a record reads', () => {
  const day = 24 * hour;
  it('reads the window and the two 7-day periods as one range when they overlap or touch', () => {
    expect(pingsRead({ from: now - day, to: now }, now)).toEqual([{ from: now - 14 * day, to: now }]);
    expect(pingsRead({ from: now - 20 * day, to: now - 14 * day }, now)).toEqual([{ from: now - 20 * day, to: now }]);
    expect(pingsRead({ from: now - day, to: now + 5 * day }, now)).toEqual([{ from: now - 14 * day, to: now + 5 * day }]);
  });

  it('reads a window apart from the periods as a range of its own, never before 1970', () => {
    expect(pingsRead({ from: now - 40 * day, to: now - 30 * day }, now)).toEqual([{ from: now - 40 * day, to: now - 30 * day }, { from: now - 14 * day, to: now }]);
    expect(pingsRead({ from: -5 * day, to: day }, now)).toEqual([{ from: 0, to: day }, { from: now - 14 * day, to: now }]);
    expect(pingsRead({ from: -5 * day, to: -day }, now)).toEqual([{ from: now - 14 * day, to: now }]);
  });
});
