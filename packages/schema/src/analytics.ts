/**
 * Analytics: the per-type endpoints (the spec's three, and those the real
 * document adds for DNS, URL, heartbeat, browser and Playwright checks), their metric names and
 * `groupBy` values as data, their queries and the report.
 */
import { z } from 'zod';
import { queryInt, queryList } from './helpers.js';
import { AGGREGATION_INTERVAL_MAX, AGGREGATION_INTERVAL_MIN, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, LIST_LIMIT_MIN, PAGE_DEFAULT, PAGE_MIN } from './limits.js';
import { CheckType, QuickRange, StatusFilter } from './values.js';

/** Aggregation suffixes: `<base>_<suffix>` for every time base. */
export const METRIC_SUFFIXES = ['avg', 'max', 'median', 'min', 'p50', 'p90', 'p95', 'p99', 'stddev', 'sum'] as const;
export type MetricSuffix = (typeof METRIC_SUFFIXES)[number];

/** Which analytics endpoint: the path segment after `/v1/analytics/`. */
export const ANALYTICS_KINDS = [
  'api-checks', 'tcp-checks', 'multistep-checks', 'dns', 'url-monitors', 'heartbeat-checks', 'browser-checks', 'playwright-checks',
] as const;
export type AnalyticsKind = (typeof ANALYTICS_KINDS)[number];

/**
 * Per endpoint: base metrics (each usable alone), which of them are time bases (which also take
 * every suffix), and the allowed `groupBy` values.
 */
export const ANALYTICS_DEFINITIONS = {
  'api-checks': {
    baseMetrics: ['responseTime', 'wait', 'dns', 'tcp', 'firstByte', 'download', 'availability', 'retries'],
    timeBases: ['responseTime', 'wait', 'dns', 'tcp', 'firstByte', 'download'],
    groupBy: ['runLocation', 'statusCode'],
  },
  'tcp-checks': {
    baseMetrics: ['total', 'dns', 'connection', 'data', 'availability', 'retries'],
    timeBases: ['total', 'dns', 'connection', 'data'],
    groupBy: ['runLocation'],
  },
  'multistep-checks': {
    baseMetrics: ['responseTime', 'availability', 'retries'],
    timeBases: ['responseTime'],
    groupBy: ['runLocation'],
  },
  /** DNS monitors: the real OpenAPI's `/v1/analytics/dns/{id}` (`AnalyticsDnsMonitorMetadata`). */
  dns: {
    baseMetrics: ['total', 'availability', 'retries'],
    timeBases: ['total'],
    groupBy: ['runLocation'],
  },
  /** URL monitors: the real document's `/v1/analytics/url-monitors/{id}`, an API check's metrics. */
  'url-monitors': {
    baseMetrics: ['responseTime', 'wait', 'dns', 'tcp', 'firstByte', 'download', 'availability', 'retries'],
    timeBases: ['responseTime', 'wait', 'dns', 'tcp', 'firstByte', 'download'],
    groupBy: ['runLocation', 'statusCode'],
  },
  /** Heartbeat monitors: `/v1/analytics/heartbeat-checks/{id}`; no time metrics, no grouping, no buckets. */
  'heartbeat-checks': {
    baseMetrics: ['availability', 'retries'],
    timeBases: [],
    groupBy: [],
  },
  /**
   * Browser checks: `/v1/analytics/browser-checks/{id}`. The web vitals and error counts are the
   * document's names; results here do not record them, so their values are null (readside/analytics.ts).
   */
  'browser-checks': {
    baseMetrics: ['responseTime', 'TTFB', 'FCP', 'LCP', 'CLS', 'TBT', 'consoleErrors', 'networkErrors', 'userScriptErrors', 'documentErrors', 'availability', 'retries'],
    timeBases: ['responseTime', 'TTFB', 'FCP', 'LCP', 'CLS', 'TBT', 'consoleErrors', 'networkErrors', 'userScriptErrors', 'documentErrors'],
    groupBy: ['runLocation'],
  },
  /** Playwright check suites: `/v1/analytics/playwright-checks/{id}`. */
  'playwright-checks': {
    baseMetrics: ['responseTime', 'availability', 'retries'],
    timeBases: ['responseTime'],
    groupBy: ['runLocation'],
  },
} as const satisfies Record<AnalyticsKind, { baseMetrics: readonly string[]; timeBases: readonly string[]; groupBy: readonly string[] }>;

