/**
 * Analytics reports computed from stored check results.
 *
 * Decisions, documented here because clients chart these numbers:
 * - Only FINAL results count; ATTEMPT results are retries whose outcome the FINAL result carries.
 * - Base metric mapping: `responseTime` (API, multi-step) and `total` (TCP, DNS) are the result's
 *   `responseTime`; the other time bases are `apiCheckResult.response.timingPhases.<base>`;
 *   `availability` is the percentage (0..100) of results without failures; `retries` is the sum of
 *   the results' `attempts`.
 * - A time base without a suffix is its average (metadata aggregation `avg`): the report's values
 *   are numbers (@vigil/schema `AnalyticsSeries`), so "non-aggregated" cannot mean a list of values.
 * - A series' `data` is an array of rows, each with `timestamp` (ISO 8601 start of the row's span)
 *   and one value per requested metric. Without `aggregationInterval` there is one row for the whole
 *   window; with it, one row per non-empty bucket. Buckets are aligned to the window start: bucket
 *   k is `[from + k·interval, from + (k+1)·interval)`. An aggregation over no values is null.
 * - `groupBy` splits the results into one series per value, carrying the value under the groupBy
 *   name (`{runLocation: "eu-west-1", data}`); series are ordered by that value (status codes
 *   numerically; a run without a response is status code 0). Ungrouped reports have exactly one series;
 *   grouped reports of an empty window have none.
 * - `limit`/`page` page the series (a grouped report has one series per location or status code).
 * - Browser checks' web vitals (`TTFB`, `FCP`, `LCP`, `CLS`, `TBT`) and error counts are names the
 *   real document offers, but a run here records none of them: their values are null (no values),
 *   never 0, which would read as a measurement.
 *
 * Past the raw retention (analytics-rollups.ts):
 * - A window starting before the raw-result horizon (the cutoff of the last prune: results created
 *   before it are deleted) is answered from hourly and daily rollups for its older part and from raw
 *   results for the rest. The raw part starts at the first full hour after the horizon; hourly rows
 *   answer before it, daily rows before the hourly rows' own horizon (rounded to a whole day). A
 *   window starting at or after the horizon is raw results only, exactly as before. A rollup row
 *   counts when its hour (day) starts inside the window, so a window starting mid-hour in the rollup
 *   part leaves that hour out, and one ending mid-hour there counts the whole hour.
 * - From rollups: `availability`, `retries`, and the response time base (`responseTime`, `total`)
 *   with every suffix. count, sum, min, max, avg and stddev are exact; median and percentiles come
 *   from a log-scale histogram and are within 0.99 % of the exact value (plus 0.5 ms where response
 *   times below 1 ms take part; rollup-histogram.ts), also for a row mixing raw results and rollups.
 * - Not from rollups, which keep no phases, status codes or outcome per response time: the timing
 *   phases (`wait`, `dns`, `tcp`, `firstByte`, `download`, `connection`, `data`) are null for the
 *   rollup part (a row wholly in it is null; a row spanning both parts aggregates its raw results'
 *   phases only); `groupBy=statusCode` leaves the rollup part out of every series (no rows there);
 *   a `filterByStatus` keeping only one of success/failure leaves the rollup part out entirely.
 * - With `aggregationInterval`, rollup rows are bucketed by their start like results by their
 *   creation: an interval shorter than the rollup's hour (day) gives one row per hour (day) there,
 *   stamped with the start of the bucket the hour (day) starts in.
 */
import type { AnalyticsKind, StatusFilter } from '@vigil/schema';
import { aggregate, AGGREGATIONS, assertNever, type Aggregation } from './stats.js';
import { responseTimeWithRollups, totalsOf, type RollupTotals } from './analytics-rollups.js';
import type { RolledUpResults } from '../store/ports.js';
import type { ResultFacts } from '../store/formats/result-facts.js';
import { inWindow, type TimeWindow } from './windows.js';

export type { AnalyticsKind, StatusFilter };
export type MetricUnit = 'milliseconds' | 'percentage' | 'count';
/** Every `groupBy` of the three endpoints (@vigil/schema narrows it per endpoint). */
export type AnalyticsGroupBy = 'runLocation' | 'statusCode';

type BaseMetricSource =
  | { kind: 'responseTime' }
  | { kind: 'timingPhase'; phase: string }
  | { kind: 'availability' }
  | { kind: 'retries' }
  /** A metric the real document names that results here do not record (browser web vitals): always null. */
  | { kind: 'unrecorded' };

