/**
 * The text of one check's series in `GET /metrics`: its families, and the lines each of its facts
 * makes, as UTF-8. checks.ts keeps them per check, written again only when that fact changes, and
 * joins those of a block of checks into one piece per family: joining bytes is a copy, where
 * joining strings left ropes to flatten and encode, and most of a scrape's time to the collector.
 */
import { escapeLabelValue, formatSampleValue, linesOf, type Family, type Lines } from './exposition.js';

export type RunOutcome = 'passed' | 'failed' | 'degraded' | 'error';
export const OUTCOMES: readonly RunOutcome[] = ['passed', 'failed', 'degraded', 'error'];

const UP: Family = { name: 'vigil_check_up', type: 'gauge', help: '1 when the last FINAL run of the check passed (degraded counts as passed), 0 when it failed or errored' };
const DEGRADED: Family = { name: 'vigil_check_degraded', type: 'gauge', help: '1 when the last FINAL run of the check was degraded' };
const LAST_RUN: Family = { name: 'vigil_check_last_run_timestamp_seconds', type: 'gauge', help: 'When the last FINAL run of the check ended (Unix time)' };
const LAST_RESPONSE_TIME: Family = { name: 'vigil_check_last_response_time_seconds', type: 'gauge', help: 'Response time of the last FINAL run of the check this process stored' };
const SSL_DAYS: Family = { name: 'vigil_check_ssl_days_remaining', type: 'gauge', help: "Days until the certificate of the check's target expires, as of the run that last saw it" };
/**
 * What a check is called and how it is grouped change more often than its identity; as labels of
 * every series they would start new series (and break rate()) on each edit. They live on one
 * `vigil_check_info` series per check, joined in queries:
 * `vigil_check_up * on(account, check_id) group_left(check_name, group, tags) vigil_check_info`.
 */
const INFO: Family = { name: 'vigil_check_info', type: 'gauge', help: "Always 1: the check's name, type, group (its name) and tags (sorted, comma-separated), to join on account and check_id" };
const RUNS: Family = { name: 'vigil_check_runs_total', type: 'counter', help: 'FINAL runs of the check since the service started, by outcome' };
const RESPONSE_TIMES: Family = { name: 'vigil_check_response_time_seconds', type: 'histogram', help: 'Response time of the FINAL runs of the check since the service started' };

/** The per-check families in the order a scrape writes them; `CheckFamily` indexes it. */
export const CHECK_FAMILIES: readonly Family[] = [UP, DEGRADED, LAST_RUN, LAST_RESPONSE_TIME, SSL_DAYS, INFO, RUNS, RESPONSE_TIMES];
export const CheckFamily = { up: 0, degraded: 1, lastRun: 2, lastResponseTime: 3, sslDays: 4, info: 5, runs: 6, responseTimes: 7 } as const;

/** The lines of a check's stored status; a status without an end time or a certificate has no line for it. */
export interface StatusLines {
  readonly up: Lines;
  readonly degraded: Lines;
  readonly lastRun?: Lines;
  readonly sslDays?: Lines;
}

/** The runs of one check in one location since the process started, and their lines as last written. */
export interface RunSeries {
  /** `account`, `check_id` and `location`, escaped. */
  readonly labels: string;
  readonly outcomes: number[];
  /** Runs per bucket, not cumulative: `buckets[i]` counts the times in (bound i-1, bound i]. */
  readonly buckets: number[];
  sum: number;
  count: number;
  /** The 4 counter lines and the histogram's lines, written at the first scrape after a run. */
  lines?: { runs: Lines; histogram: Lines };
}

/** `account="…",check_id="…"`, escaped: the labels every series of a check starts with. */
export function checkLabels(accountId: string, checkId: string): string {
  return `account="${escapeLabelValue(accountId)}",check_id="${escapeLabelValue(checkId)}"`;
}

/** The up, degraded, last run and SSL days lines of a stored status; the last two are absent when the status has none. */
export function statusLines(labels: string, statusDoc: string): StatusLines {
  const status = JSON.parse(statusDoc) as { hasFailures?: unknown; hasErrors?: unknown; isDegraded?: unknown; updated_at?: unknown; sslDaysRemaining?: unknown };
  const ended = typeof status.updated_at === 'string' ? Date.parse(status.updated_at) : Number.NaN;
  return {
    up: linesOf(`${UP.name}{${labels}} ${status.hasFailures === true || status.hasErrors === true ? 0 : 1}\n`),
    degraded: linesOf(`${DEGRADED.name}{${labels}} ${status.isDegraded === true ? 1 : 0}\n`),
    ...(Number.isFinite(ended) ? { lastRun: linesOf(`${LAST_RUN.name}{${labels}} ${formatSampleValue(ended / 1000)}\n`) } : {}),
    ...(typeof status.sslDaysRemaining === 'number' ? { sslDays: linesOf(`${SSL_DAYS.name}{${labels}} ${formatSampleValue(status.sslDaysRemaining)}\n`) } : {}),
  };
}

export function infoLine(check: { labels: string; name: string; type: string; tags: string }, groupName: string): Lines {
  const names = `check_name="${escapeLabelValue(check.name)}",check_type="${escapeLabelValue(check.type)}"`;
  return linesOf(`${INFO.name}{${check.labels},${names},group="${escapeLabelValue(groupName)}",tags="${escapeLabelValue(check.tags)}"} 1\n`);
}

export function lastResponseTimeLine(labels: string, seconds: number): Lines {
  return linesOf(`${LAST_RESPONSE_TIME.name}{${labels}} ${formatSampleValue(seconds)}\n`);
}

/** The run counters and the histogram of one series; `bucketLabels` are the bounds' `le="…",`. */
export function seriesLines(series: RunSeries, bucketLabels: readonly string[]): { runs: Lines; histogram: Lines } {
  let runs = '';
  for (let index = 0; index < OUTCOMES.length; index++) runs += `${RUNS.name}{${series.labels},outcome="${OUTCOMES[index]}"} ${series.outcomes[index]}\n`;
  let histogram = '';
  let cumulative = 0;
  for (let index = 0; index < bucketLabels.length; index++) {
    cumulative += series.buckets[index]!;
    histogram += `${RESPONSE_TIMES.name}_bucket{${bucketLabels[index]}${series.labels}} ${cumulative}\n`;
  }
  histogram +=
    `${RESPONSE_TIMES.name}_bucket{le="+Inf",${series.labels}} ${series.count}\n` +
    `${RESPONSE_TIMES.name}_sum{${series.labels}} ${formatSampleValue(series.sum)}\n` +
    `${RESPONSE_TIMES.name}_count{${series.labels}} ${series.count}\n`;
  return { runs: linesOf(runs), histogram: linesOf(histogram) };
}
