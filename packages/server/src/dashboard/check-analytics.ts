/**
 * The numbers behind a check page's charts: response-time percentiles, availability and the mean of
 * each timing phase, per bucket of a quick range, with the analytics read side's rules
 * (`computeAnalytics`). Served as JSON to the page's chart script (`chartData`), and as one summary
 * row for the page's table (`chartSummary`, which does not bucket).
 *
 * Where the numbers come from:
 * - the last 24 hours: the raw results, exactly as `GET /v1/analytics/{kind}/{id}` answers (rollups
 *   past the raw retention);
 * - longer ranges: the hourly rollups (daily rows before the hourly rollups' retention) for every
 *   whole hour before the last day, the raw results for the last day from its first whole hour. A
 *   month at one result a minute is 43,200 rows to read but 720 hourly rows, which is what keeps the
 *   page near its budget. The window starts on a whole hour, so every hourly row falls in one
 *   bucket. Availability stays exact; percentiles are the histogram's (within 0.99 %); rollups keep
 *   no timing phases, so phases are those of the last day's results (`phasesFrom` says from when).
 *
 * Everything is read through the check-results port (facts, rollups, horizons), as the API's analytics.
 */
import type { AnalyticsKind } from '@vigil/schema';
import { readAnalyticsInputs, type AnalyticsInputs, type AnalyticsReads } from '../readside/analytics-rollups.js';
import { BASE_METRICS, computeAnalytics, type AnalyticsQuery } from '../readside/analytics.js';
import { DAY_MS, HOUR_MS } from '../store/port-rules.js';
import { quickRangeWindow, type TimeWindow } from '../readside/windows.js';

/** The quick ranges the page offers, with the bucket width that keeps each chart near 100–170 points. */
export const RANGES = {
  last24Hours: { label: 'Last 24 hours', bucketMinutes: 15 },
  last7Days: { label: 'Last 7 days', bucketMinutes: 60 },
  last30Days: { label: 'Last 30 days', bucketMinutes: 360 },
} as const;
export type DashboardRange = keyof typeof RANGES;

export function rangeOf(value: string | undefined | null): DashboardRange {
  return value !== undefined && value !== null && Object.hasOwn(RANGES, value) ? (value as DashboardRange) : 'last24Hours';
}

/** The analytics endpoint of each check type that has one (SSL, ICMP, traceroute and gRPC have none yet). */
const KIND_OF_TYPE: Readonly<Record<string, AnalyticsKind>> = {
  API: 'api-checks',
  URL: 'url-monitors',
  TCP: 'tcp-checks',
  MULTI_STEP: 'multistep-checks',
  DNS: 'dns',
  HEARTBEAT: 'heartbeat-checks',
  BROWSER: 'browser-checks',
  PLAYWRIGHT: 'playwright-checks',
};

export function analyticsKindOf(checkType: string): AnalyticsKind | undefined {
  return KIND_OF_TYPE[checkType];
}

export interface ChartMetrics {
  /** `<base>_p50`, `_p95`, `_p99` of the kind's response-time base, when it has one. */
  readonly percentiles: readonly string[];
  readonly availability: 'availability';
  /** `<phase>_avg` per timing phase of the kind, with its label. */
  readonly phases: ReadonlyArray<{ metric: string; label: string }>;
}

export function chartMetricsOf(kind: AnalyticsKind): ChartMetrics {
  const bases = Object.entries(BASE_METRICS[kind]);
  const responseTime = bases.find(([, metric]) => metric.source.kind === 'responseTime')?.[0];
  return {
    percentiles: responseTime === undefined ? [] : ['p50', 'p95', 'p99'].map((suffix) => `${responseTime}_${suffix}`),
    availability: 'availability',
    phases: bases.filter(([, metric]) => metric.source.kind === 'timingPhase').map(([name, metric]) => ({ metric: `${name}_avg`, label: metric.label })),
  };
}

/** What the page's table shows: the whole range as one row. */
export interface ChartSummary {
  readonly range: DashboardRange;
  readonly from: string;
  readonly to: string;
  readonly labels: Record<string, string>;
  readonly summary: Record<string, number | null>;
  /** Where the timing phases start when they cover less than the range (ISO 8601): rollups keep none. */
  readonly phasesFrom?: string;
}

export interface ChartData extends ChartSummary {
  /** Bucket starts, UNIX seconds (uPlot's x axis). */
  readonly timestamps: number[];
  /** Values per metric, aligned with `timestamps`; null where a bucket had none. */
  readonly series: Record<string, Array<number | null>>;
}

/**
 * The stored data a chart of `window` reads, as the top of this file says: raw results for a day or
 * less, else rollup rows up to `rawFrom` and raw results after it.
 */
