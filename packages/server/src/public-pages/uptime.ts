/**
 * The 90-day uptime bars of a status page's services: per UTC day, the share of the FINAL results of
 * the service's linked checks that passed, leaving out results inside a maintenance window that
 * covers their check. Read from the rollups rather than the results, so a page view costs a few
 * indexed reads however often the checks run:
 *
 * - a day no window touched counts its daily rollup rows (every location);
 * - a day a window touched counts the hourly rows of the hours the window does not touch; an hour
 *   it touches in part counts its raw FINAL results outside the window, while the raw results are
 *   still kept (`--retention`), and is left out whole after; an hour it covers whole is left out;
 * - a day a window touched whose hourly rows are already pruned (past the hourly rollups'
 *   retention) is left out whole, since a daily row cannot tell which results fell in the window.
 * A day with no result counted is "no data". The daily totals of every check on a page come from
 * one read (`dailyTotals`), without the rows' response-time histograms; a check a window touched
 * reads its hourly rows once for the days touched, and each hour touched in part its raw results
 * once, those reads of every check at once (on PostgreSQL each is a round trip).
 */
import type { CheckResults, DailyResultTotals } from '../store/ports.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** `[from, to)` in epoch milliseconds. */
export interface Interval {
  readonly from: number;
  readonly to: number;
}

/** Where uptime reads from: the results port, whichever replica recorded them. */
export type UptimeSource = Pick<CheckResults, 'horizons' | 'dailyTotals' | 'rollups' | 'facts'>;

export interface DayUptime {
  /** The UTC day, `YYYY-MM-DD`. */
  readonly day: string;
  readonly startMs: number;
  /** FINAL results counted, and how many of them passed. */
  results: number;
  passed: number;
  /** Whether a maintenance window touched the day for one of the checks (its results there were left out). */
  maintenance: boolean;
}

/** A linked check of a service, with the maintenance intervals covering it. */
export interface UptimeCheck {
  readonly checkId: string;
  readonly maintenance: readonly Interval[];
}

export interface UptimeRequest {
  readonly accountId: string;
  /** The service's linked checks. */
  readonly checks: readonly UptimeCheck[];
  readonly days: number;
  readonly nowMs: number;
}

/** The UTC days ending with today's, oldest first. */
export function dayWindow(days: number, nowMs: number): Interval {
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
  return { from: today - (days - 1) * DAY_MS, to: today + DAY_MS };
}

/** One service's bars. */
export async function uptimeDays(source: UptimeSource, request: UptimeRequest): Promise<DayUptime[]> {
  const { checks, ...rest } = request;
  return (await uptimeOfServices(source, { ...rest, services: new Map([['', checks]]) })).get('')!;
}

/** The bars of several services (a page's), with one read of their checks' daily totals. */
export async function uptimeOfServices(
  source: UptimeSource,
  request: Omit<UptimeRequest, 'checks'> & { readonly services: ReadonlyMap<string, readonly UptimeCheck[]> },
): Promise<Map<string, DayUptime[]>> {
  const window = dayWindow(request.days, request.nowMs);
  const checkIds = [...new Set([...request.services.values()].flatMap((checks) => checks.map((check) => check.checkId)))];
  const [daily, horizons] = await Promise.all([
    checkIds.length === 0 ? new Map<string, DailyResultTotals[]>() : source.dailyTotals(request.accountId, checkIds, window.from, window.to),
    source.horizons(),
  ]);
  const dayNames: Array<{ day: string; startMs: number }> = [];
  for (let start = window.from; start < window.to; start += DAY_MS) dayNames.push({ day: new Date(start).toISOString().slice(0, 10), startMs: start });
  const byService = new Map<string, DayUptime[]>();
  const reads: Array<Promise<void>> = [];
  for (const [serviceId, checks] of request.services) {
    const out: DayUptime[] = dayNames.map(({ day, startMs }) => ({ day, startMs, results: 0, passed: 0, maintenance: false }));
    for (const check of checks) reads.push(addCheck(source, request.accountId, { check, days: out, window, horizons, daily: daily.get(check.checkId) ?? [] }));
    byService.set(serviceId, out);
  }
  await Promise.all(reads);
  return byService;
}

async function addCheck(
  source: UptimeSource,
  accountId: string,
  { check, days, window, horizons, daily }: { check: UptimeCheck; days: DayUptime[]; window: Interval; horizons: { hourly?: number; raw?: number }; daily: readonly DailyResultTotals[] },
): Promise<void> {
  const intervals = merged(check.maintenance);
  const touches = (from: number, to: number) => intervals.some((each) => each.from < to && each.to > from);
  const covers = (from: number, to: number) => intervals.some((each) => each.from <= from && each.to >= to);
  for (const row of daily) {
    if (touches(row.startMs, row.startMs + DAY_MS)) continue;
    add(days[(row.startMs - window.from) / DAY_MS], row.results, row.results - row.failures);
  }
  if (intervals.length === 0) return;
  const touched = days.filter((day) => touches(day.startMs, day.startMs + DAY_MS));
  for (const day of touched) day.maintenance = true;
  const readable = touched.filter((day) => horizons.hourly === undefined || day.startMs >= horizons.hourly);
  if (readable.length === 0) return;
  const byStart = new Map(readable.map((day) => [day.startMs, day]));
  const hourly = await source.rollups(accountId, check.checkId, 'hourly', readable[0]!.startMs, readable.at(-1)!.startMs + DAY_MS);
  // Hours a window touches in part, each read once however many locations' rows it has.
  const partHours = new Map<number, DayUptime>();
  for (const row of hourly) {
    const day = byStart.get(Math.floor(row.startMs / DAY_MS) * DAY_MS);
    if (!day) continue;
    const hourEnd = row.startMs + HOUR_MS;
    if (!touches(row.startMs, hourEnd)) add(day, row.results, row.results - row.failures);
    else if (!covers(row.startMs, hourEnd) && (horizons.raw === undefined || row.startMs >= horizons.raw)) partHours.set(row.startMs, day);
  }
  await Promise.all(
    [...partHours].map(async ([hourStart, day]) => {
      const outside = (await source.facts(accountId, check.checkId, hourStart, hourStart + HOUR_MS)).filter(
        (fact) => fact.resultType === 'FINAL' && !touches(fact.createdAt, fact.createdAt + 1),
      );
      add(day, outside.length, outside.filter((fact) => !fact.hasFailures).length);
    }),
  );
}

/** The share of passing results over the days, undefined when none was counted. */
export function shareOf(days: readonly Pick<DayUptime, 'results' | 'passed'>[]): number | undefined {
  let results = 0;
  let passed = 0;
  for (const day of days) {
    results += day.results;
    passed += day.passed;
  }
  return results === 0 ? undefined : passed / results;
}

/**
 * A share as a visitor reads it: two decimals, never rounded up to 100 % while a result failed
 * (99.996 % shows as 99.99 %, not 100.00 %).
 */
export function percent(share: number): string {
  return `${(Math.floor(share * 10_000) / 100).toFixed(2)} %`;
}

function add(day: DayUptime | undefined, results: number, passed: number): void {
  if (!day) return;
  day.results += results;
  day.passed += passed;
}

/** Overlapping or adjacent intervals joined, so "covers" sees a run of windows as one. */
function merged(intervals: readonly Interval[]): Interval[] {
  const sorted = [...intervals].sort((a, b) => a.from - b.from);
  const out: Interval[] = [];
  for (const each of sorted) {
    const last = out.at(-1);
    if (last && each.from <= last.to) out[out.length - 1] = { from: last.from, to: Math.max(last.to, each.to) };
    else out.push(each);
  }
  return out;
}
