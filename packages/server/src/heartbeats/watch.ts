/**
 * Heartbeat monitoring, driven by the scheduler's tick (heartbeats run nothing, so the scheduler
 * itself skips them as passive):
 *
 * 1. Pings stored since the last tick (pings.ts) become FINAL results — passing, or failing for a
 *   `/fail` ping — with the check's status and alert evaluation, as the scheduler's runs do
 *   (scheduler/execute.ts). A passing ping after a failure is what recovers the check.
 * 2. A heartbeat whose deadline passed without a ping gets one failing FINAL result per missed
 *   window (deadlines.ts), claimed in the database first, so a restart never reports it twice.
 *
 * Processed pings are tracked by a rowid cursor stored with the results they produced, so a ping
 * stored while the scheduler was off is processed when it starts; on the very first start the cursor
 * begins at the newest stored event, so seeded events raise no alerts.
 * What never fails: a deactivated heartbeat or one in a deactivated group (as the scheduler).
 * Events are kept for the scheduler's retention (`--retention`, default 30 days), like results.
 */
import { createHash } from 'node:crypto';
import { HeartbeatConfig, type HeartbeatEvent } from '@vigil/schema';
import type { Alerting, FinalResultFacts } from '../alerting/index.js';
import type { Repositories } from '../repositories.js';
import { DEFAULT_LOCATION } from '../scheduler/slots.js';
import type { StoredDoc, Store } from '../store/index.js';
import { HeartbeatWatchTable } from '../store/sqlite/heartbeats.js';
import { isUnreported, latestMissedWindow, missedMessage, nextDeadlineMs, type HeartbeatTiming } from './deadlines.js';

export interface HeartbeatWatchOptions {
  repositories: Pick<Repositories, 'store' | 'readSide' | 'statuses' | 'pingTokens'>;
  /** Told every FINAL result after it is stored; absent: results and statuses only. */
  alerting?: Pick<Alerting, 'onFinalResult'>;
  /** How often the set of heartbeat monitors is re-read (default 5 s, as the scheduler). */
  refreshMs?: number;
  /** Heartbeat events older than this many days are deleted, as check results are (default 30). */
  retentionDays?: number;
}

/** Pings turned into results per statement, so a burst never holds the database for long. */
const PING_BATCH = 500;
/** How often old events are pruned, and how many rows per statement. */
const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 500;

interface Watched {
  accountId: string;
  check: StoredDoc;
  heartbeat: HeartbeatTiming;
  anchorMs: number;
  reportedDueMs: number | null;
  /** Ticks skip the check until then. */
  nextDueMs: number;
}

export class HeartbeatWatch {
  readonly #store: Store;
  readonly #repositories: HeartbeatWatchOptions['repositories'];
  readonly #table: HeartbeatWatchTable;
  readonly #alerting: Pick<Alerting, 'onFinalResult'> | undefined;
  readonly #refreshMs: number;
  readonly #retentionMs: number;
  #prunedAt = Number.NEGATIVE_INFINITY;
  #watched = new Map<string, Watched>();
  #loadedAt = Number.NEGATIVE_INFINITY;

  constructor(options: HeartbeatWatchOptions) {
    this.#repositories = options.repositories;
    this.#store = options.repositories.store;
    this.#table = new HeartbeatWatchTable(this.#store.db, { pings: PING_BATCH, prune: PRUNE_BATCH });
    this.#alerting = options.alerting;
    this.#refreshMs = options.refreshMs ?? 5000;
    this.#retentionMs = (options.retentionDays ?? 30) * 24 * 60 * 60 * 1000;
    if (this.#table.cursor() === undefined) this.#table.moveCursor(this.#table.lastEventRowid());
  }

  /** Processes new pings, then reports missed deadlines as of `nowMs`. Returns the results stored. */
  tick(nowMs: number): number {
    if (nowMs - this.#loadedAt >= this.#refreshMs) this.#reload(nowMs);
    const stored = this.#processPings() + this.#reportMissed(nowMs);
    if (nowMs - this.#prunedAt >= PRUNE_EVERY_MS) this.prune(nowMs);
    return stored;
  }

  /**
   * Deletes events older than the retention, a batch per statement; never one not yet processed
   * (at or below the cursor), so a ping always becomes its result first. Returns how many went.
   */
  prune(nowMs: number): number {
    this.#prunedAt = nowMs;
    const processed = this.#table.cursor() ?? 0;
    let removed = 0;
    for (let batch = this.#table.pruneEventsBatch(nowMs - this.#retentionMs, processed); batch > 0; batch = this.#table.pruneEventsBatch(nowMs - this.#retentionMs, processed)) removed += batch;
    return removed;
  }

  #processPings(): number {
    let stored = 0;
    for (;;) {
      const rows = this.#table.eventsAfter(this.#table.cursor() ?? 0);
      if (rows.length === 0) return stored;
      const alerts: Array<{ accountId: string; checkId: string; facts: FinalResultFacts }> = [];
      this.#store.transaction(() => {
        for (const row of rows) {
          const check = this.#store.checks.get(row.account_id, row.check_id);
          if (!check || check['checkType'] !== 'HEARTBEAT') continue;
          const event = JSON.parse(row.doc) as HeartbeatEvent;
          const atMs = Date.parse(event.timestamp);
          const failed = event.state === 'FAILING';
          const facts = this.#recordRun(row.account_id, check, { id: event.id, atMs, error: failed ? `The job reported a failure (ping from ${event.source || 'an unnamed source'})` : null });
          alerts.push({ accountId: row.account_id, checkId: row.check_id, facts });
          const watched = this.#watched.get(keyOf(row.account_id, row.check_id));
          if (watched && atMs > watched.anchorMs) {
            watched.anchorMs = atMs;
            watched.nextDueMs = nextDeadlineMs(watched.heartbeat, atMs, atMs);
          }
          stored += 1;
        }
        this.#table.moveCursor(rows.at(-1)!.rowid);
      });
      // After the results are committed, as the scheduler does: an alerting failure never re-stores a ping.
      for (const { accountId, checkId, facts } of alerts) this.#alerting?.onFinalResult(accountId, checkId, facts);
    }
  }

  #reportMissed(nowMs: number): number {
    // Most ticks find nothing due: they open no transaction.
    const due = [...this.#watched.values()].filter((watched) => nowMs >= watched.nextDueMs);
    if (due.length === 0) return 0;
    const missed: Array<{ accountId: string; checkId: string; facts: FinalResultFacts }> = [];
    this.#store.transaction(() => {
      for (const watched of due) {
        const window = latestMissedWindow(watched.heartbeat, watched.anchorMs, nowMs);
        watched.nextDueMs = nextDeadlineMs(watched.heartbeat, watched.anchorMs, nowMs);
        if (!window || !isUnreported(window, watched.reportedDueMs)) continue;
        const checkId = String(watched.check.id);
        watched.reportedDueMs = window.dueMs;
        // The claim is the idempotency key: a window another tick or process reported is left alone.
        if (!this.#table.claimWindow(watched.accountId, checkId, window.dueMs)) continue;
        const id = windowResultId(watched.accountId, checkId, window.dueMs);
        const facts = this.#recordRun(watched.accountId, watched.check, { id, atMs: window.dueMs, error: missedMessage(watched.heartbeat) });
        missed.push({ accountId: watched.accountId, checkId, facts });
      }
    });
    for (const { accountId, checkId, facts } of missed) this.#alerting?.onFinalResult(accountId, checkId, facts);
    return missed.length;
  }

