/**
 * The per-check series of `GET /metrics`.
 *
 * What a check's last FINAL run said (up, degraded, when, SSL days) is read from the stored check
 * statuses at scrape time, never kept here: the statuses survive a restart, and their read joins
 * the checks table, so a deleted check's series are gone from the next scrape without anyone
 * telling this module. Only what no table holds lives in memory: the runs counted by outcome, the
 * response times' histogram and the last response time, since this process started. Those are
 * dropped at scrape time for checks that no longer exist or whose name or type changed (a renamed
 * check starts new series, as any change of a label value does in Prometheus).
 *
 * Series per check: up, degraded, last run timestamp, last response time, and SSL days remaining
 * when its last run saw a certificate (at most 5); per location it ran in, 4 run counters (one per
 * outcome) and the histogram's RESPONSE_TIME_BUCKETS + 3 lines (each bucket, +Inf, sum, count):
 * 5 + 17 × locations in all. A scrape exports at most `maxChecks` checks and counts the others.
 */
import type { CheckStatus } from '@vigil/schema';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { statusesOf, type StatusStore } from '../readside/statuses.js';
import type { Store } from '../store/index.js';

/** Seconds: from a fast loopback answer up to the longest timeout a check may have. */
export const RESPONSE_TIME_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The most checks one scrape exports; past it a scrape would cost seconds and Prometheus' memory. */
export const DEFAULT_MAX_CHECKS = 50_000;

const CHECK_LABELS = ['account', 'check_id', 'check_name', 'check_type'] as const;
/**
 * Tags and group change more often than a check's identity; as labels of every series they would
 * start new series (and break rate()) on each edit. They live on one `vigil_check_info` series per
 * check, joined in queries: `vigil_check_up * on(account, check_id) group_left(group, tags) vigil_check_info`.
 */
const INFO_LABELS = [...CHECK_LABELS, 'group', 'tags'] as const;
const RUN_LABELS = [...CHECK_LABELS, 'location'] as const;
type RunLabel = (typeof RUN_LABELS)[number];
type RunLabels = Record<RunLabel, string>;

export type RunOutcome = 'passed' | 'failed' | 'degraded' | 'error';
const OUTCOMES: readonly RunOutcome[] = ['passed', 'failed', 'degraded', 'error'];

/** What a stored FINAL result contributes to the in-memory series. */
export interface StoredRun {
  accountId: string;
  checkId: string;
  checkName: string;
  checkType: string;
  location: string;
  hasFailures: boolean;
  hasErrors: boolean;
  isDegraded: boolean;
  /** Milliseconds, when the run measured one. */
  responseTime: number | null;
}

/** The in-memory facts of one check, and the label sets it has series under. */
interface Tracked {
  name: string;
  type: string;
  series: Map<string, RunLabels>;
  lastResponseSeconds: number | null;
}