async function chartInputs(results: AnalyticsReads, accountId: string, checkId: string, window: TimeWindow): Promise<AnalyticsInputs & { rawFrom: number }> {
  const horizons = await results.horizons();
  if (window.to - window.from <= DAY_MS) return { ...(await readAnalyticsInputs(results, accountId, checkId, window, horizons)), rawFrom: window.from };
  const rawFrom = Math.max(window.from, Math.floor((window.to - DAY_MS) / HOUR_MS) * HOUR_MS);
  // The last day as the API answers it (rollups only where its raw results are already pruned).
  const recent = await readAnalyticsInputs(results, accountId, checkId, { from: rawFrom, to: window.to }, horizons);
  // Hourly rows where they are still kept; whole days before that, as the API's coverage does.
  const hourlyFrom = horizons.hourly === undefined ? window.from : Math.min(Math.max(window.from, Math.ceil(horizons.hourly / DAY_MS) * DAY_MS), rawFrom);
  const daily = window.from < hourlyFrom ? await results.rollups(accountId, checkId, 'daily', window.from, hourlyFrom) : [];
  const hourly = hourlyFrom < rawFrom ? await results.rollups(accountId, checkId, 'hourly', hourlyFrom, rawFrom) : [];
  return { facts: recent.facts, rollups: [...(daily as AnalyticsInputs['rollups']), ...(hourly as AnalyticsInputs['rollups']), ...recent.rollups], rawFrom };
}

/** The window of a range: longer ranges start on the hour after `range` ago, so hourly rows fit the buckets. */
function chartWindow(range: DashboardRange, nowMs: number): TimeWindow {
  const window = quickRangeWindow(range, nowMs);
  return window.to - window.from <= DAY_MS ? window : { from: Math.ceil(window.from / HOUR_MS) * HOUR_MS, to: window.to };
}

interface ChartPlan {
  readonly window: TimeWindow;
  readonly metrics: string[];
  readonly labels: Record<string, string>;
  readonly inputs: AnalyticsInputs & { rawFrom: number };
  readonly query: AnalyticsQuery;
}

async function planChart(results: AnalyticsReads, accountId: string, checkId: string, kind: AnalyticsKind, range: DashboardRange, nowMs: number): Promise<ChartPlan> {
  const window = chartWindow(range, nowMs);
  const chosen = chartMetricsOf(kind);
  const metrics = [...chosen.percentiles, chosen.availability, ...chosen.phases.map((phase) => phase.metric)];
  const labels: Record<string, string> = {};
  for (const metric of chosen.percentiles) labels[metric] = metric.slice(metric.lastIndexOf('_') + 1);
  labels['availability'] = 'Availability';
  for (const phase of chosen.phases) labels[phase.metric] = phase.label;
  const inputs = await chartInputs(results, accountId, checkId, window);
  return { window, metrics, labels, inputs, query: { kind, metrics, window, page: 1, limit: 1 } };
}

function valuesOf(row: Record<string, unknown>, metrics: readonly string[]): Record<string, number | null> {
  const values: Record<string, number | null> = {};
  for (const metric of metrics) values[metric] = typeof row[metric] === 'number' ? (row[metric] as number) : null;
  return values;
}

function summaryOf(plan: ChartPlan, range: DashboardRange): ChartSummary {
  const { window, metrics, labels, inputs, query } = plan;
  const whole = computeAnalytics(inputs.facts, query, inputs.rollups);
  return {
    range,
    from: new Date(window.from).toISOString(),
    to: new Date(window.to).toISOString(),
    labels,
    summary: valuesOf(whole.series[0]?.data[0] ?? {}, metrics),
    ...(inputs.rawFrom > window.from ? { phasesFrom: new Date(inputs.rawFrom).toISOString() } : {}),
  };
}

/** The whole range as one row, for the page's table (no buckets: the chart script asks for those). */
export async function chartSummary(results: AnalyticsReads, accountId: string, checkId: string, kind: AnalyticsKind, range: DashboardRange, nowMs: number): Promise<ChartSummary> {
  return summaryOf(await planChart(results, accountId, checkId, kind, range, nowMs), range);
}

/** The range's buckets for the charts, and its summary row, from one read of the stored data. */
export async function chartData(results: AnalyticsReads, accountId: string, checkId: string, kind: AnalyticsKind, range: DashboardRange, nowMs: number): Promise<ChartData> {
  const plan = await planChart(results, accountId, checkId, kind, range, nowMs);
  const bucketed = computeAnalytics(plan.inputs.facts, { ...plan.query, aggregationInterval: RANGES[range].bucketMinutes }, plan.inputs.rollups);
  const rows = bucketed.series[0]?.data ?? [];
  const series: Record<string, Array<number | null>> = {};
  for (const metric of plan.metrics) series[metric] = rows.map((row) => (typeof row[metric] === 'number' ? (row[metric] as number) : null));
  return {
    ...summaryOf(plan, range),
    timestamps: rows.map((row) => Date.parse(String(row['timestamp'])) / 1000),
    series,
  };
}
