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
 * Also here, each in the same transaction as the state it follows from:
 * - a check's `triggerIncident` opens and resolves its status-page incident (alerting/incidents.ts);
 * - `runParallel` slots are one evaluation across their locations (alerting/parallel.ts);
 * - ALERT_SSL: a channel with `sslExpiry` subscribed to an https API check gets, at most once a UTC
 *   day per check, an alert when the certificate expires within its `sslExpiryThreshold` days
 *   (default 30), from any run of the check, passing or failing. Muted checks and maintenance
 *   windows suppress it like any notification.
 */
import { randomUUID } from 'node:crypto';
import { AlertSettings, DEFAULT_ALERT_SETTINGS } from '@vigil/schema';
import type { PagesStore } from '../readside/pages-store.js';
import type { Repositories } from '../repositories.js';
import type { StoredDoc, Store } from '../store/index.js';
import { AlertStateTable } from '../store/sqlite/alerting.js';
import type { AlertContext } from './channels.js';
import { CheckIncidents } from './incidents.js';
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

export class Alerting {
  readonly #store: Store;
  readonly #outbox: Outbox;
  readonly #now: () => number;
  readonly #states: AlertStateTable;
  readonly #incidents: CheckIncidents;
  readonly #pages: PagesStore;
  readonly #parallel = new ParallelSlots();

  constructor(repositories: Pick<Repositories, 'store' | 'readSide' | 'ports' | 'replicaId'>, options: AlertingOptions = {}) {
    const { store } = repositories;
    this.#store = store;
    this.#pages = repositories.readSide.pages;
    this.#now = options.now ?? Date.now;
    this.#outbox = new Outbox({ store, outbox: repositories.ports.outbox, owner: repositories.replicaId }, options);
    this.#states = new AlertStateTable(store.db);
    this.#incidents = new CheckIncidents(store, this.#pages, this.#outbox);
  }

