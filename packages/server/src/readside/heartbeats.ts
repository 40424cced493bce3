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