/** Every metric name an endpoint accepts: its base metrics, then `<base>_<suffix>` per time base. */
export function analyticsMetricNames(kind: AnalyticsKind): string[] {
  const def = ANALYTICS_DEFINITIONS[kind];
  return [...def.baseMetrics, ...def.timeBases.flatMap((base) => METRIC_SUFFIXES.map((s) => `${base}_${s}`))];
}

type Suffixed<B extends string> = `${B}_${MetricSuffix}`;
type MetricsOf<K extends AnalyticsKind> =
  | (typeof ANALYTICS_DEFINITIONS)[K]['baseMetrics'][number]
  | Suffixed<(typeof ANALYTICS_DEFINITIONS)[K]['timeBases'][number]>;

export type ApiCheckMetric = MetricsOf<'api-checks'>;
export type TcpCheckMetric = MetricsOf<'tcp-checks'>;
export type MultiStepCheckMetric = MetricsOf<'multistep-checks'>;

const metricEnum = <K extends AnalyticsKind>(kind: K) =>
  z.enum(analyticsMetricNames(kind) as [MetricsOf<K>, ...MetricsOf<K>[]]);

export const ApiCheckMetricName = metricEnum('api-checks');
export const TcpCheckMetricName = metricEnum('tcp-checks');
export const MultiStepCheckMetricName = metricEnum('multistep-checks');
export const DnsMonitorMetricName = metricEnum('dns');
export const UrlMonitorMetricName = metricEnum('url-monitors');
export const HeartbeatCheckMetricName = metricEnum('heartbeat-checks');
export const BrowserCheckMetricName = metricEnum('browser-checks');
export const PlaywrightCheckMetricName = metricEnum('playwright-checks');

function analyticsQuery<M extends z.ZodType<string, string>, G extends z.ZodType<string, string>>(metric: M, groupBy: G) {
  return z.object({
    /** UNIX seconds; overrides `quickRange`. */
    from: queryInt().min(0).optional(),
    /** UNIX seconds; overrides `quickRange`. */
    to: queryInt().min(0).optional(),
    quickRange: QuickRange.default('last24Hours'),
    /** Bucket width in minutes. */
    aggregationInterval: queryInt().min(AGGREGATION_INTERVAL_MIN).max(AGGREGATION_INTERVAL_MAX).optional(),
    filterByStatus: queryList(StatusFilter).optional(),
    groupBy: groupBy.optional(),
    /** Required; comma-separated or repeated. */
    metrics: queryList(metric, { min: 1 }),
    limit: queryInt().min(LIST_LIMIT_MIN).max(LIST_LIMIT_MAX).default(LIST_LIMIT_DEFAULT),
    page: queryInt().min(PAGE_MIN).default(PAGE_DEFAULT),
  });
}

export const ApiCheckAnalyticsQuery = analyticsQuery(ApiCheckMetricName, z.enum(ANALYTICS_DEFINITIONS['api-checks'].groupBy));
export type ApiCheckAnalyticsQuery = z.infer<typeof ApiCheckAnalyticsQuery>;
export const TcpCheckAnalyticsQuery = analyticsQuery(TcpCheckMetricName, z.enum(ANALYTICS_DEFINITIONS['tcp-checks'].groupBy));
export type TcpCheckAnalyticsQuery = z.infer<typeof TcpCheckAnalyticsQuery>;
export const MultiStepCheckAnalyticsQuery = analyticsQuery(
  MultiStepCheckMetricName,
  z.enum(ANALYTICS_DEFINITIONS['multistep-checks'].groupBy),
);
export type MultiStepCheckAnalyticsQuery = z.infer<typeof MultiStepCheckAnalyticsQuery>;
export const DnsMonitorAnalyticsQuery = analyticsQuery(DnsMonitorMetricName, z.enum(ANALYTICS_DEFINITIONS.dns.groupBy));
export type DnsMonitorAnalyticsQuery = z.infer<typeof DnsMonitorAnalyticsQuery>;
export const UrlMonitorAnalyticsQuery = analyticsQuery(UrlMonitorMetricName, z.enum(ANALYTICS_DEFINITIONS['url-monitors'].groupBy));
export type UrlMonitorAnalyticsQuery = z.infer<typeof UrlMonitorAnalyticsQuery>;
/**
 * The pageIndex grouping the document lists is not offered: results here hold one set of numbers
 * per run, not per page, so it is refused (400 naming `groupBy`) rather than answered wrongly.
 */
