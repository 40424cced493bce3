/**
 * The per-check series of `GET /metrics`, written as text (exposition.ts).
 *
 * What a check's last FINAL run said (up, degraded, when, SSL days) comes from the stored check
 * statuses: they survive a restart and are written by the scheduler and the heartbeat watch alike,
 * so the table is the one place that is always current. Their lines are kept between scrapes, and
 * a scrape reads again only the status rows written since the previous one: the status table tells
 * of each write through this connection (onStatusWrite), and a write by another connection changes
 * SQLite's `data_version`, after which every row is read again. Reading all 10,000 rows was most of
 * a scrape in which nothing had changed. The checks come from the check catalog (check-catalog.ts),
 * which follows the checks as they are written, so a deleted check's series are gone from the next
 * scrape and a renamed or retagged one shows its new name, group or tags there.
 *
 * Every series is labelled by ids only (`account`, `check_id`, and `location` where it has one): a
 * check's name, type, group and tags are on its `vigil_check_info` line alone, joined in queries
 * (Prometheus' info-metric pattern). Repeated on each of a check's run and histogram lines per
 * location they made most of a scrape's bytes, and a rename started new series, breaking rate()
 * across it; an id never changes.
 *
 * Only what no table holds lives in memory: the runs counted by outcome, the response times'
 * histogram and the last response time, since this process started, updated as each result is
 * stored.
 *
 * Series per check: up, degraded, last run timestamp, last response time, and SSL days remaining
 * when its last run saw a certificate (at most 5), plus its info line; per location it ran in, 4
 * run counters (one per outcome) and the histogram's bounds + 3 lines (each bound, +Inf, sum,
 * count): 6 + (7 + bounds) × locations in all, 19 with the default 6 bounds in one location. A
 * scrape exports at most `maxChecks` checks and counts the others.
 */
import type { Store } from '../store/index.js';
import { MetricsReads } from '../store/sqlite/metrics-reads.js';
import { onStatusWrite } from '../store/sqlite/statuses.js';
import { CheckCatalog, type CatalogCheck } from './check-catalog.js';
import { escapeLabelValue, formatSampleValue, linesOf, type Family, type FamilySamples, type Lines } from './exposition.js';
import { DEFAULT_RESPONSE_TIME_BUCKETS } from './response-time-buckets.js';

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
  /** The 4 counter lines and the histogram's lines, written at the first scrape after a run. */
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

/** The lines of a check's stored status; a status without an end time or a certificate has no line for it. */
interface StatusLines {
  readonly up: Lines;
  readonly degraded: Lines;
  readonly lastRun?: Lines;
  readonly sslDays?: Lines;
}

/** An account's stored statuses as lines, kept between scrapes. */
interface AccountStatuses {
  /** By check id, for the checks that exist and have a status. */
  readonly lines: Map<string, StatusLines>;
  /** Checks whose status row was written since the last scrape read it. */
  readonly written: Set<string>;
}

/** Which accounts a scrape shows: one tenant's, or every configured account's (the operator's). */
export interface ChecksView {
  readonly accountIds: readonly string[];
}

export interface CheckMetricsOptions {
  maxChecks?: number;
  /** Bounds of the response-time histogram, seconds, increasing (response-time-buckets.ts). */
  responseTimeBuckets?: readonly number[];
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
  readonly #buckets: readonly number[];
  /** `le="…",` of each bound, written once. */
  readonly #bucketLabels: readonly string[];
  /** Per account, per check id. */
  readonly #tracked = new Map<string, Map<string, Tracked>>();
  /** Per account, from its first scrape on (until another connection writes). */
  readonly #statuses = new Map<string, AccountStatuses>();
  #dataVersion: number;

