/**
 * Maintenance windows, and what they do to the checks they cover while one of their occurrences runs:
 * - alerts: a window silences the notifications of the checks sharing one of its `tags` or its
 *   `silenceAlertsTags` with the check or the check's group, and of every check of the account when
 *   `silenceAllAlerts` is set;
 * - runs: with `pauseAllChecks`, the checks sharing one of its `tags` do not run at all (every check
 *   of the account when the window has no tags, the real document's "overrides tag scope").
 * A window without tags and without those flags covers nothing.
 *
 * Repeats are calendar based in the window's `timezone` (UTC when none): every `repeatInterval`
 * days, weeks or months from the first occurrence at the same local wall-clock time, so a window at
 * 02:00 Europe/Amsterdam stays at 02:00 local across daylight-saving changes (a month that is too
 * short for the start day takes its last day). Occurrences may start up to and including the
 * calendar date of `repeatEndsAt` in that zone (a date-time counts as its UTC date, as the real
 * document says). Without a `repeatInterval` the window happens once.
 */
import { addCalendarUnits, instantOf, wallOf } from './zoned-time.js';

export interface MaintenanceWindowLike {
  startsAt: string;
  endsAt: string;
  repeatUnit?: string | null;
  repeatInterval?: number | null;
  repeatEndsAt?: string | null;
  tags?: readonly string[] | null;
  timezone?: string | null;
  pauseAllChecks?: boolean | null;
  silenceAllAlerts?: boolean | null;
  silenceAlertsTags?: readonly string[] | null;
}

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** Whether an active window silences the alerts of a check with these tags (its own and its group's). */
export function isInMaintenance(windows: readonly MaintenanceWindowLike[], tags: readonly string[], nowMs: number): boolean {
  return windows.some((window) => silencesAlerts(window, tags) && isActive(window, nowMs));
}

/** Whether an active window keeps a check with these tags from running. */
export function isPaused(windows: readonly MaintenanceWindowLike[], tags: readonly string[], nowMs: number): boolean {
  return windows.some((window) => pausesChecks(window, tags) && isActive(window, nowMs));
}

/** A paused check is silenced too: a heartbeat has no run to skip, and a run begun before the window may end in it. */
function silencesAlerts(window: MaintenanceWindowLike, tags: readonly string[]): boolean {
  return window.silenceAllAlerts === true || sharesTag(window.tags, tags) || sharesTag(window.silenceAlertsTags, tags) || pausesChecks(window, tags);
}

function pausesChecks(window: MaintenanceWindowLike, tags: readonly string[]): boolean {
  if (window.pauseAllChecks !== true) return false;
  return (window.tags ?? []).length === 0 || sharesTag(window.tags, tags);
}

function sharesTag(own: readonly string[] | null | undefined, tags: readonly string[]): boolean {
  return (own ?? []).some((tag) => tags.includes(tag));
}

/** Whether one of the window's occurrences contains `nowMs` (start inclusive, end exclusive). */
export function isActive(window: MaintenanceWindowLike, nowMs: number): boolean {
  const startMs = Date.parse(window.startsAt);
  const endMs = Date.parse(window.endsAt);
  if (!Number.isFinite(startMs) || !(endMs > startMs) || nowMs < startMs) return false;
  const interval = window.repeatInterval ?? 0;
  if (interval < 1) return nowMs < endMs;
  const zone = window.timezone;
  const unit = String(window.repeatUnit);
  const startWall = wallOf(startMs, zone);
  const wallDurationMs = wallOf(endMs, zone) - startWall;
  const lastStartDay = lastStartDayOf(window.repeatEndsAt);
  // Only occurrences that began within the last duration can contain now. Months vary in length and
  // a daylight-saving change moves an occurrence by an hour, so bound the steps generously.
  const [shortestMs, longestMs] = periodsMs(unit).map((ms) => ms * interval) as [number, number];
  const newest = Math.floor((nowMs - startMs) / (shortestMs - HOUR_MS)) + 1;
  const oldest = Math.max(0, Math.floor((nowMs - startMs - wallDurationMs - HOUR_MS) / (longestMs + HOUR_MS)) - 1);
  for (let k = newest; k >= oldest; k--) {
    const beginWall = addCalendarUnits(startWall, unit, interval * k);
    if (lastStartDay !== undefined && Math.floor(beginWall / DAY_MS) > lastStartDay) continue;
    const begin = instantOf(beginWall, zone);
    if (begin > nowMs) continue;
    if (nowMs < instantOf(beginWall + wallDurationMs, zone)) return true;
  }
  return false;
}

/**
 * Whether the window is about the check with these tags (its own and its group's): it shares one of
 * its `tags`, or it pauses every check. What a status page calls maintenance: a window that only
 * silences alerts (`silenceAllAlerts`, `silenceAlertsTags`) is not work on the check.
 */
export function coversCheck(window: MaintenanceWindowLike, tags: readonly string[]): boolean {
  return sharesTag(window.tags, tags) || (window.pauseAllChecks === true && (window.tags ?? []).length === 0);
}

/** The window's occurrences overlapping `[fromMs, toMs)`, oldest first, each `[from, to)` in epoch ms. */
export function occurrencesBetween(window: MaintenanceWindowLike, fromMs: number, toMs: number): Array<{ from: number; to: number }> {
  const startMs = Date.parse(window.startsAt);
  const endMs = Date.parse(window.endsAt);
  if (!Number.isFinite(startMs) || !(endMs > startMs) || toMs <= startMs) return [];
  const interval = window.repeatInterval ?? 0;
  if (interval < 1) return endMs > fromMs ? [{ from: startMs, to: endMs }] : [];
  const zone = window.timezone;
  const unit = String(window.repeatUnit);
  const startWall = wallOf(startMs, zone);
  const wallDurationMs = wallOf(endMs, zone) - startWall;
  const lastStartDay = lastStartDayOf(window.repeatEndsAt);
  // The same generous bounds as isActive: from the first occurrence that can still be running at
  // `fromMs` to the last that can begin before `toMs`.
  const [shortestMs, longestMs] = periodsMs(unit).map((ms) => ms * interval) as [number, number];
  const oldest = Math.max(0, Math.floor((fromMs - startMs - wallDurationMs - HOUR_MS) / (longestMs + HOUR_MS)) - 1);
  const newest = Math.floor((toMs - startMs) / (shortestMs - HOUR_MS)) + 1;
  const found: Array<{ from: number; to: number }> = [];
  for (let k = oldest; k <= newest; k++) {
    const beginWall = addCalendarUnits(startWall, unit, interval * k);
    if (lastStartDay !== undefined && Math.floor(beginWall / DAY_MS) > lastStartDay) break;
    const from = instantOf(beginWall, zone);
    const to = instantOf(beginWall + wallDurationMs, zone);
    if (from < toMs && to > fromMs) found.push({ from, to });
  }
  return found;
}

/** `repeatEndsAt` as a day number (days since the epoch of its calendar date); undefined when none. */
function lastStartDayOf(repeatEndsAt: string | null | undefined): number | undefined {
  if (!repeatEndsAt) return undefined;
  const dateOnly = /^(\d{4})-(\d{2})-(\d{2})$/.exec(repeatEndsAt);
  const ms = dateOnly ? Date.UTC(Number(dateOnly[1]), Number(dateOnly[2]) - 1, Number(dateOnly[3])) : Date.parse(repeatEndsAt);
  return Number.isFinite(ms) ? Math.floor(ms / DAY_MS) : undefined;
}

function periodsMs(unit: string): [number, number] {
  if (unit === 'WEEK') return [7 * DAY_MS, 7 * DAY_MS];
  if (unit === 'MONTH') return [28 * DAY_MS, 31 * DAY_MS];
  return [DAY_MS, DAY_MS];
}
