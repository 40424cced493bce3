/**
 * Alerting: each FINAL result moves its check's alert state (alerting/state.ts); the alerts that
 * move produces become notifications to the channels the check and its group subscribe to, written
 * to the outbox in the same transaction as the state (alerting/outbox.ts delivers them).
 *
 * Settings: a check in a group whose `useGlobalAlertSettings` is `true` or `false` follows the
 * group's choice; in a group that sets neither (`null`), or in none, its own. `useGlobalAlertSettings` takes the account's (its profile's
 * `alertSettings`, by default DEFAULT_ALERT_SETTINGS: alert on the first failure, no reminders).
 * `muted` on the check, or an active maintenance window sharing a tag with the check or its group,
 * suppresses notifications but keeps the state.
 *
 * Replicas of `vigil server` sharing one database evaluate through the storage ports: the check, its
 * group, channels and maintenance windows are read through the documents port, subscriptions through
 * the subscription index, and the state moves by compare-and-set (`AlertStates`): the state and its
 * version are read, the next state computed, and `transition` stores it with its notifications only
 * if the version is still the one read. A replica that lost reads again and evaluates the result
 * again on the state the winner left, so each transition happens, and notifies, once.
 *
 * A run's evaluation is part of the unit of work that stores the run (`evaluateIn`, from the
 * scheduler's recorder): a process killed after the results committed cannot leave a FINAL result
 * unevaluated, and an evaluation names the FINAL result as it is stored. A caller without a unit
 * (`onFinalResult`) gets one of its own, so an evaluation is always one transaction. The outbox is
 * told of what it queued once the unit committed (`notify`).
 *
 * Also here:
 * - a check's `triggerIncident` opens and resolves its status-page incident (alerting/incidents.ts)
 *   through the unit's incidents port, right after the transition that causes it and in its
 *   savepoint: the state and the incident commit or roll back together, on either engine;
 * - `runParallel` slots are one evaluation across their locations (alerting/parallel.ts), combined in
 *   the memory of the process their results reach: with several replicas, the locations of one slot
 *   must report to one replica (each replica runs the slots it claimed, so a slot's own runs do);
 * - ALERT_SSL: a channel with `sslExpiry` subscribed to an https API check gets, at most once a UTC
 *   day per check, an alert when the certificate expires within its `sslExpiryThreshold` days
 *   (default 30), from any run of the check, passing or failing. Muted checks and maintenance
 *   windows suppress it like any notification.
 */
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { AlertSettings, DEFAULT_ALERT_SETTINGS } from '@vigil/schema';
import type { Repositories } from '../repositories.js';
import type { ResourceDocument } from '../store/document-ports.js';
import type { IncidentDocument } from '../store/incident-ports.js';
import type { StoredDoc } from '../store/index.js';
import type { QueuedNotification, StoragePorts, TransactionPorts } from '../store/ports.js';
import { isStaleSqliteSnapshot } from '../store/sqlite/snapshot.js';
import type { AlertContext } from './channels.js';
import { openCheckIncident, resolveCheckIncident, type IncidentCause } from './incidents.js';
import { isInMaintenance, type MaintenanceWindowLike } from './maintenance.js';
import { Outbox, type OutboxOptions } from './outbox.js';
import { combineParallel, ParallelSlots, type ParallelSlot } from './parallel.js';
import { DEFAULT_SSL_EXPIRY_THRESHOLD, sslDaysRemaining, utcDay } from './ssl.js';
import { INITIAL_ALERT_STATE, nextAlertState, type AlertState, type AlertType } from './state.js';

export { isInMaintenance } from './maintenance.js';
export { nextAlertState, type AlertState, type AlertType } from './state.js';
export { sslDaysRemaining } from './ssl.js';
export type { ParallelSlot } from './parallel.js';

/** Every alert type a notification can carry: the state's, and the certificate's. */
export type NotifiedAlertType = AlertType | 'ALERT_SSL';