  constructor(store: Store, options: CheckMetricsOptions = {}) {
    this.#reads = new MetricsReads(store.db);
    this.#catalog = new CheckCatalog(store, this.#reads);
    this.#maxChecks = options.maxChecks ?? DEFAULT_MAX_CHECKS;
    this.#buckets = [...(options.responseTimeBuckets ?? DEFAULT_RESPONSE_TIME_BUCKETS)];
    this.#bucketLabels = this.#buckets.map((bound) => `le="${formatSampleValue(bound)}",`);
    this.#dataVersion = this.#reads.dataVersion();
    // An account not scraped yet has nothing to follow: its first scrape reads every row.
    onStatusWrite(store.db, (accountId, checkId) => this.#statuses.get(accountId)?.written.add(checkId));
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
      series = { labels, outcomes: OUTCOMES.map(() => 0), buckets: this.#buckets.map(() => 0), sum: 0, count: 0 };
      tracked.series.set(run.location, series);
    }
    series.outcomes[OUTCOMES.indexOf(outcomeOf(run))]! += 1;
    if (run.responseTime !== null && Number.isFinite(run.responseTime)) {
      const seconds = run.responseTime / 1000;
      tracked.lastResponseSeconds = seconds;
      delete tracked.lastResponseLine;
      const bucket = this.#buckets.findIndex((bound) => seconds <= bound);
      if (bucket >= 0) series.buckets[bucket]! += 1;
      series.sum += seconds;
      series.count += 1;
    }
    delete series.lines;
  }

  /**
   * The per-check families of the view's accounts, and how many checks were left out past
   * `maxChecks`. Forgets what it kept of the view's checks that were deleted.
   */
  scrape(view: ChecksView): { families: FamilySamples[]; omitted: number } {
    const dataVersion = this.#reads.dataVersion();
    if (dataVersion !== this.#dataVersion) {
      // Another connection wrote: which status rows is not known, so every account reads them all.
      this.#dataVersion = dataVersion;
      this.#statuses.clear();
    }
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
      const statuses = this.#statusesOf(accountId, checks);
      const tracked = this.#tracked.get(accountId);
      // Kept lines of deleted checks are dropped once they outnumber the checks, so they stay few
      // without a pass over every check at every scrape.
      if (statuses.size > checks.size) forgetDeleted(statuses, checks);
      if (tracked && tracked.size > checks.size) forgetDeleted(tracked, checks);
      for (const [checkId, check] of checks) {
        const status = statuses.get(checkId);
        if (status === undefined) continue; // not run yet
        if (shown >= this.#maxChecks) {
          omitted++;
          continue;
        }
        shown++;
        up.push(status.up);
        degraded.push(status.degraded);
        if (status.lastRun) lastRun.push(status.lastRun);
        if (status.sslDays) sslDays.push(status.sslDays);
        info.push(this.#infoLine(accountId, check));
        const runsOfCheck = tracked?.get(checkId);
        if (!runsOfCheck) continue;
        if (runsOfCheck.lastResponseSeconds !== null) {
          runsOfCheck.lastResponseLine ??= linesOf(`${LAST_RESPONSE_TIME.name}{${runsOfCheck.labels}} ${formatSampleValue(runsOfCheck.lastResponseSeconds)}\n`);
          lastResponseTime.push(runsOfCheck.lastResponseLine);
        }
        for (const series of runsOfCheck.series.values()) {
          series.lines ??= this.#seriesLines(series);
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

  /**
   * The status lines of the account's checks as stored now: at its first scrape (or after another
   * connection wrote) from every row, later from the rows written since the previous scrape only.
   */
  #statusesOf(accountId: string, checks: ReadonlyMap<string, CatalogCheck>): Map<string, StatusLines> {
    let statuses = this.#statuses.get(accountId);
    if (!statuses) {
      statuses = { lines: new Map(), written: new Set() };
      for (const [checkId, doc] of this.#reads.statusDocs(accountId)) {
        const check = checks.get(checkId);
        // A deleted check's row is left behind; its check is not listed.
        if (check) statuses.lines.set(checkId, statusLines(check.labels, doc));
      }
      this.#statuses.set(accountId, statuses);
      return statuses.lines;
    }
    if (statuses.written.size === 0) return statuses.lines;
    const written = [...statuses.written];
    statuses.written.clear();
    // A written id without a row (its write rolled back, or the row removed) keeps no lines.
    for (const checkId of written) statuses.lines.delete(checkId);
    for (const [checkId, doc] of this.#reads.statusDocsOf(accountId, written)) {
      const check = checks.get(checkId);
      if (check) statuses.lines.set(checkId, statusLines(check.labels, doc));
    }
    return statuses.lines;
  }

  /** The check's info line: the one kept with it while its group's name is unchanged. */
  #infoLine(accountId: string, check: CatalogCheck): Lines {
    const group = this.#catalog.groupName(accountId, check.groupId);
    if (check.info?.group !== group) check.info = { group, line: infoLine(check, group) };
    return check.info.line;
  }

  #seriesLines(series: RunSeries): { runs: Lines; histogram: Lines } {
    const runs = OUTCOMES.map((outcome, index) => `${RUNS.name}{${series.labels},outcome="${outcome}"} ${series.outcomes[index]}\n`).join('');
    let histogram = '';
    let cumulative = 0;
    for (let index = 0; index < this.#buckets.length; index++) {
      cumulative += series.buckets[index]!;
      histogram += `${RESPONSE_TIMES.name}_bucket{${this.#bucketLabels[index]}${series.labels}} ${cumulative}\n`;
    }
    histogram +=
      `${RESPONSE_TIMES.name}_bucket{le="+Inf",${series.labels}} ${series.count}\n` +
      `${RESPONSE_TIMES.name}_sum{${series.labels}} ${formatSampleValue(series.sum)}\n` +
      `${RESPONSE_TIMES.name}_count{${series.labels}} ${series.count}\n`;
    return { runs: linesOf(runs), histogram: linesOf(histogram) };
  }
}

/** Drops the entries of checks that are no longer in `checks`. */
function forgetDeleted(kept: Map<string, unknown>, checks: ReadonlyMap<string, CatalogCheck>): void {
  for (const checkId of kept.keys()) {
    if (!checks.has(checkId)) kept.delete(checkId);
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