  /** Stores one FINAL result of a heartbeat (passing unless `error`) and its status; returns its alert facts. */
  #recordRun(accountId: string, check: StoredDoc, run: { id: string; atMs: number; error: string | null }): FinalResultFacts {
    const checkId = String(check.id);
    const at = new Date(run.atMs).toISOString();
    const failed = run.error !== null;
    const checkRunId = Math.floor(run.atMs / 1000);
    this.#repositories.readSide.results.recordResult(accountId, {
      id: run.id,
      name: String(check['name'] ?? ''),
      checkId,
      hasFailures: failed,
      hasErrors: false,
      isDegraded: false,
      overMaxResponseTime: false,
      runLocation: DEFAULT_LOCATION,
      startedAt: at,
      stoppedAt: at,
      created_at: at,
      responseTime: 0,
      apiCheckResult: null,
      browserCheckResult: null,
      multiStepCheckResult: null,
      checkRunId,
      attempts: 1,
      resultType: 'FINAL',
      sequenceId: null,
      error: run.error,
    });
    this.#repositories.statuses.record(accountId, {
      name: String(check['name'] ?? ''),
      checkId,
      hasFailures: failed,
      hasErrors: false,
      isDegraded: false,
      responseTime: 0,
      runLocation: DEFAULT_LOCATION,
      checkRunId,
      stoppedAt: at,
    });
    return {
      id: run.id,
      hasFailures: failed,
      hasErrors: false,
      isDegraded: false,
      responseTime: 0,
      runLocation: DEFAULT_LOCATION,
      startedAt: at,
      stoppedAt: at,
      error: run.error,
    };
  }

  #reload(nowMs: number): void {
    this.#loadedAt = nowMs;
    const reported = new Map<string, number>();
    for (const row of this.#table.reportedWindows()) {
      reported.set(keyOf(row.account_id, row.check_id), row.reported_due_ms);
    }
    const watched = new Map<string, Watched>();
    for (const row of this.#table.heartbeatChecks()) {
      const check = JSON.parse(row.doc) as StoredDoc;
      if (check['activated'] === false) continue;
      const groupId = check['groupId'];
      if (groupId !== null && groupId !== undefined && this.#store.checkGroups.get(row.account_id, groupId as number)?.['activated'] === false) continue;
      const heartbeat = HeartbeatConfig.safeParse(check['heartbeat']);
      // The generic call's looser shape (a period of 1 second is watched as one); a heartbeat without
      // a readable period has no deadline to keep.
      if (!heartbeat.success) continue;
      const key = keyOf(row.account_id, String(check.id));
      const anchorMs = this.#repositories.pingTokens.anchorMsOf(row.account_id, check);
      watched.set(key, {
        accountId: row.account_id,
        check,
        heartbeat: heartbeat.data,
        anchorMs,
        reportedDueMs: reported.get(key) ?? null,
        nextDueMs: nextDeadlineMs(heartbeat.data, anchorMs, nowMs),
      });
      // A window already missed when the check is (re)loaded is due now.
      const window = latestMissedWindow(heartbeat.data, anchorMs, nowMs);
      if (window && isUnreported(window, reported.get(key) ?? null)) watched.get(key)!.nextDueMs = nowMs;
    }
    this.#watched = watched;
  }
}

function keyOf(accountId: string, checkId: string): string {
  return `${accountId}\n${checkId}`;
}

/** A result id that is the same for the same missed window, so storing it twice stores it once. */
function windowResultId(accountId: string, checkId: string, dueMs: number): string {
  const hex = createHash('sha256').update(`heartbeat-miss\n${accountId}\n${checkId}\n${dueMs}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