/** The facts of a FINAL result alerting uses. */
export interface FinalResultFacts {
  id: string | null;
  hasFailures: boolean;
  hasErrors: boolean;
  isDegraded: boolean | null;
  responseTime: number | null;
  runLocation: string | null;
  startedAt: string | null;
  stoppedAt: string | null;
  error?: string | null;
  statusCode?: number | null;
  statusText?: string | null;
  /** When the https target's certificate expires (the runner's `certificateExpiresAt`). */
  certificateExpiresAt?: string | null;
  /** The host the certificate was served for (`{{SSL_CHECK_DOMAIN}}`). */
  sslCheckDomain?: string | null;
}

/** Which channel setting lets an alert type through. */
const CHANNEL_SWITCH: Record<AlertType, 'sendFailure' | 'sendRecovery' | 'sendDegraded'> = {
  ALERT_FAILURE: 'sendFailure',
  ALERT_FAILURE_REMAIN: 'sendFailure',
  ALERT_RECOVERY: 'sendRecovery',
  ALERT_DEGRADED: 'sendDegraded',
  ALERT_DEGRADED_RECOVERY: 'sendRecovery',
};

/** A channel's default for each switch when the stored channel has none (alert-channels schema). */
const SWITCH_DEFAULTS = { sendFailure: true, sendRecovery: true, sendDegraded: false } as const;

export type AlertingOptions = OutboxOptions;

/**
 * How many times one result is evaluated again after another replica moved the check's state first.
 * Each loss means another transition of the same check committed in between, so running out means
 * the check's results arrive faster than one evaluation takes; the result is then reported, not lost silently.
 */
export const ALERT_EVALUATION_ATTEMPTS = 20;

export class AlertStateContentionError extends Error {
  override readonly name = 'AlertStateContentionError';
}

/** What evaluating a FINAL result did: the alerts it raised, and whether it queued anything to deliver. */
export interface AlertEvaluation {
  readonly alerts: NotifiedAlertType[];
  readonly queued: boolean;
}

/**
 * The unit's ports an evaluation reads and writes through: the state, its notifications, and the
 * incident a check's `triggerIncident` opens or resolves with it (and its subscribers' mail).
 */
type EvaluationPorts = Pick<TransactionPorts, 'documents' | 'alertSubscriptions' | 'alertStates' | 'incidents' | 'statusPages' | 'outbox' | 'accountProfiles'>;

/** Maintenance windows read per page while looking for an active one. */
const WINDOW_PAGE = 500;

export class Alerting {
  readonly #ports: Pick<StoragePorts, 'transaction' | 'incidents' | 'alertStates'>;
  readonly #outbox: Outbox;
  readonly #now: () => number;
  readonly #parallel = new ParallelSlots();

  constructor(repositories: Pick<Repositories, 'ports' | 'replicaId'>, options: AlertingOptions = {}) {
    this.#ports = repositories.ports;
    this.#now = options.now ?? Date.now;
    this.#outbox = new Outbox({ outbox: repositories.ports.outbox, owner: repositories.replicaId }, options);
  }

  /** The status-page incident a check's `triggerIncident` has open, if any (tests, status). */
  openIncidentOf(accountId: string, checkId: string): Promise<IncidentDocument | undefined> {
    return this.#ports.incidents.openOfCheck(accountId, checkId);
  }

  start(): void {
    this.#outbox.start();
  }

  /** Stops delivering; see Outbox.stop for what happens to deliveries still going after `drainMs`. */
  stop(drainMs?: number): Promise<void> {
    return this.#outbox.stop(drainMs);
  }

  /** Resolves once the outbox's claims asked for so far have been answered (tests). */
  claimsAnswered(): Promise<void> {
    return this.#outbox.claimsAnswered();
  }

  /** Waits until every due notification is settled or waiting for a retry (tests). */
  idle(): Promise<void> {
    return this.#outbox.idle();
  }

