/**
 * Wall-clock arithmetic in a named IANA time zone, with Intl (no time-zone database of our own).
 * A "wall" value is the local date and time written as if it were UTC epoch milliseconds, so
 * calendar steps (a day, a month) are plain UTC arithmetic on it, and `instantOf` turns it back into
 * a real instant with the zone's offset at that moment — which is what keeps a window that starts at
 * 02:00 Amsterdam time at 02:00 local on both sides of a daylight-saving change.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Whether the zone is UTC for our purposes (no zone, or a spelling of UTC): arithmetic needs no Intl. */
export function isUtc(zone: string | null | undefined): boolean {
  return zone === null || zone === undefined || zone === '' || zone === 'UTC' || zone === 'Etc/UTC';
}

/** The local wall-clock time of `instantMs` in `zone`, as wall milliseconds. */
export function wallOf(instantMs: number, zone: string | null | undefined): number {
  if (isUtc(zone)) return instantMs;
  const parts: Record<string, number> = {};
  for (const part of formatterOf(zone!).formatToParts(new Date(instantMs))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const subSecond = ((instantMs % 1000) + 1000) % 1000;
  return Date.UTC(parts['year']!, parts['month']! - 1, parts['day']!, parts['hour']!, parts['minute']!, parts['second']!, subSecond);
}

/**
 * The instant whose local time in `zone` is `wallMs`. A local time that happens twice (the hour
 * repeated when clocks go back) is its first occurrence; one that never happens (skipped when
 * clocks go forward) is read with the offset from before the change, i.e. moved forward by the gap.
 */
export function instantOf(wallMs: number, zone: string | null | undefined): number {
  if (isUtc(zone)) return wallMs;
  const offsetAt = (instant: number) => wallOf(instant, zone) - instant;
  const before = offsetAt(wallMs - 36 * 60 * 60 * 1000);
  const after = offsetAt(wallMs + 36 * 60 * 60 * 1000);
  const early = wallMs - Math.max(before, after);
  const late = wallMs - Math.min(before, after);
  if (wallOf(early, zone) === wallMs) return early;
  if (wallOf(late, zone) === wallMs) return late;
  // Skipped local time: the offset in force before the change.
  return wallMs - before;
}

/** `wallMs` moved by `steps` calendar units; a month too short for the day takes its last day. */
export function addCalendarUnits(wallMs: number, unit: string, steps: number): number {
  const DAY_MS = 24 * 60 * 60 * 1000;
  if (unit === 'DAY') return wallMs + steps * DAY_MS;
  if (unit === 'WEEK') return wallMs + steps * 7 * DAY_MS;
  const start = new Date(wallMs);
  const year = start.getUTCFullYear();
  const month = start.getUTCMonth() + steps;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(year, month, Math.min(start.getUTCDate(), lastDay), start.getUTCHours(), start.getUTCMinutes(), start.getUTCSeconds(), start.getUTCMilliseconds());
}
