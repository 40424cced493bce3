/**
 * A check's `triggerIncident`: the status-page incident its alerts open and its recovery resolves.
 * Both happen inside the transaction that moves the check's alert state (alerting/index.ts), so a
 * crash either keeps the state change and the incident together or neither: a check never opens
 * two incidents for one failure, and a recovery that was stored has its RESOLVED update.
 *
 * - Opened when the failure alert is due to be notified (ALERT_FAILURE): after the escalation
 *   threshold, and — since muted checks and maintenance windows suppress alerts — not while the
 *   check is muted or in maintenance; a check still failing when the silence ends opens it then.
 *   The real service opens incidents as part of alerting, so a muted check opens none.
 * - At most one open incident per check (`check_incidents`): an incident resolved or deleted
 *   through the API no longer counts, and the next failure opens a new one.
 * - Resolved by the first passing run after the failure, whether or not that recovery is notified
 *   (a check muted after its incident opened still closes it): a status page never stays red for a
 *   service that is up again.
 * - Resolved too when the check is deleted through the API (`checkDeleted`, from `Repositories.deletedCheckIncidents`, in the
 *   deletion's transaction), with the update "Check 'NAME' was deleted.": nothing would run the
 *   check again to resolve it, and its `check_incidents` row would outlive it.
 * - `notifySubscribers`: each update (INVESTIGATING, RESOLVED) is e-mailed to the VERIFIED
 *   subscribers of every status page that shows the service, one outbox row per subscriber and page,
 *   delivered with the notifications' retries; a PENDING subscriber never gets mail.
 */
import { randomUUID } from 'node:crypto';
import { INCIDENT_NAME_MAX, INCIDENT_UPDATES_MAX, TriggerIncident } from '@vigil/schema';
import { addIncidentUpdate, createIncident, updateIncident, type IncidentState } from '../readside/incidents.js';
import type { PagesStore } from '../readside/pages-store.js';
import type { StoredDoc, Store } from '../store/index.js';
import { CheckIncidentTable } from '../store/sqlite/alerting.js';
import { SUBSCRIBER_DELIVERY, type AlertContext } from './channels.js';
import type { NotificationQueue } from './outbox.js';

/** The check whose alert moved, and the context its notifications carry. */
export interface IncidentCause {
  accountId: string;
  check: StoredDoc;
  context: Omit<AlertContext, 'notificationId' | 'alertType'>;
  atMs: number;
}

export class CheckIncidents {
  readonly #store: Store;
  readonly #pages: PagesStore;
  readonly #outbox: NotificationQueue;
  readonly #table: CheckIncidentTable;

  constructor(store: Store, pages: PagesStore, outbox: NotificationQueue) {
    this.#store = store;
    this.#pages = pages;
    this.#outbox = outbox;
    this.#table = new CheckIncidentTable(store.db);
  }

  /** The incident this check has open (not resolved, not deleted), if any. */
  openIncidentOf(accountId: string, checkId: string): IncidentState | undefined {
    const incidentId = this.#table.openIncidentId(accountId, checkId);
    if (incidentId === undefined) return undefined;
    const incident = this.#pages.incident(accountId, incidentId);
    return incident && incident.lastUpdateStatus !== 'RESOLVED' ? incident : undefined;
  }