export const BrowserCheckAnalyticsQuery = analyticsQuery(BrowserCheckMetricName, z.enum(ANALYTICS_DEFINITIONS['browser-checks'].groupBy));
export type BrowserCheckAnalyticsQuery = z.infer<typeof BrowserCheckAnalyticsQuery>;
export const PlaywrightCheckAnalyticsQuery = analyticsQuery(PlaywrightCheckMetricName, z.enum(ANALYTICS_DEFINITIONS['playwright-checks'].groupBy));
export type PlaywrightCheckAnalyticsQuery = z.infer<typeof PlaywrightCheckAnalyticsQuery>;
/** Heartbeats, as the document has them: no `groupBy`, no `aggregationInterval`, `metrics` default `availability`. */
export const HeartbeatCheckAnalyticsQuery = z.object({
  from: queryInt().min(0).optional(),
  to: queryInt().min(0).optional(),
  quickRange: QuickRange.default('last24Hours'),
  filterByStatus: queryList(StatusFilter).optional(),
  metrics: queryList(HeartbeatCheckMetricName, { min: 1 }).default(['availability']),
  limit: queryInt().min(LIST_LIMIT_MIN).max(LIST_LIMIT_MAX).default(LIST_LIMIT_DEFAULT),
  page: queryInt().min(PAGE_MIN).default(PAGE_DEFAULT),
});
export type HeartbeatCheckAnalyticsQuery = z.infer<typeof HeartbeatCheckAnalyticsQuery>;

/** Query schema per analytics endpoint. */
export const ANALYTICS_QUERIES = {
  'api-checks': ApiCheckAnalyticsQuery,
  'tcp-checks': TcpCheckAnalyticsQuery,
  'multistep-checks': MultiStepCheckAnalyticsQuery,
  dns: DnsMonitorAnalyticsQuery,
  'url-monitors': UrlMonitorAnalyticsQuery,
  'heartbeat-checks': HeartbeatCheckAnalyticsQuery,
  'browser-checks': BrowserCheckAnalyticsQuery,
  'playwright-checks': PlaywrightCheckAnalyticsQuery,
} as const;

export const MetricMetadata = z.object({ unit: z.string(), label: z.string(), aggregation: z.string() });
export type MetricMetadata = z.infer<typeof MetricMetadata>;

/**
 * One series of the report: the group it belongs to (empty without `groupBy`) and one point per
 * bucket, each holding the requested metrics.
 */
export const AnalyticsSeries = z.object({
  runLocation: z.string().optional(),
  statusCode: z.number().optional(),
  data: z.array(z.record(z.string(), z.union([z.number(), z.string(), z.null()]))),
});
export type AnalyticsSeries = z.infer<typeof AnalyticsSeries>;

/** Response of the three analytics endpoints. */
export const AnalyticsReport = z.object({
  checkId: z.string(),
  name: z.string(),
  checkType: CheckType,
  activated: z.boolean(),
  muted: z.boolean(),
  frequency: z.number(),
  from: z.string(),
  to: z.string(),
  tags: z.array(z.string()),
  series: z.array(AnalyticsSeries),
  pagination: z.object({ page: z.number(), limit: z.number() }),
  metadata: z.record(z.string(), MetricMetadata),
});
export type AnalyticsReport = z.infer<typeof AnalyticsReport>;
