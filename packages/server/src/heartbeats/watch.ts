/**
 * Heartbeat monitoring, driven by the scheduler's tick (heartbeats run nothing, so the scheduler
 * itself skips them as passive):
 *
 * 1. Pings stored since the last tick (pings.ts) become FINAL results — passing, or failing for a
 *   `/fail` ping — with the check's status and alert evaluation in the unit of work that stores
 *   them, as the scheduler's runs do (scheduler/execute.ts): a result stored is a result evaluated,
 *   since a ping (or window) handed out again finds its result stored and is skipped. A passing ping after a failure is what recovers the check. A tick claims
 *   pings from the HeartbeatPings port (a lease on pending pings of checks no one holds, in the order
 *   stored), stores their results, then confirms them: each ping becomes its result once however many
 *   watches share the database, in its check's order, and a watch killed in between leaves its pings
 *   to another once the lease ran out; the result id is the ping's, so none is stored twice.
 * 2. A heartbeat whose deadline passed without a ping gets one failing FINAL result per missed
 *   window (deadlines.ts). The deadlines live in the database, behind the HeartbeatDeadlines port:
 *   each refresh tells it the heartbeats there are (`watch`, and `forget` for those deleted or
 *   deactivated), a ping moves its check's deadline when it is answered (pings.ts), and a tick
 *   claims the windows that closed (`claimMissed`), so a window is failed once however many watches
 *   share the database, and a restart never fails it twice. A claim is a lease: the watch stores the
 *   failing result, then confirms the window (`reportedMissed`). A watch killed in between leaves a
 *   lease that runs out, and the next claim (of any watch) hands the window out again; its result id is
 *   the window's own, so a result stored before the kill is not stored, nor alerted on, twice.
 *
 * A ping stored while the scheduler was off is pending, and processed when it starts; the very first
 * watch on a database (`startOnce`) skips every ping stored before it, so seeded events raise no alerts.
 * What never fails: a deactivated heartbeat or one in a deactivated group (as the scheduler).
 * Events are kept for the scheduler's retention (`--retention`, default 30 days), like results, and
 * pruned by one watch per period across the database (event-pruning.ts).
 */
import { createHash } from 'node:crypto';
import { HeartbeatConfig, heartbeatDurationMs, type HeartbeatEvent } from '@vigil/schema';
import type { Alerting, FinalResultFacts } from '../alerting/index.js';
import { errorMessagesOf } from '../readside/error-groups.js';
import { boundResult } from '../readside/result-bounds.js';
import type { Repositories } from '../repositories.js';
import { DEFAULT_LOCATION } from '../scheduler/slots.js';
import type { StoredDoc } from '../store/index.js';
import type { CheckResultDocument, HeartbeatDeadlines, HeartbeatPings, MissedDeadline, StoredPing, TransactionPorts, WatchedHeartbeat } from '../store/ports.js';
import { missedMessage, nextDeadlineMs, type HeartbeatTiming } from './deadlines.js';
import { HeartbeatEventPruning } from './event-pruning.js';
import { anchorMsOf } from './tokens.js';
import { UnitAlerts } from './unit-alerts.js';

export interface HeartbeatWatchOptions {
  /** `replicaId` is who this watch claims missed windows and pings as (the ports record it). */
  repositories: Pick<Repositories, 'ports' | 'replicaId'>;
  /** Evaluates every FINAL result in the unit that stores it; absent: results and statuses only. */
  alerting?: Pick<Alerting, 'evaluateIn' | 'notify'>;
  /** How often the set of heartbeat monitors is re-read (default 5 s, as the scheduler). */
  refreshMs?: number;
  /** Heartbeat events older than this many days are deleted, as check results are (default 30). */
  retentionDays?: number;
}

/** Pings claimed, and turned into results, per transaction, so a burst never holds the database for long. */
const PING_BATCH = 500;
/** Missed windows claimed per call, so a backlog after downtime is failed in bounded transactions. */
const CLAIM_BATCH = 500;
/**
 * How long a claimed window, or a check's claimed pings, are this watch's before another may take
 * them: longer than storing a batch of results ever takes, as short as a dead watch's windows and
 * pings may wait for another.
 */