interface LiveCheck {
  name: string;
  type: string;
  groupId: string | null;
  /** Sorted, without repeats, comma-separated. */
  tags: string;
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

const keyOf = (accountId: string, checkId: string) => `${accountId}\n${checkId}`;

export class CheckMetrics {
  readonly #statuses: StatusStore;
  readonly #store: Store;
  readonly #maxChecks: number;
  readonly #tracked = new Map<string, Tracked>();
  // Registered nowhere: a scrape copies the series of the checks it shows (see `registry`).
  readonly #runs = new Counter({ name: 'vigil_check_runs_total', help: 'FINAL runs of the check since the service started, by outcome', labelNames: [...RUN_LABELS, 'outcome'], registers: [] });
  readonly #responseTimes = new Histogram({
    name: 'vigil_check_response_time_seconds',
    help: 'Response time of the FINAL runs of the check since the service started',
    labelNames: RUN_LABELS,
    buckets: RESPONSE_TIME_BUCKETS,
    registers: [],
  });

  constructor(store: Store, options: { maxChecks?: number } = {}) {
    this.#store = store;
    this.#statuses = statusesOf(store);
    this.#maxChecks = options.maxChecks ?? DEFAULT_MAX_CHECKS;
  }

  /** Counts a stored FINAL result. */
  recordRun(run: StoredRun): void {
    const key = keyOf(run.accountId, run.checkId);
    let tracked = this.#tracked.get(key);
    if (tracked && (tracked.name !== run.checkName || tracked.type !== run.checkType)) {
      this.#forget(key, tracked);
      tracked = undefined;
    }
    if (!tracked) {
      tracked = { name: run.checkName, type: run.checkType, series: new Map(), lastResponseSeconds: null };
      this.#tracked.set(key, tracked);
    }
    const labels: RunLabels = { account: run.accountId, check_id: run.checkId, check_name: run.checkName, check_type: run.checkType, location: run.location };
    if (!tracked.series.has(run.location)) {
      tracked.series.set(run.location, labels);
      // Every outcome from the first run on, so rate() over a series that starts failing later works.
      for (const outcome of OUTCOMES) this.#runs.inc({ ...labels, outcome }, 0);
    }
    this.#runs.inc({ ...labels, outcome: outcomeOf(run) });
    if (run.responseTime !== null && Number.isFinite(run.responseTime)) {
      tracked.lastResponseSeconds = run.responseTime / 1000;
      this.#responseTimes.observe(labels, tracked.lastResponseSeconds);
    }
  }

  /**
   * A registry holding the per-check series of the view's accounts, built for one scrape. Drops the
   * in-memory series of the view's checks that were deleted or renamed on the way.
   */
  async registry(view: ChecksView): Promise<{ registry: Registry; omitted: number }> {
    const registry = new Registry();
    const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames: CHECK_LABELS, registers: [registry] });
    const up = gauge('vigil_check_up', '1 when the last FINAL run of the check passed (degraded counts as passed), 0 when it failed or errored');
    const degraded = gauge('vigil_check_degraded', '1 when the last FINAL run of the check was degraded');
    const lastRun = gauge('vigil_check_last_run_timestamp_seconds', 'When the last FINAL run of the check ended (Unix time)');
    const responseTime = gauge('vigil_check_last_response_time_seconds', 'Response time of the last FINAL run of the check this process stored');
    const ssl = gauge('vigil_check_ssl_days_remaining', "Days until the certificate of the check's target expires, as of the run that last saw it");
    const info = new Gauge({ name: 'vigil_check_info', help: "Always 1: the check's group (its name) and tags (sorted, comma-separated), to join on account and check_id", labelNames: INFO_LABELS, registers: [registry] });
    const shown = new Set<string>();
    let omitted = 0;
    for (const accountId of view.accountIds) {
      const live = this.#liveChecks(accountId);
      const groups = new Map(this.#store.checkGroups.all(accountId).map((group) => [String(group.id), String(group.name ?? '')]));
      for (const status of this.#statuses.list(accountId)) {
        const check = live.get(status.checkId);
        if (!check) continue;
        if (shown.size >= this.#maxChecks) {
          omitted++;
          continue;
        }
        const key = keyOf(accountId, status.checkId);
        shown.add(key);
        const labels = { account: accountId, check_id: status.checkId, check_name: check.name, check_type: check.type };
        setStatus({ up, degraded, lastRun, ssl }, labels, status);
        info.set({ ...labels, group: check.groupId === null ? '' : (groups.get(check.groupId) ?? ''), tags: check.tags }, 1);
        const tracked = this.#tracked.get(key);
        if (tracked?.lastResponseSeconds != null && tracked.name === check.name && tracked.type === check.type) responseTime.set(labels, tracked.lastResponseSeconds);
      }
      this.#prune(accountId, live);
    }
    const runs = await this.#copy([this.#runs, this.#responseTimes], shown);
    return { registry: Registry.merge([registry, runs]), omitted };
  }

  /** The account's checks as they are now: names, types, groups and tags for labels, and what still exists. */
  #liveChecks(accountId: string): Map<string, LiveCheck> {
    const live = new Map<string, LiveCheck>();
    for (const doc of this.#store.checks.all(accountId)) {
      const tags = Array.isArray(doc.tags) ? [...new Set(doc.tags.map(String))].sort().join(',') : '';
      const groupId = doc.groupId === null || doc.groupId === undefined ? null : String(doc.groupId);
      live.set(String(doc.id), { name: String(doc.name ?? ''), type: String(doc.checkType ?? ''), groupId, tags });
    }
    return live;
  }

  #prune(accountId: string, live: Map<string, LiveCheck>): void {
    const prefix = `${accountId}\n`;
    for (const [key, tracked] of this.#tracked) {
      if (!key.startsWith(prefix)) continue;
      const check = live.get(key.slice(prefix.length));
      if (!check || check.name !== tracked.name || check.type !== tracked.type) this.#forget(key, tracked);
    }
  }

  #forget(key: string, tracked: Tracked): void {
    for (const labels of tracked.series.values()) {
      for (const outcome of OUTCOMES) this.#runs.remove({ ...labels, outcome });
      this.#responseTimes.remove(labels);
    }
    this.#tracked.delete(key);
  }

  /**
   * The series of `metrics` whose check is in `shown`, as a registry of their own. prom-client's
   * aggregation is its public way to build a registry from values, histograms included.
   */
  async #copy(metrics: ReadonlyArray<Counter | Histogram>, shown: ReadonlySet<string>): Promise<Registry> {
    const kept: object[] = [];
    for (const metric of metrics) {
      const values = await metric.get();
      kept.push({ ...values, values: values.values.filter(({ labels }) => shown.has(keyOf(String(labels.account), String(labels.check_id)))) });
    }
    return AggregatorRegistry.aggregate([kept]) as Registry;
  }
}

interface StatusGauges {
  up: Gauge<string>;
  degraded: Gauge<string>;
  lastRun: Gauge<string>;
  ssl: Gauge<string>;
}

function setStatus(gauges: StatusGauges, labels: Record<string, string>, status: CheckStatus): void {
  gauges.up.set(labels, status.hasFailures || status.hasErrors ? 0 : 1);
  gauges.degraded.set(labels, status.isDegraded ? 1 : 0);
  const ended = Date.parse(status.updated_at ?? '');
  if (Number.isFinite(ended)) gauges.lastRun.set(labels, ended / 1000);
  if (typeof status.sslDaysRemaining === 'number') gauges.ssl.set(labels, status.sslDaysRemaining);
}
