/**
 * Maintenance windows silence alerts (not runs) of the checks they cover: a window covers a check
 * when one of its tags is a tag of the check or of the check's group. A window without tags covers
 * nothing. Repeats are calendar based in UTC: every `repeatInterval` days, weeks or months from the
 * first occurrence (a month that is too short for the start day takes its last day), none starting
 * after `repeatEndsAt`. Without a `repeatInterval` the window happens once.
 */
export interface MaintenanceWindowLike {
  startsAt: string;
  endsAt: string;
  repeatUnit?: string | null;
  repeatInterval?: number | null;
  repeatEndsAt?: string | null;
  tags?: readonly string[] | null;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export function isInMaintenance(windows: readonly MaintenanceWindowLike[], tags: readonly string[], nowMs: number): boolean {
  if (tags.length === 0) return false;
  const own = new Set(tags);
  return windows.some((window) => (window.tags ?? []).some((tag) => own.has(tag)) && isActive(window, nowMs));
}

/** Whether one of the window's occurrences contains `nowMs` (start inclusive, end exclusive). */
export function isActive(window: MaintenanceWindowLike, nowMs: number): boolean {
  const startMs = Date.parse(window.startsAt);
  const durationMs = Date.parse(window.endsAt) - startMs;
  if (!Number.isFinite(startMs) || !(durationMs > 0) || nowMs < startMs) return false;
  const interval = window.repeatInterval ?? 0;
  if (interval < 1) return nowMs < startMs + durationMs;
  const lastStartMs = window.repeatEndsAt ? Date.parse(window.repeatEndsAt) : Number.POSITIVE_INFINITY;
  const occurrence = (k: number) => occurrenceStart(startMs, String(window.repeatUnit), interval * k);
  // Only occurrences that began within the last `durationMs` can contain now; months vary in
  // length, so bound the steps with the shortest and the longest period.
  const [shortestMs, longestMs] = periodsMs(String(window.repeatUnit)).map((ms) => ms * interval) as [number, number];
  const newest = Math.floor((nowMs - startMs) / shortestMs) + 1;
  const oldest = Math.max(0, Math.floor((nowMs - startMs - durationMs) / longestMs) - 1);
  for (let k = newest; k >= oldest; k--) {
    const begin = occurrence(k);
    if (begin > nowMs || begin > lastStartMs) continue;
    if (nowMs < begin + durationMs) return true;
  }
  return false;
}

function periodsMs(unit: string): [number, number] {
  if (unit === 'WEEK') return [7 * DAY_MS, 7 * DAY_MS];
  if (unit === 'MONTH') return [28 * DAY_MS, 31 * DAY_MS];
  return [DAY_MS, DAY_MS];
}

function occurrenceStart(startMs: number, unit: string, steps: number): number {
  if (unit === 'DAY') return startMs + steps * DAY_MS;
  if (unit === 'WEEK') return startMs + steps * 7 * DAY_MS;
  const start = new Date(startMs);
  const year = start.getUTCFullYear();
  const month = start.getUTCMonth() + steps;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(year, month, Math.min(start.getUTCDate(), lastDay), start.getUTCHours(), start.getUTCMinutes(), start.getUTCSeconds(), start.getUTCMilliseconds());
}
