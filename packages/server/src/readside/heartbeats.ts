/**
 * Heartbeat events of `GET /v1/checks/heartbeats/{checkId}/events`.
 *
 * Decisions:
 * - Events in `[startTime, endTime)`, newest first: at most 10 fit on a page, and the newest are
 *   the ones worth returning first; `page` walks back in time.
 * - A ping counts as a success when its state is `RECEIVED`, `EARLY` or `GRACE` (it arrived), and
 *   as a failure when `FAILING` or `LATE`.
 * - `successRatio` is a percentage (0..100, like analytics `availability`); a period without events
 *   has ratio 0. The current period ends now; the previous one is the same length just before it.
 */
import type { HeartbeatEvent, HeartbeatEventRecord, HeartbeatEventState } from '@vigil/schema';
import { inWindow, type TimeWindow } from './windows.js';

export type { HeartbeatEvent };
type PeriodStats = HeartbeatEventRecord['stats']['last24Hours'];

const SUCCESS_STATES: ReadonlySet<HeartbeatEventState> = new Set<HeartbeatEventState>(['RECEIVED', 'EARLY', 'GRACE']);

const DAY = 86_400_000;

/** How far back the statistics look: the previous 7-day period before the current one. */
const STATS_SPAN = 14 * DAY;

/**
 * The ranges of pings the record of `window` at `now` reads: the window's and the statistics' two
 * periods, as one range when they overlap or touch, else two, and within what the store keeps
 * (moments from 1970 on).
 */
export function pingsRead(window: TimeWindow, now: number): TimeWindow[] {
  const clamp = (range: TimeWindow): TimeWindow => ({ from: Math.max(0, range.from), to: Math.min(Number.MAX_SAFE_INTEGER, range.to) });
  const [first, second] = [clamp(window), clamp({ from: now - STATS_SPAN, to: now })].sort((a, b) => a.from - b.from) as [TimeWindow, TimeWindow];
  const ranges = first.to >= second.from ? [{ from: first.from, to: Math.max(first.to, second.to) }] : [first, second];
  return ranges.filter((range) => range.from < range.to);
}

/** The one record the endpoint returns for a check, from all of that check's stored events. */
export function heartbeatRecord(
  events: readonly HeartbeatEvent[],
  options: { window: TimeWindow; limit: number; page?: number; now: number },
): HeartbeatEventRecord {
  const timed = events.map((event) => ({ event, at: Date.parse(event.timestamp) }));
  const listed = timed
    .filter(({ at }) => inWindow(at, options.window))
    .sort((a, b) => b.at - a.at || (a.event.id < b.event.id ? -1 : 1))
    .slice(((options.page ?? 1) - 1) * options.limit, (options.page ?? 1) * options.limit)
    .map(({ event }) => event);
  return {
    events: listed,
    stats: {
      last24Hours: periodStats(timed, options.now, DAY),
      last7Days: periodStats(timed, options.now, 7 * DAY),
    },
  };
}

function periodStats(events: ReadonlyArray<{ event: HeartbeatEvent; at: number }>, now: number, length: number): PeriodStats {
  const current = { from: now - length, to: now };
  const previous = { from: now - 2 * length, to: now - length };
  const currentEvents = events.filter(({ at }) => inWindow(at, current));
  return {
    successRatio: {
      previousPeriod: successRatio(events.filter(({ at }) => inWindow(at, previous))),
      currentPeriod: successRatio(currentEvents),
    },
    totalEntitiesCurrentPeriod: currentEvents.length,
  };
}

function successRatio(events: ReadonlyArray<{ event: HeartbeatEvent }>): number {
  if (events.length === 0) return 0;
  return (100 * events.filter(({ event }) => SUCCESS_STATES.has(event.state)).length) / events.length;
}