  /** The alert state of a check (INITIAL when it never had a FINAL result), as the AlertStates port has it (tests, status). */
  async stateOf(accountId: string, checkId: string): Promise<AlertState> {
    const stored = await this.#ports.alertStates.read(accountId, checkId);
    return stored === undefined ? INITIAL_ALERT_STATE : (JSON.parse(stored.state) as AlertState);
  }

  /**
   * Folds one FINAL result of a check into its alert state and queues the notifications (and the
   * incident changes) it causes, in a unit of work of its own; resolves once it committed. For a
   * caller with no unit of its own (not from inside one: a unit in a unit is refused).
   * `parallel`: the result is one location's run of a `runParallel` slot, evaluated together with
   * the slot's other locations.
   */
  async onFinalResult(accountId: string, checkId: string, result: FinalResultFacts, parallel?: ParallelSlot): Promise<NotifiedAlertType[]> {
    // A slot's results are taken once, whatever number of units it takes to evaluate them.
    let slots: FinalResultFacts[][] | undefined;
    const readySlots = parallel && parallel.locations > 1 ? () => (slots ??= this.#parallel.add(accountId, checkId, parallel, result)) : undefined;
    // The unit awaits only its ports (no timer, no I/O of its own): on SQLite, once it wrote, it holds
    // the write lock until it ends, and the ports' calls resolve within the turn, so it ends within it too.
    for (let attempt = 1; ; attempt++) {
      try {
        const evaluation = await this.#ports.transaction((tx) => this.#evaluateWith(tx, accountId, checkId, result, readySlots, { writes: true }));
        this.notify(evaluation);
        return evaluation.alerts;
      } catch (error) {
        // Another connection to the SQLite file wrote between what the unit read and its first write:
        // nothing of the unit stayed, and it is evaluated again on what is there now, as after a
        // compare-and-set lost to another replica.
        if (!isStaleSqliteSnapshot(error) || attempt >= ALERT_EVALUATION_ATTEMPTS) throw error;
      }
      // The next turn: the group commit the unit was part of has ended, so the next unit reads afresh.
      await nextTurn();
    }
  }

  /**
   * `onFinalResult` inside the caller's unit of work `tx` (the one that stored the result), its writes
   * in a savepoint of it: a throw undoes only the evaluation's writes and rejects, and the caller
   * decides what the rest of its unit does. Nothing is delivered before the unit commits: call
   * `notify` then. It awaits only the ports, never a timer, so on SQLite the unit ends within its turn.
   *
   * Most runs move nothing (a passing check stays passing): the evaluation reads first without a
   * savepoint, and only one that is about to write is run again from its start inside one, so a run
   * that writes nothing costs no SAVEPOINT and RELEASE (two of a run's statements on PostgreSQL).
   * The second pass reads afresh, as after a compare-and-set lost to another replica. A reading
   * pass that fails rejects with `EvaluationReadFailed`: outside a savepoint, a failed statement
   * aborts the whole unit on PostgreSQL, so the caller runs its unit again and hands the error back
   * as `afterFailedRead`, and the evaluation then runs in a savepoint from its start, where a
   * failure undoes only itself and the run is still stored.
   */
  async evaluateIn(
    tx: TransactionPorts,
    accountId: string,
    checkId: string,
    result: FinalResultFacts,
    parallel?: ParallelSlot,
    afterFailedRead?: EvaluationReadFailed,
  ): Promise<AlertEvaluation> {
    // A slot's results are taken once, whatever number of passes or units evaluate them.
    const taken = afterFailedRead?.takenSlots ?? { slots: undefined };
    const readySlots = parallel && parallel.locations > 1 ? () => (taken.slots ??= this.#parallel.add(accountId, checkId, parallel, result)) : undefined;
    if (!afterFailedRead) {
      try {
        return await this.#evaluateWith(tx, accountId, checkId, result, readySlots, { writes: false });
      } catch (error) {
        if (!(error instanceof WritesNeeded)) throw new EvaluationReadFailed(error, taken);
      }
    }
    return tx.savepoint(() => this.#evaluateWith(tx, accountId, checkId, result, readySlots, { writes: true }));
  }

  /** Tells the outbox of what a committed evaluation queued. */
  notify(evaluation: AlertEvaluation): void {
    if (evaluation.queued) this.#outbox.pump();
  }

  /**
   * `readySlots`: for one location's run of a parallel slot, the slots it completed (called once the
   * check is found). `writes: false`: the evaluation throws WritesNeeded where it would first write.
   */
  async #evaluateWith(
    ports: EvaluationPorts,
    accountId: string,
    checkId: string,
    result: FinalResultFacts,
    readySlots: (() => FinalResultFacts[][]) | undefined,
    { writes }: { writes: boolean },
  ): Promise<AlertEvaluation> {
    const check = (await ports.documents.get('checks', accountId, checkId)) as StoredDoc | undefined;
    if (!check) return { alerts: [], queued: false };
    const groupId = check.groupId;
    const group =
      typeof groupId === 'number' && Number.isSafeInteger(groupId) && groupId >= 1 ? ((await ports.documents.get('check_groups', accountId, groupId)) as StoredDoc | undefined) : undefined;
    // A tag on both the check and its group (or twice on one) is one tag to a receiver.
    const tags = [...new Set([...stringsOf(check.tags), ...stringsOf(group?.tags)])];
    const subject: Subject = { ports, accountId, checkId, check, group, tags, recipients: await this.#recipients(ports, accountId, checkId, group), writes };
    const settings = await this.#settingsOf(ports, accountId, check, group);
    const alerts: NotifiedAlertType[] = [];
    let queued = false;
    const facts = readySlots ? readySlots().map((slot) => combineParallel(slot, settings.parallelRunFailureThreshold)) : [result];
    for (const evaluated of facts) {
      const step = await this.#evaluate(subject, evaluated, settings);
      alerts.push(...step.alerts);
      queued ||= step.queued;
    }
    if (await this.#sslExpiry(subject, result)) {
      alerts.push('ALERT_SSL');
      queued = true;
    }
    return { alerts, queued };
  }

  async #evaluate(subject: Subject, result: FinalResultFacts, settings: AlertSettings): Promise<{ alerts: AlertType[]; queued: boolean }> {
    const { accountId, checkId, check } = subject;
    const atMs = this.#atMs(result);
    const suppressed = await this.#suppressed(subject, atMs);
    const base = this.#contextOf(subject, result);
    for (let attempt = 1; attempt <= ALERT_EVALUATION_ATTEMPTS; attempt++) {
      const stored = await subject.ports.alertStates.read(accountId, checkId);
      const previous = stored === undefined ? INITIAL_ALERT_STATE : (JSON.parse(stored.state) as AlertState);
      const step = nextAlertState(previous, { failed: result.hasFailures || result.hasErrors, degraded: result.isDegraded === true, atMs, suppressed }, settings);
      const checkAlertIds = new Map(step.alerts.map((alert) => [alert, randomUUID()]));
      const notifications: QueuedNotification[] = [];
      for (const channel of subject.recipients) {
        for (const alertType of step.alerts) {
          const allowed = channel[CHANNEL_SWITCH[alertType]];
          if (typeof allowed === 'boolean' ? allowed : SWITCH_DEFAULTS[CHANNEL_SWITCH[alertType]]) notifications.push(notificationOf(accountId, channel, base, alertType, checkAlertIds.get(alertType)!));
        }
      }
      const opens = step.alerts.includes('ALERT_FAILURE');
      const resolves = previous.status === 'failing' && step.state.status !== 'failing';
      const nextState = JSON.stringify(step.state);
      // Nothing moves (most runs of a passing check): nothing to write. Serialisable all the same: the
      // evaluation stands at the version read, before whatever transition comes next.
      if (stored !== undefined && nextState === stored.state && notifications.length === 0 && !opens && !resolves) return { alerts: step.alerts, queued: false };
      // Read before the transition, so that a recovery of a check without an incident writes nothing
      // after it: on SQLite the unit holds the write lock from its first write to its end.
      const resolvesIncident = resolves && (await subject.ports.incidents.openOfCheck(accountId, checkId)) !== undefined;
      if (!subject.writes) throw new WritesNeeded();
      if (await subject.ports.alertStates.transition(accountId, checkId, stored?.version ?? 0, nextState, notifications, this.#now())) {
        // In the transition's unit and after it: only the evaluation that moved the state touches the
        // incident (the others read again), and a failure here undoes the transition with it.
        const cause: IncidentCause = { accountId, check, context: base, atMs };
        let incidentMail = false;
        if (opens) incidentMail = (await openCheckIncident(subject.ports, cause)) || incidentMail;
        if (resolvesIncident) incidentMail = (await resolveCheckIncident(subject.ports, cause)) || incidentMail;
        return { alerts: step.alerts, queued: notifications.length > 0 || incidentMail };
      }
    }
    throw new AlertStateContentionError(
      `alert state of check ${checkId} was moved by other evaluations ${ALERT_EVALUATION_ATTEMPTS} times while this one evaluated result ${result.id ?? '(no id)'}; that result was not evaluated`,
    );
  }

  /** Queues today's ALERT_SSL for each `sslExpiry` channel whose threshold the certificate is within. */
  async #sslExpiry(subject: Subject, result: FinalResultFacts): Promise<boolean> {
    const atMs = this.#atMs(result);
    const days = sslDaysRemaining(result.certificateExpiresAt, atMs);
    if (days === null) return false;
    const channels = subject.recipients.filter((channel) => {
      const threshold = typeof channel.sslExpiryThreshold === 'number' ? channel.sslExpiryThreshold : DEFAULT_SSL_EXPIRY_THRESHOLD;
      return channel.sslExpiry === true && days <= threshold;
    });
    if (channels.length === 0 || (await this.#suppressed(subject, atMs))) return false;
    const base = { ...this.#contextOf(subject, result), sslDaysRemaining: days, sslCheckDomain: result.sslCheckDomain ?? null };
    const checkAlertId = randomUUID();
    const notifications = channels.map((channel) => notificationOf(subject.accountId, channel, base, 'ALERT_SSL', checkAlertId));
    if (!subject.writes) throw new WritesNeeded();
    const queued = await subject.ports.alertStates.queueDailySslAlerts(subject.accountId, subject.checkId, utcDay(atMs), notifications, this.#now());
    return queued.length > 0;
  }

  #contextOf(subject: Subject, result: FinalResultFacts): BaseContext {
    return {
      checkId: subject.checkId,
      checkName: String(subject.check.name ?? ''),
      checkType: String(subject.check.checkType ?? ''),
      checkResultId: result.id,
      responseTime: result.responseTime,
      runLocation: result.runLocation,
      startedAt: result.startedAt,
      errorMessage: result.error ?? null,
      groupName: typeof subject.group?.name === 'string' ? subject.group.name : null,
      tags: subject.tags,
      statusCode: result.statusCode ?? null,
      statusText: result.statusText ?? null,
    };
  }

  #atMs(result: FinalResultFacts): number {
    return Date.parse(result.stoppedAt ?? '') || this.#now();
  }

  async #suppressed(subject: Subject, atMs: number): Promise<boolean> {
    if (subject.check.muted === true) return true;
    for (let afterSeq = 0; ; ) {
      const page = await subject.ports.documents.pageAfter('maintenance_windows', subject.accountId, afterSeq, WINDOW_PAGE);
      if (isInMaintenance(page.map((entry) => entry.doc) as unknown as MaintenanceWindowLike[], subject.tags, atMs)) return true;
      if (page.length < WINDOW_PAGE) return false;
      afterSeq = page.at(-1)!.seq;
    }
  }

  /** The account's settings are read in the evaluation's unit, so a replica never evaluates on ones it cached. */
  async #settingsOf(ports: EvaluationPorts, accountId: string, check: StoredDoc, group: StoredDoc | undefined): Promise<AlertSettings> {
    // A group decides only when it says so (`true`: the account's, `false`: its own); a group that
    // sets neither (`null`, a v2 group's default) leaves each check its own, as the real service does.
    const owner = group && typeof group.useGlobalAlertSettings === 'boolean' ? group : check;
    if (owner.useGlobalAlertSettings === true) {
      const account = (await ports.accountProfiles.get(accountId))?.alertSettings;
      const parsed = AlertSettings.safeParse(account ?? {});
      return parsed.success ? parsed.data : DEFAULT_ALERT_SETTINGS;
    }
    const parsed = AlertSettings.safeParse(owner.alertSettings ?? {});
    return parsed.success ? parsed.data : DEFAULT_ALERT_SETTINGS;
  }

  /** The activated channels of the check and of its group, each once. */
  async #recipients(ports: EvaluationPorts, accountId: string, checkId: string, group: StoredDoc | undefined): Promise<ResourceDocument[]> {
    const subscriptions = [
      ...((await ports.alertSubscriptions.ofOwners(accountId, 'check', [checkId])).get(checkId) ?? []),
      ...(group ? ((await ports.alertSubscriptions.ofOwners(accountId, 'group', [String(group.id)])).get(String(group.id)) ?? []) : []),
    ];
    const channels = new Map<number, ResourceDocument>();
    for (const subscription of subscriptions) {
      if (!subscription.activated || channels.has(subscription.alertChannelId)) continue;
      const channel = await ports.documents.get('alert_channels', accountId, subscription.alertChannelId);
      if (channel) channels.set(subscription.alertChannelId, channel);
    }
    return [...channels.values()];
  }
}

/** One notification of an alert to one channel, as the outbox stores it. */
function notificationOf(accountId: string, channel: ResourceDocument, base: BaseContext, alertType: NotifiedAlertType, checkAlertId: string): QueuedNotification {
  const id = randomUUID();
  return {
    id,
    accountId,
    checkId: base.checkId,
    alertChannelId: channel.id as number,
    channelType: String(channel.type),
    alertType,
    doc: JSON.stringify({ context: { ...base, notificationId: id, alertType }, alertConfig: (channel.config ?? {}) as Record<string, unknown>, checkAlertId }),
  };
}

interface Subject {
  /** Where the evaluation reads and writes: the replica's ports, or the unit's it is part of. */
  ports: EvaluationPorts;
  accountId: string;
  checkId: string;
  check: StoredDoc;
  group: StoredDoc | undefined;
  /** The check's tags and its group's (maintenance windows match either). */
  tags: string[];
  /** The activated channels of the check and its group. */
  recipients: ResourceDocument[];
  /** False in an evaluation's first pass, which only reads: it stops where it would write (`evaluateIn`). */
  writes: boolean;
}

/** Thrown by an evaluation's reading pass where it would first write: the caller runs it again in a savepoint. */
class WritesNeeded extends Error {
  override readonly name = 'WritesNeeded';
}

/**
 * An evaluation's reading pass, outside any savepoint, failed (`evaluateIn`): the unit it ran in may
 * be aborted with it. Carries what the pass took of a parallel slot, so the unit run again does not
 * take the same location's result twice.
 */
export class EvaluationReadFailed extends Error {
  override readonly name = 'EvaluationReadFailed';
  constructor(
    override readonly cause: unknown,
    readonly takenSlots: { slots: FinalResultFacts[][] | undefined },
  ) {
    super(`alert evaluation could not read: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

type BaseContext = Omit<AlertContext, 'notificationId' | 'alertType'>;

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