interface BaseMetric {
  label: string;
  unit: MetricUnit;
  source: BaseMetricSource;
}

const RESPONSE_TIME: BaseMetric = { label: 'Response time', unit: 'milliseconds', source: { kind: 'responseTime' } };
const AVAILABILITY: BaseMetric = { label: 'Availability', unit: 'percentage', source: { kind: 'availability' } };
const RETRIES: BaseMetric = { label: 'Retries', unit: 'count', source: { kind: 'retries' } };

function phase(label: string, name: string): BaseMetric {
  return { label, unit: 'milliseconds', source: { kind: 'timingPhase', phase: name } };
}

function unrecorded(label: string, unit: MetricUnit): BaseMetric {
  return { label, unit, source: { kind: 'unrecorded' } };
}

/** Whether a base takes the ten suffixes: the time bases, and the unrecorded ones the document suffixes too. */
function takesSuffixes(metric: BaseMetric): boolean {
  return metric.unit === 'milliseconds' || metric.source.kind === 'unrecorded';
}

const API_METRICS: Readonly<Record<string, BaseMetric>> = {
  responseTime: RESPONSE_TIME,
  wait: phase('Wait', 'wait'),
  dns: phase('DNS', 'dns'),
  tcp: phase('TCP', 'tcp'),
  firstByte: phase('First byte', 'firstByte'),
  download: phase('Download', 'download'),
  availability: AVAILABILITY,
  retries: RETRIES,
};

/**
 * Base metrics per endpoint with their mapping; the time bases (unit milliseconds) also take the ten
 * suffixes. The names are those of @vigil/schema `ANALYTICS_DEFINITIONS` (a unit test holds them equal).
 */
export const BASE_METRICS: Readonly<Record<AnalyticsKind, Readonly<Record<string, BaseMetric>>>> = {
  'api-checks': API_METRICS,
  // A URL monitor's result is an API check's (`apiCheckResult` with the same timing phases).
  'url-monitors': API_METRICS,
  'tcp-checks': {
    total: { ...RESPONSE_TIME, label: 'Total' },
    dns: phase('DNS', 'dns'),
    connection: phase('Connection', 'connection'),
    data: phase('Data', 'data'),
    availability: AVAILABILITY,
    retries: RETRIES,
  },
  'multistep-checks': {
    responseTime: RESPONSE_TIME,
    availability: AVAILABILITY,
    retries: RETRIES,
  },
  dns: {
    total: { ...RESPONSE_TIME, label: 'Total' },
    availability: AVAILABILITY,
    retries: RETRIES,
  },
  // A heartbeat's results are its deadlines met (passing) or missed (failing).
  'heartbeat-checks': {
    availability: AVAILABILITY,
    retries: RETRIES,
  },
  'browser-checks': {
    responseTime: RESPONSE_TIME,
    TTFB: unrecorded('Time to first byte', 'milliseconds'),
    FCP: unrecorded('First contentful paint', 'milliseconds'),
    LCP: unrecorded('Largest contentful paint', 'milliseconds'),
    CLS: unrecorded('Cumulative layout shift', 'count'),
    TBT: unrecorded('Total blocking time', 'milliseconds'),
    consoleErrors: unrecorded('Console errors', 'count'),
    networkErrors: unrecorded('Network errors', 'count'),
    userScriptErrors: unrecorded('User script errors', 'count'),
    documentErrors: unrecorded('Document errors', 'count'),
    availability: AVAILABILITY,
    retries: RETRIES,
  },
  'playwright-checks': {
    responseTime: RESPONSE_TIME,
    availability: AVAILABILITY,
    retries: RETRIES,
  },
};

/** Every metric name an endpoint accepts: its bases plus `<timeBase>_<suffix>`. */
export function metricNames(kind: AnalyticsKind): string[] {
  const bases = Object.entries(BASE_METRICS[kind]);
  const suffixed = bases
    .filter(([, metric]) => takesSuffixes(metric))
    .flatMap(([name]) => AGGREGATIONS.map((aggregation) => `${name}_${aggregation}`));
  return [...bases.map(([name]) => name), ...suffixed];
}

