/**
 * Time windows of the read-side endpoints. Every window is half-open, `[from, to)`: a result
 * stamped exactly at `to` belongs to the next window, so adjacent windows never count it twice.
 * All calendar arithmetic is in UTC.
 */
import type { QuickRange } from '@vigil/schema';

export interface TimeWindow {
  /** Inclusive start, epoch milliseconds. */
  from: number;
  /** Exclusive end, epoch milliseconds. */
  to: number;
}

export type { QuickRange };

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The window a `quickRange` names at instant `now`.
 * Weeks start on Monday 00:00 UTC (ISO 8601), so `thisWeek` on a Sunday covers six days and
 * `lastWeek` is always the full Monday..Sunday before it. "this" ranges end at `now`; "last"
 * calendar ranges end where the current calendar period starts.
 */
export function quickRangeWindow(range: QuickRange, now: number): TimeWindow {
  switch (range) {
    case 'last24Hours':
      return { from: now - DAY, to: now };
    case 'last7Days':
      return { from: now - 7 * DAY, to: now };
    case 'last30Days':
      return { from: now - 30 * DAY, to: now };
    case 'thisWeek':
      return { from: startOfIsoWeek(now), to: now };
    case 'thisMonth':
      return { from: startOfMonth(now), to: now };
    case 'lastWeek': {
      const thisWeek = startOfIsoWeek(now);
      return { from: thisWeek - 7 * DAY, to: thisWeek };
    }
    case 'lastMonth': {
      const thisMonth = startOfMonth(now);
      return { from: startOfMonth(thisMonth - 1), to: thisMonth };
    }
    default: {
      const unknown: never = range;
      throw new Error(`this is a bug in vigil: unknown quickRange ${String(unknown)}`);
    }
  }
}

/**
 * The analytics window. A custom `from` or `to` (UNIX seconds) overrides `quickRange` entirely
 * (the real service's wording): both given is `[from, to)`; `from` alone runs until now; `to`
 * alone covers the 24 hours before it. Without either, `quickRange` (default `last24Hours`) decides.
 */
export function analyticsWindow(options: {
  quickRange?: QuickRange | undefined;
  fromSeconds?: number | undefined;
  toSeconds?: number | undefined;
  now: number;
}): TimeWindow {
  const { now, fromSeconds, toSeconds } = options;
  if (fromSeconds === undefined && toSeconds === undefined) {
    return quickRangeWindow(options.quickRange ?? 'last24Hours', now);
  }
  const to = toSeconds === undefined ? now : toSeconds * 1000;
  const from = fromSeconds === undefined ? to - DAY : fromSeconds * 1000;
  return { from, to };
}

/** Longest window the check-results endpoint serves, as the real service does. */
export const CHECK_RESULT_WINDOW_MS = 6 * HOUR;

/**
 * The check-results window (UNIX seconds in, epoch ms out): `from` defaults to now - 6 h and `to`
 * to 6 h after `from`; given only `to`, `from` is 6 h before it (the real service's rule, which
 * keeps "`to` alone" from producing an empty window).
 */
export function checkResultWindow(options: {
  fromSeconds?: number | undefined;
  toSeconds?: number | undefined;
  now: number;
}): TimeWindow {
  const { fromSeconds, toSeconds, now } = options;
  if (fromSeconds !== undefined) {
    const from = fromSeconds * 1000;
    return { from, to: toSeconds === undefined ? from + CHECK_RESULT_WINDOW_MS : toSeconds * 1000 };
  }
  if (toSeconds !== undefined) {
    const to = toSeconds * 1000;
    return { from: to - CHECK_RESULT_WINDOW_MS, to };
  }
  const from = now - CHECK_RESULT_WINDOW_MS;
  return { from, to: from + CHECK_RESULT_WINDOW_MS };
}

/** The heartbeat-events window: `startTime` defaults to 24 h before now, `endTime` to now. */
export function heartbeatWindow(options: {
  startTime?: number | undefined;
  endTime?: number | undefined;
  now: number;
}): TimeWindow {
  return {
    from: options.startTime ?? options.now - DAY,
    to: options.endTime ?? options.now,
  };
}

/** Monday 00:00 UTC of the ISO week containing `instant`. */
export function startOfIsoWeek(instant: number): number {
  const date = new Date(instant);
  const midnight = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  const daysSinceMonday = (date.getUTCDay() + 6) % 7;
  return midnight - daysSinceMonday * DAY;
}

/** The first of the month, 00:00 UTC, of the month containing `instant`. */
export function startOfMonth(instant: number): number {
  const date = new Date(instant);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

/** True when `instant` lies in the half-open window. */
export function inWindow(instant: number, window: TimeWindow): boolean {
  return instant >= window.from && instant < window.to;
}
