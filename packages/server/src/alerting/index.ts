/**
 * Alerting: each FINAL result moves its check's alert state (alerting/state.ts); the alerts that
 * move produces become notifications to the channels the check and its group subscribe to, written
 * to the outbox in the same transaction as the state (alerting/outbox.ts delivers them).
 *
 * Settings: a check in a group follows the group's alert settings (as the real service does for
 * CheckGroupV2), otherwise its own; `useGlobalAlertSettings` takes the account's (its profile's
 * `alertSettings`, by default DEFAULT_ALERT_SETTINGS: alert on the first failure, no reminders).
 * `muted` on the check, or an active maintenance window sharing a tag with the check or its group,
 * suppresses notifications but keeps the state.
 */
import { randomUUID } from 'node:crypto';
import { AlertSettings, DEFAULT_ALERT_SETTINGS } from '@vigil/schema';
import type { Statement } from 'better-sqlite3';
import { readSideOf } from '../readside/context.js';
import type { StoredDoc, Store } from '../store/index.js';
import type { AlertContext } from './channels.js';
import { isInMaintenance, type MaintenanceWindowLike } from './maintenance.js';
import { Outbox, type OutboxOptions } from './outbox.js';
import { INITIAL_ALERT_STATE, nextAlertState, type AlertState, type AlertType } from './state.js';
import { ALERTING_MIGRATIONS, ALERTING_SCOPE } from './tables.js';

export { isInMaintenance } from './maintenance.js';
export { nextAlertState, type AlertState, type AlertType } from './state.js';

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
  readonly #getState: Statement;
  readonly #putState: Statement;

  constructor(store: Store, options: AlertingOptions = {}) {
    this.#store = store;
    store.migrate(ALERTING_SCOPE, ALERTING_MIGRATIONS);
    this.#now = options.now ?? Date.now;
    this.#outbox = new Outbox(store, options);
    this.#getState = store.db.prepare('SELECT doc FROM alert_states WHERE account_id = ? AND check_id = ?');
    this.#putState = store.db.prepare('INSERT OR REPLACE INTO alert_states (account_id, check_id, doc) VALUES (?, ?, ?)');
  }

  start(): void {
    this.#outbox.start();
  }

  stop(): Promise<void> {
    return this.#outbox.stop();
  }

  /** Waits until every due notification is settled or waiting for a retry (tests). */
  idle(): Promise<void> {
    return this.#outbox.idle();
  }

  /** The alert state of a check (INITIAL when it never had a FINAL result). */
  stateOf(accountId: string, checkId: string): AlertState {
    const row = this.#getState.get(accountId, checkId) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as AlertState) : INITIAL_ALERT_STATE;
  }

  /** Folds one FINAL result of a check into its alert state and queues the notifications it causes. */
  onFinalResult(accountId: string, checkId: string, result: FinalResultFacts): AlertType[] {
    const check = this.#store.checks.get(accountId, checkId);
    if (!check) return [];
    const group = check.groupId === null || check.groupId === undefined ? undefined : this.#store.checkGroups.get(accountId, check.groupId as number);
    const atMs = Date.parse(result.stoppedAt ?? '') || this.#now();
    const tags = [...stringsOf(check.tags), ...stringsOf(group?.tags)];
    const suppressed = check.muted === true || isInMaintenance(this.#store.maintenanceWindows.all(accountId) as unknown as MaintenanceWindowLike[], tags, atMs);
    const alerts = this.#store.transaction(() => {
      const step = nextAlertState(
        this.stateOf(accountId, checkId),
        { failed: result.hasFailures || result.hasErrors, degraded: result.isDegraded === true, atMs, suppressed },
        this.#settingsOf(accountId, check, group),
      );
      this.#putState.run(accountId, checkId, JSON.stringify(step.state));
      const checkAlertIds = new Map(step.alerts.map((alert) => [alert, randomUUID()]));
      for (const channel of this.#recipients(accountId, checkId, group)) {
        for (const alertType of step.alerts) {
          const allowed = channel[CHANNEL_SWITCH[alertType]];
          if (!(typeof allowed === 'boolean' ? allowed : SWITCH_DEFAULTS[CHANNEL_SWITCH[alertType]])) continue;
          const id = randomUUID();
          const context: AlertContext = {
            notificationId: id,
            alertType,
            checkId,
            checkName: String(check.name ?? ''),
            checkType: String(check.checkType ?? ''),
            checkResultId: result.id,
            responseTime: result.responseTime,
            runLocation: result.runLocation,
            startedAt: result.startedAt,
            errorMessage: result.error ?? null,
            groupName: typeof group?.name === 'string' ? group.name : null,
            tags,
            statusCode: result.statusCode ?? null,
            statusText: result.statusText ?? null,
          };
          this.#outbox.enqueue(accountId, {
            id,
            checkId,
            alertChannelId: channel.id as number,
            channelType: String(channel.type),
            alertType,
            doc: { context, alertConfig: (channel.config ?? {}) as Record<string, unknown>, checkAlertId: checkAlertIds.get(alertType)! },
          });
        }
      }
      return step.alerts;
    });
    if (alerts.length > 0) this.#outbox.pump();
    return alerts;
  }

  #settingsOf(accountId: string, check: StoredDoc, group: StoredDoc | undefined): AlertSettings {
    const owner = group ?? check;
    if (owner.useGlobalAlertSettings === true) {
      const account = readSideOf(this.#store).pages.profile(accountId)?.alertSettings;
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

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