export interface ParsedMetric {
  name: string;
  base: BaseMetric;
  /** The suffix; absent for base metrics (see `metadataOf` for how those aggregate). */
  aggregation?: Aggregation;
}

/** Parses a metric name for an endpoint; `undefined` when the endpoint does not offer it. */
export function parseMetric(kind: AnalyticsKind, name: string): ParsedMetric | undefined {
  const bases = BASE_METRICS[kind];
  const direct = Object.hasOwn(bases, name) ? bases[name] : undefined;
  if (direct) return { name, base: direct };
  const cut = name.lastIndexOf('_');
  if (cut < 0) return undefined;
  const baseName = name.slice(0, cut);
  const suffix = name.slice(cut + 1);
  const base = Object.hasOwn(bases, baseName) ? bases[baseName] : undefined;
  const aggregation = AGGREGATIONS.find((a) => a === suffix);
  if (!base || !takesSuffixes(base) || !aggregation) return undefined;
  return { name, base, aggregation };
}

export interface MetricMetadata {
  unit: MetricUnit;
  label: string;
  /**
   * How the value is computed: the suffix for suffixed metrics; `avg` for an unsuffixed time base
   * and for availability (the mean of per-result 0/100 scores); `sum` for retries.
   */
  aggregation: Aggregation;
}

/** The `metadata` entry of a metric. */
export function metadataOf(metric: ParsedMetric): MetricMetadata {
  const { base, aggregation } = metric;
  if (aggregation) return { unit: base.unit, label: `${base.label} (${aggregation})`, aggregation };
  switch (base.source.kind) {
    case 'retries':
      return { unit: base.unit, label: base.label, aggregation: 'sum' };
    case 'availability':
    case 'responseTime':
    case 'timingPhase':
    case 'unrecorded':
      return { unit: base.unit, label: base.label, aggregation: 'avg' };
    default:
      return assertNever(base.source);
  }
}

export interface AnalyticsQuery {
  kind: AnalyticsKind;
  metrics: readonly string[];
  window: TimeWindow;
  groupBy?: AnalyticsGroupBy | undefined;
  /** Bucket width in minutes. */
  aggregationInterval?: number | undefined;
  filterByStatus?: readonly StatusFilter[] | undefined;
  page: number;
  limit: number;
}

export type SeriesRow = Record<string, number | string | null>;
export interface SeriesEntry {
  runLocation?: string;
  statusCode?: number;
  data: SeriesRow[];
}

export interface AnalyticsComputation {
  series: SeriesEntry[];
  metadata: Record<string, MetricMetadata>;
  /** Number of series before paging, for paging headers. */
  totalSeries: number;
}

/**
 * Computes the `series` and `metadata` of a report from a check's stored results and, for the part
 * of the window raw results no longer cover, its rollup rows (analytics-rollups.ts `analyticsInputs`).
 */
export function computeAnalytics(results: readonly ResultFacts[], query: AnalyticsQuery, rollupRows: readonly RolledUpResults[] = []): AnalyticsComputation {
  const metrics = query.metrics.map((name) => {
    const parsed = parseMetric(query.kind, name);
    if (!parsed) throw new Error(`this is a bug in vigil: metric ${name} passed validation for ${query.kind}`);
    return parsed;
  });
  const statuses = new Set(query.filterByStatus ?? []);
  const wanted = results
    .filter((r) => r.resultType === 'FINAL' && inWindow(r.createdAt, query.window))
    .filter((r) => statuses.size === 0 || statuses.has(r.hasFailures ? 'failure' : 'success'))
    .sort((a, b) => a.createdAt - b.createdAt || compareText(a.id, b.id));
  // A rollup row does not say which of its response times failed: a one-sided filter cannot split it.
  const rollups = statuses.size === 1 ? [] : rollupRows.filter((row) => inWindow(row.startMs, query.window));

  const groups = groupResults(wanted, rollups, query.groupBy);
  const start = (query.page - 1) * query.limit;
  const series = groups.slice(start, start + query.limit).map(({ key, members, rollups: rollupMembers }): SeriesEntry => {
    const data = query.aggregationInterval === undefined
      ? [{ timestamp: new Date(query.window.from).toISOString(), ...rowOf(members, rollupMembers, metrics) }]
      : bucketRows(members, rollupMembers, metrics, query.window.from, query.aggregationInterval * 60_000);
    switch (query.groupBy) {
      case undefined:
        return { data };
      case 'runLocation':
        return { runLocation: String(key), data };
      case 'statusCode':
        return { statusCode: Number(key), data };
      default:
        return assertNever(query.groupBy);
    }
  });
  const metadata: Record<string, MetricMetadata> = {};
  for (const metric of metrics) metadata[metric.name] = metadataOf(metric);
  return { series, metadata, totalSeries: groups.length };
}

