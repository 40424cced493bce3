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
 * - Resolved too when the check is deleted through the API (`resolveDeletedCheckIncident`, in the
 *   delete's unit of work), with the update "Check 'NAME' was deleted.": nothing would run the check
 *   again to resolve it, and its `check_incidents` row would outlive it.
 * - `notifySubscribers`: each update (INVESTIGATING, RESOLVED) is e-mailed to the VERIFIED
 *   subscribers of every status page that shows the service, one outbox row per subscriber and page,
 *   delivered with the notifications' retries; a PENDING subscriber never gets mail.
 *
 * `openCheckIncident` / `resolveCheckIncident` / `resolveDeletedCheckIncident` write through a unit
 * of work's ports (`IncidentPorts`), on either engine: called in the unit that moves the state (or
 * deletes the check), the incident, the check's open-incident mark and the subscribers' mail commit
 * or roll back with it.
 */
import { randomUUID } from 'node:crypto';
import { INCIDENT_NAME_MAX, INCIDENT_UPDATES_MAX, TriggerIncident } from '@vigil/schema';
import { addIncidentUpdate, createIncident, updateIncident, type IncidentState } from '../readside/incidents.js';
import type { StoredDoc } from '../store/index.js';
import type { TransactionPorts } from '../store/ports.js';
import { SUBSCRIBER_DELIVERY, type AlertContext } from './channels.js';
import type { NotificationDoc } from './outbox.js';

/** The ports opening or resolving a check's incident writes through: a unit of work's (TransactionPorts fits). */
export type IncidentPorts = Pick<TransactionPorts, 'incidents' | 'statusPages' | 'documents' | 'outbox'>;

/** The check whose alert moved, and the context its notifications carry. */
export interface IncidentCause {
  accountId: string;
  check: StoredDoc;
  context: Omit<AlertContext, 'notificationId' | 'alertType'>;
  atMs: number;
}

/**
 * Opens the check's incident through a unit's ports unless it has one open (or no trigger, or its
 * service is gone); call in the unit that moves the check's alert state to ALERT_FAILURE. Resolves
 * to whether it queued e-mail.
 */
export async function openCheckIncident(ports: IncidentPorts, cause: IncidentCause): Promise<boolean> {
  const opening = incidentOpenedBy(cause);
  if (!opening) return false;
  const { incident, trigger, description } = opening;
  if (!isStoredId(trigger.serviceId) || !(await ports.documents.get('services', cause.accountId, trigger.serviceId))) return false;
  if (!(await ports.incidents.openForCheck(cause.accountId, cause.context.checkId, incident))) return false;
  return trigger.notifySubscribers && (await queueSubscriberMail(ports, cause, incident, description)) > 0;
}

/** Resolves the check's open incident, if any, through a unit's ports; call in the unit of its recovery. Resolves to whether it queued e-mail. */
export async function resolveCheckIncident(ports: IncidentPorts, cause: IncidentCause): Promise<boolean> {
  return closeThrough(ports, cause, `Check '${cause.context.checkName}' has recovered.`);
}

/** Resolves the open incident of a check being deleted, if any, in the delete's unit of work. Resolves to whether it queued e-mail. */
export async function resolveDeletedCheckIncident(ports: IncidentPorts, accountId: string, check: StoredDoc, atMs: number): Promise<boolean> {
  const cause = deletionCause(accountId, check, atMs);
  return closeThrough(ports, cause, deletedCheckUpdate(cause.context.checkName));
}

async function closeThrough(ports: IncidentPorts, cause: IncidentCause, description: string): Promise<boolean> {
  const checkId = cause.context.checkId;
  if (!isStoredId(checkId)) return false;
  const open = await ports.incidents.openOfCheck(cause.accountId, checkId);
  if (!open) {
    await ports.incidents.resolveForCheck(cause.accountId, checkId);
    return false;
  }
  const notify = triggerOf(cause.check)?.notifySubscribers === true;
  const resolved = resolvedState(open, description, notify, cause.atMs);
  await ports.incidents.resolveForCheck(cause.accountId, checkId, resolved);
  return notify && (await queueSubscriberMail(ports, cause, resolved, description)) > 0;
}

async function queueSubscriberMail(ports: IncidentPorts, cause: IncidentCause, incident: IncidentState, description: string): Promise<number> {
  let queued = 0;
  const nowMs = Date.now();
  for (const serviceId of incident.serviceIds) {
    for (const page of await ports.statusPages.showingService(cause.accountId, serviceId)) {
      const verified = (await ports.statusPages.subscriptionsOf(cause.accountId, page.id)).filter(isVerifiedSubscription);
      for (const row of subscriberMail(cause, incident, description, page, verified)) {
        await ports.outbox.enqueue({ ...row, accountId: cause.accountId, doc: JSON.stringify(row.doc) }, nowMs);
        queued++;
      }
    }
  }
  return queued;
}

/** Ids the ports accept; any other names nothing stored (the ports would refuse it as a bug). */
function isStoredId(id: unknown): id is string {
  return typeof id === 'string' && id.length > 0 && id.length <= 255;
}

function isVerifiedSubscription(subscription: Record<string, unknown>): subscription is Record<string, unknown> & { id: string; address: string } {
  return subscription['status'] === 'VERIFIED' && typeof subscription['address'] === 'string';
}

/** The incident a failing check's trigger opens, its first update's text and the trigger; undefined without a trigger. */
function incidentOpenedBy(cause: IncidentCause): { incident: IncidentState; trigger: TriggerIncident; description: string } | undefined {
  const trigger = triggerOf(cause.check);
  if (!trigger) return undefined;
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
  return { incident, trigger, description };
}

/** The open incident RESOLVED: by an update, or, past the updates' limit (the API refuses more), as a status change. */
function resolvedState(open: IncidentState, description: string, notify: boolean, atMs: number): IncidentState {
  const now = new Date(atMs);
  return open.incidentUpdates.length >= INCIDENT_UPDATES_MAX
    ? updateIncident(open, { lastUpdateStatus: 'RESOLVED' }, now)
    : addIncidentUpdate(open, { description, status: 'RESOLVED', notifySubscribers: notify }, { newId: randomUUID, now }).incident;
}

/** What a deleted check's resolution tells: the check as it was, no run. */
function deletionCause(accountId: string, check: StoredDoc, atMs: number): IncidentCause {
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
  return { accountId, check, context, atMs };
}

/** One outbox row per distinct address among a page's verified subscriptions, in their order. */
function subscriberMail(
  cause: IncidentCause,
  incident: IncidentState,
  description: string,
  page: { readonly id: string; readonly name: string },
  verified: ReadonlyArray<{ readonly id: string; readonly address: string }>,
): Array<{ id: string; checkId: string; alertChannelId: number; channelType: string; alertType: string; doc: NotificationDoc }> {
  const addresses = new Set<string>();
  const rows: Array<{ id: string; checkId: string; alertChannelId: number; channelType: string; alertType: string; doc: NotificationDoc }> = [];
  for (const subscription of verified) {
    if (addresses.has(subscription.address)) continue;
    addresses.add(subscription.address);
    const id = randomUUID();
    rows.push({
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
  }
  return rows;
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
