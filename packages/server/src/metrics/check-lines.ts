/**
 * The text of one check's series in `GET /metrics`: its families, and the lines each of its facts
 * makes. check-blocks.ts writes them into the pieces of the check's block when the check changed;
 * otherwise its bytes are copied from the block's previous pieces.
 */
import { escapeLabelValue, formatSampleValue, type Family } from './exposition.js';

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

/** What a check's stored status says that its gauges show. */
export interface StatusFacts {
  readonly up: 0 | 1;
  readonly degraded: 0 | 1;
  /** Unix seconds, when the status has an end time. */
  readonly endedSeconds: number | null;
  readonly sslDays: number | null;
}

/** The runs of one check in one location since the process started. */
export interface RunSeries {
  /** `account`, `check_id` and `location`, escaped. */
  readonly labels: string;
  readonly outcomes: number[];
  /** Runs per bucket, not cumulative: `buckets[i]` counts the times in (bound i-1, bound i]. */
  readonly buckets: number[];
  sum: number;
  count: number;
}

/** `account="…",check_id="…"`, escaped: the labels every series of a check starts with. */
export function checkLabels(accountId: string, checkId: string): string {
  return `account="${escapeLabelValue(accountId)}",check_id="${escapeLabelValue(checkId)}"`;
}

/** The facts of a stored status document (JSON). */
export function statusFactsOf(statusDoc: string): StatusFacts {
  const status = JSON.parse(statusDoc) as { hasFailures?: unknown; hasErrors?: unknown; isDegraded?: unknown; updated_at?: unknown; sslDaysRemaining?: unknown };
  const ended = typeof status.updated_at === 'string' ? Date.parse(status.updated_at) : Number.NaN;
  return {
    up: status.hasFailures === true || status.hasErrors === true ? 0 : 1,
    degraded: status.isDegraded === true ? 1 : 0,
    endedSeconds: Number.isFinite(ended) ? ended / 1000 : null,
    sslDays: typeof status.sslDaysRemaining === 'number' ? status.sslDaysRemaining : null,
  };
}

/**
 * The check's lines, one string per family of CHECK_FAMILIES (`''` where it has none): the gauges
 * of its status, its info line, and per location its run counters and histogram.
 */
export function checkTexts(labels: string, status: StatusFacts, info: string, runs: { lastResponseSeconds: number | null; series: Iterable<RunSeries> } | undefined, bucketLabels: readonly string[]): string[] {
  const texts = [
    `${UP.name}{${labels}} ${status.up}\n`,
    `${DEGRADED.name}{${labels}} ${status.degraded}\n`,
    status.endedSeconds === null ? '' : `${LAST_RUN.name}{${labels}} ${formatSampleValue(status.endedSeconds)}\n`,
    runs?.lastResponseSeconds == null ? '' : `${LAST_RESPONSE_TIME.name}{${labels}} ${formatSampleValue(runs.lastResponseSeconds)}\n`,
    status.sslDays === null ? '' : `${SSL_DAYS.name}{${labels}} ${formatSampleValue(status.sslDays)}\n`,
    info,
    '',
    '',
  ];
  for (const series of runs?.series ?? []) {
    const lines = seriesLines(series, bucketLabels);
    texts[CheckFamily.runs] += lines.runs;
    texts[CheckFamily.responseTimes] += lines.histogram;
  }
  return texts;
}

export function infoLine(check: { labels: string; name: string; type: string; tags: string }, groupName: string): string {
  const names = `check_name="${escapeLabelValue(check.name)}",check_type="${escapeLabelValue(check.type)}"`;
  return `${INFO.name}{${check.labels},${names},group="${escapeLabelValue(groupName)}",tags="${escapeLabelValue(check.tags)}"} 1\n`;
}

/** The run counters and the histogram of one series; `bucketLabels` are the bounds' `le="…",`. */
function seriesLines(series: RunSeries, bucketLabels: readonly string[]): { runs: string; histogram: string } {
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
  return { runs, histogram };
}