export const CLAIM_LEASE_MS = 60_000;
/** Heartbeats told to the port (watched or forgotten) between two turns of the event loop. */
const TELL_BATCH = 500;

/** A heartbeat as this watch last told the port, and its timing in the check's own units. */
interface Watched {
  readonly told: WatchedHeartbeat;
  readonly heartbeat: HeartbeatTiming;
  /**
   * The latest ping this watch knows of (or the creation): where its next deadline is counted from.
   * The port has it already (the ping moved it), so a refresh that reads it tells the port nothing.
   */
  anchorMs: number;
}

/** Where the watch reads checks and groups: the replica's documents port, or a unit's. */
type DocumentReader = Pick<TransactionPorts['documents'], 'get'>;

export class HeartbeatWatch {
  readonly #repositories: HeartbeatWatchOptions['repositories'];
  readonly #deadlines: HeartbeatDeadlines;
  readonly #pings: HeartbeatPings;
  /** The port's `startOnce`, asked as the watch is made (the pings it skips are those stored before). */
  #started: Promise<boolean> | undefined;
  readonly #owner: string;
  readonly #alerting: Pick<Alerting, 'evaluateIn' | 'notify'> | undefined;
  readonly #refreshMs: number;
  readonly #pruning: HeartbeatEventPruning;
  #watched = new Map<string, Watched>();
  #loadedAt = Number.NEGATIVE_INFINITY;
  /**
   * Ticks before this claim nothing: the earliest deadline of the heartbeats this watch knows, and
   * at least once per refresh, for windows of checks another watch on the database told the port about.
   */
  #claimAtMs = Number.NEGATIVE_INFINITY;

  constructor(options: HeartbeatWatchOptions) {
    this.#repositories = options.repositories;
    this.#deadlines = options.repositories.ports.heartbeatDeadlines;
    this.#pings = options.repositories.ports.heartbeatPings;
    this.#owner = options.repositories.replicaId;
    this.#alerting = options.alerting;
    this.#refreshMs = options.refreshMs ?? 5000;
    const retentionMs = (options.retentionDays ?? 30) * 24 * 60 * 60 * 1000;
    this.#pruning = new HeartbeatEventPruning({ pings: this.#pings, periodicJobs: options.repositories.ports.periodicJobs, owner: this.#owner, retentionMs });
    // A failure is thrown by the first tick, which asks again.
    this.#started = this.#pings.startOnce();
    this.#started.catch(() => undefined);
  }