  /** Opens the check's incident unless one is open; call inside the alert-state transaction. Returns whether it queued e-mail. */
  open(cause: IncidentCause): boolean {
    const trigger = triggerOf(cause.check);
    const checkId = cause.context.checkId;
    if (!trigger || this.openIncidentOf(cause.accountId, checkId)) return false;
    // A service deleted since (or another tenant's id) opens nothing: there is no page to show it on.
    if (!this.#store.services.get(cause.accountId, trigger.serviceId)) return false;
    const description = trigger.description !== '' ? trigger.description : `Check '${cause.context.checkName}' is failing.`;
    const incident = createIncident(
      {
        name: trigger.name.slice(0, INCIDENT_NAME_MAX),
        severity: trigger.severity,
        serviceIds: [trigger.serviceId],
        initialUpdates: [{ description, status: 'INVESTIGATING', notifySubscribers: trigger.notifySubscribers }],
      },
      { newId: randomUUID, now: new Date(cause.atMs) },
    );
    this.#pages.insertIncident(cause.accountId, incident);
    this.#table.remember(cause.accountId, checkId, incident.id);
    return trigger.notifySubscribers && this.#mailSubscribers(cause, incident, description) > 0;
  }

  /** Resolves the check's open incident, if any; call inside the alert-state transaction. Returns whether it queued e-mail. */
  resolve(cause: IncidentCause): boolean {
    return this.#close(cause, `Check '${cause.context.checkName}' has recovered.`);
  }

  /** Resolves the open incident of a check being deleted, if any; call inside the deletion's transaction. */
  checkDeleted(accountId: string, check: StoredDoc, atMs: number): boolean {
    const context: IncidentCause['context'] = {
      checkId: String(check.id),
      checkName: String(check.name ?? ''),
      checkType: String(check.checkType ?? ''),
      checkResultId: null,
      responseTime: null,
      runLocation: null,
      startedAt: null,
      errorMessage: null,
      groupName: null,
      tags: Array.isArray(check.tags) ? check.tags.filter((tag): tag is string => typeof tag === 'string') : [],
      statusCode: null,
      statusText: null,
    };
    return this.#close({ accountId, check, context, atMs }, deletedCheckUpdate(context.checkName));
  }

  #close(cause: IncidentCause, description: string): boolean {
    const checkId = cause.context.checkId;
    const open = this.openIncidentOf(cause.accountId, checkId);
    this.#table.forget(cause.accountId, checkId);
    if (!open) return false;
    const notify = triggerOf(cause.check)?.notifySubscribers === true;
    const now = new Date(cause.atMs);
    // The API refuses updates past the limit; the resolution must still land, as a status change.
    const resolved =
      open.incidentUpdates.length >= INCIDENT_UPDATES_MAX
        ? updateIncident(open, { lastUpdateStatus: 'RESOLVED' }, now)
        : addIncidentUpdate(open, { description, status: 'RESOLVED', notifySubscribers: notify }, { newId: randomUUID, now }).incident;
    this.#pages.replaceIncident(cause.accountId, resolved);
    return notify && this.#mailSubscribers(cause, resolved, description) > 0;
  }

  #mailSubscribers(cause: IncidentCause, incident: IncidentState, description: string): number {
    let queued = 0;
    for (const serviceId of incident.serviceIds) {
      for (const page of this.#pages.statusPagesShowing(cause.accountId, serviceId)) {
        const addresses = new Set<string>();
        for (const subscription of this.#pages.verifiedSubscriptionsOf(cause.accountId, page.id)) {
          if (addresses.has(subscription.address)) continue;
          addresses.add(subscription.address);
          const id = randomUUID();
          this.#outbox.enqueue(cause.accountId, {
            id,
            checkId: cause.context.checkId,
            alertChannelId: 0,
            channelType: SUBSCRIBER_DELIVERY,
            alertType: `INCIDENT_${incident.lastUpdateStatus}`,
            doc: {
              context: { ...cause.context, notificationId: id, alertType: `INCIDENT_${incident.lastUpdateStatus}` },
              alertConfig: {
                address: subscription.address,
                // Names the subscription its unsubscribe link removes (signed when the mail is sent).
                subscriptionId: subscription.id,
                statusPageId: page.id,
                statusPageName: page.name,
                incidentId: incident.id,
                incidentName: incident.name,
                severity: incident.severity,
                status: incident.lastUpdateStatus,
                description,
              },
              checkAlertId: incident.id,
            },
          });
          queued++;
        }
      }
    }
    return queued;
  }
}

/** The RESOLVED update of the incident a deleted check had open. */
export function deletedCheckUpdate(checkName: string): string {
  return `Check '${checkName}' was deleted.`;
}

/** The check's trigger, or undefined when it has none (or one the schema would not accept). */
function triggerOf(check: StoredDoc): TriggerIncident | undefined {
  if (check.triggerIncident === null || check.triggerIncident === undefined) return undefined;
  const parsed = TriggerIncident.safeParse(check.triggerIncident);
  return parsed.success ? parsed.data : undefined;
}
