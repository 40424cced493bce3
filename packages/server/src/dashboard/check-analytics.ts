/**
 * The numbers behind a check page's charts, computed by the analytics read side exactly as
 * `GET /v1/analytics/{kind}/{id}` computes them (raw results, and rollups past the raw retention):
 * response-time percentiles, availability and the mean of each timing phase, per bucket of a quick
 * range. Served as JSON to the page's chart script, and as a summary row for the page's table.
 */
import type { AnalyticsKind } from '@vigil/schema';
import { analyticsInputs } from '../readside/analytics-rollups.js';
import { BASE_METRICS, computeAnalytics } from '../readside/analytics.js';
import type { ResultsStore } from '../readside/results-store.js';
import { quickRangeWindow } from '../readside/windows.js';

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

export interface ChartData {
  readonly range: DashboardRange;
  readonly from: string;
  readonly to: string;
  /** Bucket starts, UNIX seconds (uPlot's x axis). */
  readonly timestamps: number[];
  /** Values per metric, aligned with `timestamps`; null where a bucket had none. */
  readonly series: Record<string, Array<number | null>>;
  readonly labels: Record<string, string>;
  /** The whole range as one row: what the page's summary table shows. */
  readonly summary: Record<string, number | null>;
}

export function chartData(results: ResultsStore, accountId: string, checkId: string, kind: AnalyticsKind, range: DashboardRange, nowMs: number): ChartData {
  const window = quickRangeWindow(range, nowMs);
  const chosen = chartMetricsOf(kind);
  const metrics = [...chosen.percentiles, chosen.availability, ...chosen.phases.map((phase) => phase.metric)];
  const { facts, rollups } = analyticsInputs(results, accountId, checkId, window);
  const bucketed = computeAnalytics(facts, { kind, metrics, window, aggregationInterval: RANGES[range].bucketMinutes, page: 1, limit: 1 }, rollups);
  const whole = computeAnalytics(facts, { kind, metrics, window, page: 1, limit: 1 }, rollups);
  const rows = bucketed.series[0]?.data ?? [];
  const series: Record<string, Array<number | null>> = {};
  for (const metric of metrics) series[metric] = rows.map((row) => (typeof row[metric] === 'number' ? (row[metric] as number) : null));
  const labels: Record<string, string> = {};
  for (const metric of chosen.percentiles) labels[metric] = metric.slice(metric.lastIndexOf('_') + 1);
  labels['availability'] = 'Availability';
  for (const phase of chosen.phases) labels[phase.metric] = phase.label;
  const summaryRow = whole.series[0]?.data[0] ?? {};
  const summary: Record<string, number | null> = {};
  for (const metric of metrics) summary[metric] = typeof summaryRow[metric] === 'number' ? (summaryRow[metric] as number) : null;
  return {
    range,
    from: new Date(window.from).toISOString(),
    to: new Date(window.to).toISOString(),
    timestamps: rows.map((row) => Date.parse(String(row['timestamp'])) / 1000),
    series,
    labels,
    summary,
  };
}
