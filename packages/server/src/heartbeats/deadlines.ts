/**
 * When a heartbeat monitor is late, as pure functions of (heartbeat, last ping, now): nothing here
 * reads a clock or a database, so the rules are table-tested and the service's tick only stores
 * what they decide.
 *
 * - The deadline is `period + grace` after the anchor: the last ping (a success or a `/fail`: both
 *   say the job ran), or the moment the check was created when it was never pinged.
 * - A miss is one failing run. While no ping comes, the next window closes one `period` later, so a
 *   silent job fails once per period (which is what RUN_BASED thresholds and reminders count), never
 *   once per tick.
 * - Windows are numbered from the anchor, so a window is the same window after a restart: the store
 *   records the last window it reported, and a window is reported only when it is later than that.
 *   Windows that closed while the service was down are not reported one by one: the latest stands for
 *   them (as the scheduler runs no slot late).
 */
import { heartbeatDurationMs, type HeartbeatRequest } from '@vigil/schema';
import type { HeartbeatEventState } from '@vigil/schema';

export type HeartbeatTiming = Pick<HeartbeatRequest, 'period' | 'periodUnit' | 'grace' | 'graceUnit'>;

export interface MissedWindow {
  /** 0 for the first deadline after the anchor, 1 for the one a period later, … */
  index: number;
  /** When the window closed without a ping, ms since the epoch. */
  dueMs: number;
}

/** The latest window that closed without a ping by `nowMs` (inclusive), or null while the check is on time. */
export function latestMissedWindow(heartbeat: HeartbeatTiming, anchorMs: number, nowMs: number): MissedWindow | null {
  const periodMs = heartbeatDurationMs(heartbeat.period, heartbeat.periodUnit);
  const firstDueMs = anchorMs + periodMs + heartbeatDurationMs(heartbeat.grace, heartbeat.graceUnit);
  if (nowMs < firstDueMs || periodMs <= 0) return null;
  const index = Math.floor((nowMs - firstDueMs) / periodMs);
  return { index, dueMs: firstDueMs + index * periodMs };
}

/** When the next window closes, for a check on time: the first deadline after `nowMs`. */
export function nextDeadlineMs(heartbeat: HeartbeatTiming, anchorMs: number, nowMs: number): number {
  const periodMs = heartbeatDurationMs(heartbeat.period, heartbeat.periodUnit);
  const missed = latestMissedWindow(heartbeat, anchorMs, nowMs);
  return missed ? missed.dueMs + periodMs : anchorMs + periodMs + heartbeatDurationMs(heartbeat.grace, heartbeat.graceUnit);
}

/** Whether a missed window still has to be reported, given the last one reported (null: none yet). */
export function isUnreported(window: MissedWindow, lastReportedDueMs: number | null): boolean {
  return lastReportedDueMs === null || window.dueMs > lastReportedDueMs;
}

/**
 * The event state of a successful ping at `atMs`: RECEIVED within the period, GRACE within the
 * grace after it, LATE once the deadline had passed (the check had already failed). A `/fail` ping
 * is FAILING whenever it comes.
 */
export function pingState(heartbeat: HeartbeatTiming, anchorMs: number, atMs: number, failed: boolean): HeartbeatEventState {
  if (failed) return 'FAILING';
  const periodEndMs = anchorMs + heartbeatDurationMs(heartbeat.period, heartbeat.periodUnit);
  if (atMs <= periodEndMs) return 'RECEIVED';
  return atMs <= periodEndMs + heartbeatDurationMs(heartbeat.grace, heartbeat.graceUnit) ? 'GRACE' : 'LATE';
}

/** "30 seconds", "1 day": a duration as users wrote it, for error messages. */
export function describeDuration(value: number, unit: HeartbeatTiming['periodUnit']): string {
  return `${value} ${value === 1 ? unit.slice(0, -1) : unit}`;
}

/** The error of a missed-deadline result. */
export function missedMessage(heartbeat: HeartbeatTiming): string {
  return `No ping received within ${describeDuration(heartbeat.period, heartbeat.periodUnit)} (period) + ${describeDuration(heartbeat.grace, heartbeat.graceUnit)} (grace)`;
}
