/**
 * The outbox's log (ports.ts `NotificationOutbox.log`): the checks of its query, one wording for both
 * engines, and the row both engines read, as the port hands it out.
 */
import { moment, positive, shown, StoreInputError, text } from './port-rules.js';
import type { LoggedNotification, NotificationLogQuery, SettledDelivery } from './ports.js';

export function checkNotificationLogQuery(accountId: unknown, query: NotificationLogQuery): void {
  text('accountId', accountId);
  moment('fromMs', query.fromMs);
  moment('toMs', query.toMs);
  if (query.alertChannelId !== undefined) positive('alertChannelId', query.alertChannelId);
  if (query.checkId !== undefined) text('checkId', query.checkId);
  if (query.failed !== undefined && typeof query.failed !== 'boolean') throw new StoreInputError(`failed must be true, false or absent, got ${shown(query.failed)}`);
  positive('limit', query.limit);
  positive('page', query.page);
}

/** The deliveries `failed: true` lists. */
export const FAILED_DELIVERIES: readonly SettledDelivery[] = ['FAILED', 'UNDELIVERABLE'];

/** An outbox row as both engines read it for the log (a BIGINT may come back as text). */
export interface LoggedRow {
  readonly account_id: string;
  readonly id: string;
  readonly check_id: string;
  readonly alert_channel_id: number | string;
  readonly channel_type: string;
  readonly alert_type: string;
  readonly delivery: LoggedNotification['delivery'];
  readonly attempts: number;
  readonly created_ms: number | string;
  readonly settled_ms: number | string | null;
  readonly last_error: string | null;
  readonly notification_result: string | null;
  readonly doc: string;
}

export function loggedOf(row: LoggedRow): LoggedNotification {
  return {
    id: row.id,
    accountId: row.account_id,
    checkId: row.check_id,
    alertChannelId: Number(row.alert_channel_id),
    channelType: row.channel_type,
    alertType: row.alert_type,
    doc: row.doc,
    delivery: row.delivery,
    attempts: row.attempts,
    createdMs: Number(row.created_ms),
    settledMs: row.settled_ms === null ? null : Number(row.settled_ms),
    lastError: row.last_error,
    result: row.notification_result,
  };
}