interface Group {
  /** The groupBy value; null for the single series of an ungrouped report. */
  key: string | number | null;
  members: ResultFacts[];
  rollups: RolledUpResults[];
}

function groupResults(results: readonly ResultFacts[], rollups: readonly RolledUpResults[], groupBy: AnalyticsGroupBy | undefined): Group[] {
  // Without groupBy the one series exists even when empty, so a chart still gets its null row.
  if (groupBy === undefined) return [{ key: null, members: [...results], rollups: [...rollups] }];
  const byKey = new Map<string | number | null, Group>();
  const groupOf = (key: string | number) => {
    let group = byKey.get(key);
    if (!group) byKey.set(key, (group = { key, members: [], rollups: [] }));
    return group;
  };
  // A run without a response (DNS failure, timeout) is status code 0, as browsers report it.
  for (const result of results) groupOf(groupBy === 'runLocation' ? result.runLocation : (result.statusCode ?? 0)).members.push(result);
  // Rollup rows keep the location but no status codes.
  if (groupBy === 'runLocation') for (const row of rollups) groupOf(row.location).rollups.push(row);
  return [...byKey.values()].sort((a, b) => compareKeys(a.key, b.key));
}

function bucketRows(
  results: readonly ResultFacts[],
  rollups: readonly RolledUpResults[],
  metrics: readonly ParsedMetric[],
  windowStart: number,
  intervalMs: number,
): SeriesRow[] {
  const buckets = new Map<number, { members: ResultFacts[]; rollups: RolledUpResults[] }>();
  const bucketAt = (instant: number) => {
    const bucketStart = windowStart + Math.floor((instant - windowStart) / intervalMs) * intervalMs;
    let bucket = buckets.get(bucketStart);
    if (!bucket) buckets.set(bucketStart, (bucket = { members: [], rollups: [] }));
    return bucket;
  };
  for (const result of results) bucketAt(result.createdAt).members.push(result);
  for (const row of rollups) bucketAt(row.startMs).rollups.push(row);
  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([bucketStart, bucket]) => ({ timestamp: new Date(bucketStart).toISOString(), ...rowOf(bucket.members, bucket.rollups, metrics) }));
}

function rowOf(results: readonly ResultFacts[], rollups: readonly RolledUpResults[], metrics: readonly ParsedMetric[]): Record<string, number | null> {
  const totals = rollups.length === 0 ? undefined : totalsOf(rollups);
  const row: Record<string, number | null> = {};
  for (const metric of metrics) row[metric.name] = valueOf(results, totals, metric);
  return row;
}

/** A metric over raw results and, when the row reaches into the rollup part, the rollups' totals. */
function valueOf(results: readonly ResultFacts[], rollups: RollupTotals | undefined, metric: ParsedMetric): number | null {
  const source = metric.base.source;
  switch (source.kind) {
    case 'availability': {
      const count = results.length + (rollups?.results ?? 0);
      const passing = results.filter((r) => !r.hasFailures).length + (rollups?.passing ?? 0);
      return count === 0 ? null : (100 * passing) / count;
    }
    case 'retries':
      return results.reduce((total, r) => total + r.attempts, rollups?.attempts ?? 0);
    case 'unrecorded':
      return null;
    case 'responseTime':
    case 'timingPhase': {
      // A loop, not flatMap: a day of results at 10 s is 8,640 of them per metric (≤ 50 ms wanted).
      const values: number[] = [];
      for (const r of results) {
        const value = source.kind === 'responseTime' ? r.responseTime : r.timingPhases[source.phase];
        if (value !== null && value !== undefined) values.push(value);
      }
      // Rollups keep response times only; a timing phase has its raw values alone.
      if (rollups && source.kind === 'responseTime') return responseTimeWithRollups(values, rollups, metric.aggregation ?? 'avg');
      return aggregate(values, metric.aggregation ?? 'avg');
    }
    default:
      return assertNever(source);
  }
}

function compareKeys(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return compareText(String(a), String(b));
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
