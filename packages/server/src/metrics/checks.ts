/**
 * The per-check series of `GET /metrics`, written as text (exposition.ts).
 *
 * What a check's last FINAL run said (up, degraded, when, SSL days) is read from the stored check
 * statuses at every scrape, never kept here: the statuses survive a restart and are written by the
 * scheduler and the heartbeat watch alike, so the table is the one place that is always current.
 * The read takes the raw status documents with one prepared statement; a document equal to the one
 * the previous scrape saw reuses that scrape's lines instead of being parsed again, so only the
 * checks that ran since cost anything. The checks come from the check catalog (check-catalog.ts),
 * which follows the checks as they are written, so a deleted check's series are gone from the next
 * scrape and a renamed or retagged one shows its new name, group or tags there.
 *
 * Every series is labelled by ids only (`account`, `check_id`, and `location` where it has one): a
 * check's name, type, group and tags are on its `vigil_check_info` line alone, joined in queries
 * (Prometheus' info-metric pattern). Repeated on each of a check's 17 run and histogram lines per
 * location they made most of a scrape's bytes (35 MiB at 10,000 checks), and a rename started new
 * series, breaking rate() across it; an id never changes.
 *
 * Only what no table holds lives in memory: the runs counted by outcome, the response times'
 * histogram and the last response time, since this process started, updated as each result is
 * stored. Those are dropped at scrape time for checks that no longer exist.
 *
 * Series per check: up, degraded, last run timestamp, last response time, and SSL days remaining
 * when its last run saw a certificate (at most 5), plus its info line; per location it ran in, 4
 * run counters (one per outcome) and the histogram's RESPONSE_TIME_BUCKETS + 3 lines (each bucket,
 * +Inf, sum, count): 6 + 17 × locations in all. A scrape exports at most `maxChecks` checks and
 * counts the others.
 */
import type { Store } from '../store/index.js';
import { MetricsReads } from '../store/sqlite/metrics-reads.js';
import { CheckCatalog, type CatalogCheck, type RenderedCheck, type StatusLines } from './check-catalog.js';
import { escapeLabelValue, formatSampleValue, linesOf, type Family, type FamilySamples, type Lines } from './exposition.js';

/** Seconds: from a fast loopback answer up to the longest timeout a check may have. */
export const RESPONSE_TIME_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const BUCKET_LABELS = RESPONSE_TIME_BUCKETS.map((bound) => `le="${formatSampleValue(bound)}",`);

/** The most checks one scrape exports; past it a scrape would cost seconds and Prometheus' memory. */
export const DEFAULT_MAX_CHECKS = 50_000;

export type RunOutcome = 'passed' | 'failed' | 'degraded' | 'error';
const OUTCOMES: readonly RunOutcome[] = ['passed', 'failed', 'degraded', 'error'];

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

/** What a stored FINAL result contributes to the in-memory series. */
export interface StoredRun {
  accountId: string;
  checkId: string;
  location: string;
  hasFailures: boolean;
  hasErrors: boolean;
  isDegraded: boolean;
  /** Milliseconds, when the run measured one. */
  responseTime: number | null;
}

/** The runs of one check in one location since the process started, and their lines as last written. */
interface RunSeries {
  /** `account`, `check_id` and `location`, escaped. */
  readonly labels: string;
  readonly outcomes: number[];
  /** Runs per bucket, not cumulative: `buckets[i]` counts the times in (bound i-1, bound i]. */
  readonly buckets: number[];
  sum: number;
  count: number;
  /** The 4 counter lines and the 13 histogram lines, written at the first scrape after a run. */
  lines?: { runs: Lines; histogram: Lines };
}

/** The in-memory facts of one check: its series per location and its last response time. */
interface Tracked {
  /** `account` and `check_id`, escaped. */
  readonly labels: string;
  readonly series: Map<string, RunSeries>;
  lastResponseSeconds: number | null;
  /** The last response time's line, written at the first scrape after a run. */
  lastResponseLine?: Lines;
}

/** Which accounts a scrape shows: one tenant's, or every configured account's (the operator's). */
export interface ChecksView {
  readonly accountIds: readonly string[];
}

export function outcomeOf(run: Pick<StoredRun, 'hasFailures' | 'hasErrors' | 'isDegraded'>): RunOutcome {
  if (run.hasErrors) return 'error';
  if (run.hasFailures) return 'failed';
  return run.isDegraded ? 'degraded' : 'passed';
}