  /** The status-page incident a check's `triggerIncident` has open, if any (tests, status). */
  openIncidentOf(accountId: string, checkId: string) {
    return this.#incidents.openIncidentOf(accountId, checkId);
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

  /** The alert state of a check (INITIAL when it never had a FINAL result). */
  stateOf(accountId: string, checkId: string): AlertState {
    const doc = this.#states.get(accountId, checkId);
    return doc === undefined ? INITIAL_ALERT_STATE : (JSON.parse(doc) as AlertState);
  }

  /**
   * Folds one FINAL result of a check into its alert state and queues the notifications (and the
   * incident changes) it causes. `parallel`: the result is one location's run of a `runParallel`
   * slot, evaluated together with the slot's other locations.
   */
  onFinalResult(accountId: string, checkId: string, result: FinalResultFacts, parallel?: ParallelSlot): NotifiedAlertType[] {
    const check = this.#store.checks.get(accountId, checkId);
    if (!check) return [];
    const group = check.groupId === null || check.groupId === undefined ? undefined : this.#store.checkGroups.get(accountId, check.groupId as number);
    // A tag on both the check and its group (or twice on one) is one tag to a receiver.
    const tags = [...new Set([...stringsOf(check.tags), ...stringsOf(group?.tags)])];
    const subject: Subject = { accountId, checkId, check, group, tags };
    const alerts: NotifiedAlertType[] = [];
    let queued = false;
    const evaluate = (facts: FinalResultFacts) => {
      const step = this.#evaluate(subject, facts);
      alerts.push(...step.alerts);
      queued ||= step.queued;
    };
    if (parallel && parallel.locations > 1) {
      const threshold = this.#settingsOf(accountId, check, group).parallelRunFailureThreshold;
      for (const slot of this.#parallel.add(accountId, checkId, parallel, result)) evaluate(combineParallel(slot, threshold));
    } else {
      evaluate(result);
    }
    if (this.#sslExpiry(subject, result)) {
      alerts.push('ALERT_SSL');
      queued = true;
    }
    if (queued) this.#outbox.pump();
    return alerts;
  }

  #evaluate(subject: Subject, result: FinalResultFacts): { alerts: AlertType[]; queued: boolean } {
    const { accountId, checkId, check, group } = subject;
    const atMs = this.#atMs(result);
    const suppressed = this.#suppressed(subject, atMs);
    return this.#store.transaction(() => {
      const previous = this.stateOf(accountId, checkId);
      const step = nextAlertState(
        previous,
        { failed: result.hasFailures || result.hasErrors, degraded: result.isDegraded === true, atMs, suppressed },
        this.#settingsOf(accountId, check, group),
      );
      this.#states.put(accountId, checkId, JSON.stringify(step.state));
      const base = this.#contextOf(subject, result);
      const checkAlertIds = new Map(step.alerts.map((alert) => [alert, randomUUID()]));
      let queued = false;
      for (const channel of this.#recipients(accountId, checkId, group)) {
        for (const alertType of step.alerts) {
          const allowed = channel[CHANNEL_SWITCH[alertType]];
          if (!(typeof allowed === 'boolean' ? allowed : SWITCH_DEFAULTS[CHANNEL_SWITCH[alertType]])) continue;
          this.#enqueue(accountId, channel, base, alertType, checkAlertIds.get(alertType)!);
          queued = true;
        }
      }
      const cause = { accountId, check, context: base, atMs };
      if (step.alerts.includes('ALERT_FAILURE')) queued = this.#incidents.open(cause) || queued;
      if (previous.status === 'failing' && step.state.status !== 'failing') queued = this.#incidents.resolve(cause) || queued;
      return { alerts: step.alerts, queued };
    });
  }

  /** Queues today's ALERT_SSL for each `sslExpiry` channel whose threshold the certificate is within. */
  #sslExpiry(subject: Subject, result: FinalResultFacts): boolean {
    const atMs = this.#atMs(result);
    const days = sslDaysRemaining(result.certificateExpiresAt, atMs);
    if (days === null || this.#suppressed(subject, atMs)) return false;
    const channels = this.#recipients(subject.accountId, subject.checkId, subject.group).filter((channel) => {
      const threshold = typeof channel.sslExpiryThreshold === 'number' ? channel.sslExpiryThreshold : DEFAULT_SSL_EXPIRY_THRESHOLD;
      return channel.sslExpiry === true && days <= threshold;
    });
    if (channels.length === 0) return false;
    return this.#store.transaction(() => {
      const base = { ...this.#contextOf(subject, result), sslDaysRemaining: days, sslCheckDomain: result.sslCheckDomain ?? null };
      const checkAlertId = randomUUID();
      let queued = false;
      for (const channel of channels) {
        if (!this.#states.claimSslAlert(subject.accountId, subject.checkId, channel.id, utcDay(atMs))) continue;
        this.#enqueue(subject.accountId, channel, base, 'ALERT_SSL', checkAlertId);
        queued = true;
      }
      return queued;
    });
  }

  #enqueue(accountId: string, channel: StoredDoc, base: BaseContext, alertType: NotifiedAlertType, checkAlertId: string): void {
    const id = randomUUID();
    this.#outbox.enqueue(accountId, {
      id,
      checkId: base.checkId,
      alertChannelId: channel.id as number,
      channelType: String(channel.type),
      alertType,
      doc: { context: { ...base, notificationId: id, alertType }, alertConfig: (channel.config ?? {}) as Record<string, unknown>, checkAlertId },
    });
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

  #suppressed(subject: Subject, atMs: number): boolean {
    return (
      subject.check.muted === true ||
      isInMaintenance(this.#store.maintenanceWindows.all(subject.accountId) as unknown as MaintenanceWindowLike[], subject.tags, atMs)
    );
  }

  #settingsOf(accountId: string, check: StoredDoc, group: StoredDoc | undefined): AlertSettings {
    // A group decides only when it says so (`true`: the account's, `false`: its own); a group that
    // sets neither (`null`, a v2 group's default) leaves each check its own, as the real service does.
    const owner = group && typeof group.useGlobalAlertSettings === 'boolean' ? group : check;
    if (owner.useGlobalAlertSettings === true) {
      const account = this.#pages.profile(accountId)?.alertSettings;
      const parsed = AlertSettings.safeParse(account ?? {});
      return parsed.success ? parsed.data : DEFAULT_ALERT_SETTINGS;
    }
    const parsed = AlertSettings.safeParse(owner.alertSettings ?? {});
    return parsed.success ? parsed.data : DEFAULT_ALERT_SETTINGS;
  }

  /** The activated channels of the check and of its group, each once. */
  #recipients(accountId: string, checkId: string, group: StoredDoc | undefined): StoredDoc[] {
    const subscriptions = [
      ...(this.#store.subscriptions.ofOwners(accountId, 'check', [checkId]).get(checkId) ?? []),
      ...(group ? (this.#store.subscriptions.ofOwners(accountId, 'group', [String(group.id)]).get(String(group.id)) ?? []) : []),
    ];
    const channels = new Map<number, StoredDoc>();
    for (const subscription of subscriptions) {
      if (!subscription.activated || channels.has(subscription.alertChannelId)) continue;
      const channel = this.#store.alertChannels.get(accountId, subscription.alertChannelId);
      if (channel) channels.set(subscription.alertChannelId, channel);
    }
    return [...channels.values()];
  }
}

interface Subject {
  accountId: string;
  checkId: string;
  check: StoredDoc;
  group: StoredDoc | undefined;
  /** The check's tags and its group's (maintenance windows match either). */
  tags: string[];
}

type BaseContext = Omit<AlertContext, 'notificationId' | 'alertType'>;

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