  /**
   * Processes new pings, then reports missed deadlines as of `nowMs`; resolves to the results stored.
   * The caller does not start a tick before the previous one settled.
   */
  async tick(nowMs: number): Promise<number> {
    // Pings first: a refresh then finds the anchors they moved known, and tells the port nothing for them.
    let stored = await this.#processPings(nowMs);
    if (nowMs - this.#loadedAt >= this.#refreshMs) await this.#reload(nowMs);
    stored += await this.#reportMissed(nowMs);
    await this.#pruning.takeTurn(nowMs);
    return stored;
  }

  /** Deletes events older than the retention now, without asking for the turn (event-pruning.ts); returns how many went. */
  prune(nowMs: number): Promise<number> {
    return this.#pruning.prune(nowMs);
  }

  async #processPings(nowMs: number): Promise<number> {
    try {
      await (this.#started ??= this.#pings.startOnce());
    } catch (error) {
      this.#started = undefined;
      throw error;
    }
    let stored = 0;
    for (;;) {
      const claimed = await this.#pings.claim(this.#owner, nowMs, CLAIM_LEASE_MS, PING_BATCH);
      if (claimed.length === 0) return stored;
      const { results, alertingFailure } = await this.#storePingResults(claimed);
      stored += results;
      // Confirmed before an alerting failure is thrown: the results are stored, and a claim handed
      // out again would only find them so. A false answer (this watch was slower than its lease, and
      // another took the pings over) needs nothing: the other finds the same result ids stored.
      await this.#pings.processed(claimed, this.#owner);
      if (alertingFailure) throw alertingFailure.error;
      if (claimed.length < PING_BATCH) return stored;
    }
  }

  /**
   * Stores the result of each claimed ping, in order, and evaluates its alert, in one unit of work: a
   * ping handed out again finds its result stored and is skipped, so an evaluation after the commit
   * would be lost for good to a watch killed in between.
   */
  async #storePingResults(claimed: readonly StoredPing[]): Promise<{ results: number; alertingFailure: { error: unknown } | undefined }> {
    let results = 0;
    const alerting = new UnitAlerts(this.#alerting);
    await this.#repositories.ports.transaction(async (tx) => {
      for (const ping of claimed) {
        const check = (await tx.documents.get('checks', ping.accountId, ping.checkId)) as StoredDoc | undefined;
        if (!check || check['checkType'] !== 'HEARTBEAT') continue;
        const event = JSON.parse(ping.doc) as HeartbeatEvent;
        const atMs = Date.parse(event.timestamp);
        const failed = event.state === 'FAILING';
        const facts = await this.#recordRun(tx, ping.accountId, check, { id: event.id, atMs, error: failed ? `The job reported a failure (ping from ${event.source || 'an unnamed source'})` : null });
        // The port's deadline moved when the ping was answered; this only keeps the claim timer in step.
        const watched = this.#watched.get(keyOf(ping.accountId, ping.checkId));
        if (watched && atMs > watched.anchorMs) watched.anchorMs = atMs;
        if (facts === 'already stored' || facts === 'overtaken') continue;
        await alerting.evaluate(tx, ping.accountId, ping.checkId, facts);
        results += 1;
      }
    });
    return { results, alertingFailure: alerting.committed() };
  }

  async #reportMissed(nowMs: number): Promise<number> {
    // Most ticks come before any deadline: they ask the database nothing.
    if (nowMs < this.#claimAtMs) return 0;
    let reported = 0;
    for (;;) {
      // The claim is the idempotency key: a window another tick or watch holds or confirmed is not handed out again.
      const claimed = await this.#deadlines.claimMissed(nowMs, CLAIM_BATCH, this.#owner, CLAIM_LEASE_MS);
      reported += await this.#failMissed(claimed);
      if (claimed.length < CLAIM_BATCH) break;
    }
    this.#claimAtMs = this.#nextClaimMs(nowMs);
    return reported;
  }

  /**
   * Stores a failing result per claimed window, tells alerting, then confirms the windows to the port.
   * Resolves to how many results were new.
   */
  async #failMissed(claimed: readonly MissedDeadline[]): Promise<number> {
    // Most claims find no window closed: no unit for them.
    if (claimed.length === 0) return 0;
    const failed: MissedDeadline[] = [];
    const gone: MissedDeadline[] = [];
    let stored = 0;
    const alerting = new UnitAlerts(this.#alerting);
    await this.#repositories.ports.transaction(async (tx) => {
      for (const window of claimed) {
        // The check as it is now, not as the last refresh read it: another watch may have told the
        // port about a check this one has not read yet.
        const check = (await tx.documents.get('checks', window.accountId, window.checkId)) as StoredDoc | undefined;
        const heartbeat = check ? this.#watchable(check, await groupOf(tx.documents, window.accountId, check)) : undefined;
        if (!check || !heartbeat) {
          gone.push(window);
          continue;
        }
        failed.push(window);
        const id = windowResultId(window.accountId, window.checkId, window.dueMs);
        const outcome = await this.#recordRun(tx, window.accountId, check, { id, atMs: window.dueMs, error: missedMessage(heartbeat) }, { unlessOvertaken: true });
        if (outcome === 'already stored') continue;
        stored += 1;
        if (outcome !== 'overtaken') await alerting.evaluate(tx, window.accountId, window.checkId, outcome);
      }
    });
    const alertingFailure = alerting.committed();
    if (alertingFailure) throw alertingFailure.error;
    // Only now is the window reported for good: a watch killed before this leaves a lease that runs out.
    // A false answer (this watch was slower than its lease, and another took the window over) needs
    // nothing: the other stores the same result id, which is then already stored.
    if (failed.length > 0) await this.#deadlines.reportedMissed(failed, this.#owner);
    // Deleted or deactivated since it was watched (perhaps while the service was down): no more
    // deadlines, and forgetting gives the claimed window up.
    for (const window of gone) {
      await this.#deadlines.forget(window.accountId, window.checkId);
      this.#watched.delete(keyOf(window.accountId, window.checkId));
    }
    return stored;
  }

  /** The earliest deadline this watch knows of after `nowMs`, and no later than the next refresh. */
  #nextClaimMs(nowMs: number): number {
    let earliest = nowMs + this.#refreshMs;
    for (const watched of this.#watched.values()) earliest = Math.min(earliest, nextDeadlineMs(watched.heartbeat, watched.anchorMs, nowMs));
    return earliest;
  }

  /**
   * A heartbeat's timing when the check is one the watch fails: activated, in no deactivated group
   * (`group`: the check's, as read with it), with a readable period.
   */
  #watchable(check: StoredDoc, group: StoredDoc | undefined): HeartbeatTiming | undefined {
    if (check['checkType'] !== 'HEARTBEAT' || check['activated'] === false) return undefined;
    if (group?.['activated'] === false) return undefined;
    // The generic call's looser shape (a period of 1 second is watched as one); a heartbeat without
    // a readable period has no deadline to keep.
    const heartbeat = HeartbeatConfig.safeParse(check['heartbeat']);
    if (!heartbeat.success) return undefined;
    const periodMs = heartbeatDurationMs(heartbeat.data.period, heartbeat.data.periodUnit);
    const graceMs = heartbeatDurationMs(heartbeat.data.grace, heartbeat.data.graceUnit);
    return Number.isSafeInteger(periodMs) && periodMs >= 1 && Number.isSafeInteger(graceMs) && graceMs >= 0 ? heartbeat.data : undefined;
  }

  /**
   * Makes the port calls one after the other, giving the event loop a turn after each TELL_BATCH: the
   * first refresh of thousands of heartbeats tells the port about each, and on SQLite each is a
   * transaction of its own. Not one group commit: that would hold the database's write lock until the
   * next turn, and another connection writing meanwhile (another watch on the file) would wait on it.
   */
  async #tellInBatches(calls: ReadonlyArray<() => Promise<unknown>>): Promise<void> {
    for (const [index, call] of calls.entries()) {
      await call();
      if ((index + 1) % TELL_BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Stores one FINAL result of a heartbeat (passing unless `error`) and its status; returns its alert
   * facts. 'already stored': the id was (a missed window handed out again after a watch stored its
   * result and was killed before the confirm), so nothing is stored or told again. 'overtaken' (asked
   * for with `unlessOvertaken`): the check has a status from a later result (a ping answered while the
   * window waited for a dead watch's lease), so the result joins the history but does not set the
   * status back to failing nor raise an alert for a check that is up again.
   */
  async #recordRun(tx: TransactionPorts, accountId: string, check: StoredDoc, run: { id: string; atMs: number; error: string | null }, options: { unlessOvertaken?: boolean } = {}): Promise<FinalResultFacts | 'already stored' | 'overtaken'> {
    const checkId = String(check.id);
    const at = new Date(run.atMs).toISOString();
    const failed = run.error !== null;
    const checkRunId = Math.floor(run.atMs / 1000);
    const latest = options.unlessOvertaken ? await tx.checkStatuses.find(accountId, checkId) : undefined;
    const overtaken = typeof latest?.updated_at === 'string' && Date.parse(latest.updated_at) > run.atMs;
    // Under its own id (the ping's, or the window's), so a result stored before is found so. Bounded
    // as every stored result is: the error names the ping's source, which the job chose.
    const result = boundResult<CheckResultDocument>({
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
    if (!(await tx.checkResults.appendKept(accountId, result))) return 'already stored';
    // Folded as a scheduled run's are, in the unit that stores the result (none, so far, for a heartbeat's).
    const errors = errorMessagesOf(result as Parameters<typeof errorMessagesOf>[0]).map((message) => ({ checkId, message, at: run.atMs }));
    if (errors.length > 0) await tx.errorGroups.fold(accountId, errors);
    if (overtaken) return 'overtaken';
    await tx.checkStatuses.record(accountId, {
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

  /**
   * Reads the heartbeat monitors and tells the port what changed since this watch last told it: a new
   * heartbeat, a new period or grace, a later anchor (`watch`), one gone or deactivated (`forget`).
   * Telling it what it already has would cost a write per heartbeat per refresh.
   */
  async #reload(nowMs: number): Promise<void> {
    this.#loadedAt = nowMs;
    const previous = this.#watched;
    const watched = new Map<string, Watched>();
    const tell: Array<() => Promise<unknown>> = [];
    // Groups are few beside heartbeats: each is read once per refresh, however many checks it holds.
    const groups = new Map<string, Promise<StoredDoc | undefined>>();
    const documents = this.#repositories.ports.documents;
    const cachedGroups: DocumentReader = {
      get: (kind, accountId, id) => {
        const key = keyOf(accountId, String(id));
        let group = groups.get(key);
        if (!group) groups.set(key, (group = documents.get(kind, accountId, id) as Promise<StoredDoc | undefined>));
        return group;
      },
    };
    for (const monitor of await this.#pings.monitors()) {
      const { accountId } = monitor;
      const check = monitor.check as StoredDoc;
      const heartbeat = this.#watchable(check, await groupOf(cachedGroups, accountId, check));
      if (!heartbeat) continue;
      const checkId = String(check.id);
      const key = keyOf(accountId, checkId);
      const told: WatchedHeartbeat = {
        accountId,
        checkId,
        periodMs: heartbeatDurationMs(heartbeat.period, heartbeat.periodUnit),
        graceMs: heartbeatDurationMs(heartbeat.grace, heartbeat.graceUnit),
        anchorMs: anchorMsOf(monitor),
      };
      const before = previous.get(key);
      if (!before || before.told.periodMs !== told.periodMs || before.told.graceMs !== told.graceMs || before.anchorMs < told.anchorMs) {
        tell.push(() => this.#deadlines.watch(told));
        watched.set(key, { told, heartbeat, anchorMs: Math.max(told.anchorMs, before?.anchorMs ?? told.anchorMs) });
      } else {
        watched.set(key, { ...before, heartbeat });
      }
    }
    for (const [key, before] of previous) {
      if (!watched.has(key)) tell.push(() => this.#deadlines.forget(before.told.accountId, before.told.checkId));
    }
    await this.#tellInBatches(tell);
    this.#watched = watched;
    // A window that closed before this read (the service was down, a check was re-activated) is claimed now.
    this.#claimAtMs = nowMs;
  }
}

function keyOf(accountId: string, checkId: string): string {
  return `${accountId}\n${checkId}`;
}

/** The check's group, when it names one by a valid id (a group id is a whole number from 1). */
async function groupOf(documents: DocumentReader, accountId: string, check: StoredDoc): Promise<StoredDoc | undefined> {
  const groupId = check['groupId'];
  if (typeof groupId !== 'number' || !Number.isSafeInteger(groupId) || groupId < 1) return undefined;
  return (await documents.get('check_groups', accountId, groupId)) as StoredDoc | undefined;
}

/** A result id that is the same for the same missed window, so storing it twice stores it once. */
function windowResultId(accountId: string, checkId: string, dueMs: number): string {
  const hex = createHash('sha256').update(`heartbeat-miss\n${accountId}\n${checkId}\n${dueMs}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