export class CheckMetrics {
  readonly #catalog: CheckCatalog;
  readonly #reads: MetricsReads;
  readonly #maxChecks: number;
  /** Per account, per check id. */
  readonly #tracked = new Map<string, Map<string, Tracked>>();

  constructor(store: Store, options: { maxChecks?: number } = {}) {
    this.#reads = new MetricsReads(store.db);
    this.#catalog = new CheckCatalog(store, this.#reads);
    this.#maxChecks = options.maxChecks ?? DEFAULT_MAX_CHECKS;
  }

  /** Counts a stored FINAL result. */
  recordRun(run: StoredRun): void {
    let account = this.#tracked.get(run.accountId);
    if (!account) {
      account = new Map();
      this.#tracked.set(run.accountId, account);
    }
    let tracked = account.get(run.checkId);
    if (!tracked) {
      const labels = `account="${escapeLabelValue(run.accountId)}",check_id="${escapeLabelValue(run.checkId)}"`;
      tracked = { labels, series: new Map(), lastResponseSeconds: null };
      account.set(run.checkId, tracked);
    }
    let series = tracked.series.get(run.location);
    if (!series) {
      const labels = `${tracked.labels},location="${escapeLabelValue(run.location)}"`;
      // Every outcome from the first run on, so rate() over a series that starts failing later works.
      series = { labels, outcomes: OUTCOMES.map(() => 0), buckets: RESPONSE_TIME_BUCKETS.map(() => 0), sum: 0, count: 0 };
      tracked.series.set(run.location, series);
    }
    series.outcomes[OUTCOMES.indexOf(outcomeOf(run))]! += 1;
    if (run.responseTime !== null && Number.isFinite(run.responseTime)) {
      const seconds = run.responseTime / 1000;
      tracked.lastResponseSeconds = seconds;
      delete tracked.lastResponseLine;
      const bucket = RESPONSE_TIME_BUCKETS.findIndex((bound) => seconds <= bound);
      if (bucket >= 0) series.buckets[bucket]! += 1;
      series.sum += seconds;
      series.count += 1;
    }
    delete series.lines;
  }

  /**
   * The per-check families of the view's accounts, and how many checks were left out past
   * `maxChecks`. Drops the in-memory series of the view's checks that were deleted.
   */
  scrape(view: ChecksView): { families: FamilySamples[]; omitted: number } {
    const up: Lines[] = [];
    const degraded: Lines[] = [];
    const lastRun: Lines[] = [];
    const lastResponseTime: Lines[] = [];
    const sslDays: Lines[] = [];
    const info: Lines[] = [];
    const runs: Lines[] = [];
    const responseTimes: Lines[] = [];
    let shown = 0;
    let omitted = 0;
    for (const accountId of view.accountIds) {
      const checks = this.#catalog.checksOf(accountId);
      const tracked = this.#tracked.get(accountId);
      if (tracked) this.#prune(tracked, checks);
      // A deleted check's status row is left behind; walking the checks skips it, in their order.
      const statusDocs = this.#reads.statusDocsByCheck(accountId);
      for (const [checkId, check] of checks) {
        const doc = statusDocs.get(checkId);
        if (doc === undefined) continue; // not run yet
        if (shown >= this.#maxChecks) {
          omitted++;
          continue;
        }
        shown++;
        const rendered = this.#render(accountId, check, doc);
        const status = rendered.status;
        up.push(status.up);
        degraded.push(status.degraded);
        if (status.lastRun) lastRun.push(status.lastRun);
        if (status.sslDays) sslDays.push(status.sslDays);
        info.push(rendered.info);
        const runsOfCheck = tracked?.get(checkId);
        if (!runsOfCheck) continue;
        if (runsOfCheck.lastResponseSeconds !== null) {
          runsOfCheck.lastResponseLine ??= linesOf(`${LAST_RESPONSE_TIME.name}{${runsOfCheck.labels}} ${formatSampleValue(runsOfCheck.lastResponseSeconds)}\n`);
          lastResponseTime.push(runsOfCheck.lastResponseLine);
        }
        for (const series of runsOfCheck.series.values()) {
          series.lines ??= seriesLines(series);
          runs.push(series.lines.runs);
          responseTimes.push(series.lines.histogram);
        }
      }
    }
    const families: FamilySamples[] = [
      { family: UP, samples: up },
      { family: DEGRADED, samples: degraded },
      { family: LAST_RUN, samples: lastRun },
      { family: LAST_RESPONSE_TIME, samples: lastResponseTime },
      { family: SSL_DAYS, samples: sslDays },
      { family: INFO, samples: info },
      { family: RUNS, samples: runs },
      { family: RESPONSE_TIMES, samples: responseTimes },
    ];
    return { families, omitted };
  }

  /** The check's status and info lines: the previous scrape's when its status document and group name are unchanged. */
  #render(accountId: string, check: CatalogCheck, statusDoc: string): RenderedCheck {
    const groupName = this.#catalog.groupName(accountId, check.groupId);
    let rendered = check.rendered;
    if (!rendered) {
      rendered = { statusDoc, status: statusLines(check.labels, statusDoc), infoGroup: groupName, info: infoLine(check, groupName) };
      check.rendered = rendered;
      return rendered;
    }
    if (rendered.statusDoc !== statusDoc) {
      rendered.statusDoc = statusDoc;
      rendered.status = statusLines(check.labels, statusDoc);
    }
    if (rendered.infoGroup !== groupName) {
      rendered.infoGroup = groupName;
      rendered.info = infoLine(check, groupName);
    }
    return rendered;
  }

  /** Forgets the runs of checks that no longer exist. */
  #prune(tracked: Map<string, Tracked>, checks: ReadonlyMap<string, CatalogCheck>): void {
    for (const checkId of tracked.keys()) {
      if (!checks.has(checkId)) tracked.delete(checkId);
    }
  }
}

/** The up, degraded, last run and SSL days lines of a stored status; the last two are absent when the status has none. */
function statusLines(labels: string, statusDoc: string): StatusLines {
  const status = JSON.parse(statusDoc) as { hasFailures?: unknown; hasErrors?: unknown; isDegraded?: unknown; updated_at?: unknown; sslDaysRemaining?: unknown };
  const ended = typeof status.updated_at === 'string' ? Date.parse(status.updated_at) : Number.NaN;
  return {
    up: linesOf(`${UP.name}{${labels}} ${status.hasFailures === true || status.hasErrors === true ? 0 : 1}\n`),
    degraded: linesOf(`${DEGRADED.name}{${labels}} ${status.isDegraded === true ? 1 : 0}\n`),
    ...(Number.isFinite(ended) ? { lastRun: linesOf(`${LAST_RUN.name}{${labels}} ${formatSampleValue(ended / 1000)}\n`) } : {}),
    ...(typeof status.sslDaysRemaining === 'number' ? { sslDays: linesOf(`${SSL_DAYS.name}{${labels}} ${formatSampleValue(status.sslDaysRemaining)}\n`) } : {}),
  };
}

function infoLine(check: CatalogCheck, groupName: string): Lines {
  const names = `check_name="${escapeLabelValue(check.name)}",check_type="${escapeLabelValue(check.type)}"`;
  return linesOf(`${INFO.name}{${check.labels},${names},group="${escapeLabelValue(groupName)}",tags="${escapeLabelValue(check.tags)}"} 1\n`);
}

function seriesLines(series: RunSeries): { runs: Lines; histogram: Lines } {
  const runs = OUTCOMES.map((outcome, index) => `${RUNS.name}{${series.labels},outcome="${outcome}"} ${series.outcomes[index]}\n`).join('');
  const lines: string[] = [];
  let cumulative = 0;
  for (let index = 0; index < RESPONSE_TIME_BUCKETS.length; index++) {
    cumulative += series.buckets[index]!;
    lines.push(`${RESPONSE_TIMES.name}_bucket{${BUCKET_LABELS[index]}${series.labels}} ${cumulative}\n`);
  }
  lines.push(
    `${RESPONSE_TIMES.name}_bucket{le="+Inf",${series.labels}} ${series.count}\n`,
    `${RESPONSE_TIMES.name}_sum{${series.labels}} ${formatSampleValue(series.sum)}\n`,
    `${RESPONSE_TIMES.name}_count{${series.labels}} ${series.count}\n`,
  );
  return { runs: linesOf(runs), histogram: linesOf(lines.join('')) };
}
