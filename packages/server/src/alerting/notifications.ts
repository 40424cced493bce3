/**
 * The read side of the outbox: `GET /v1/alert-notifications` rows of one account, in a time window
 * (on when the alert happened), newest first (ties: the later written first) as the real API lists
 * them, so the first page is what just happened. E-mails
 * to status-page subscribers share the outbox but are no alert channel's notifications: not listed.
 */
import type { AlertNotification } from '@vigil/schema';
import type { Page, Store } from '../store/index.js';
import { NotificationLogTable } from '../store/sqlite/alerting.js';
import { SUBSCRIBER_DELIVERY } from './channels.js';
import { maskChannel } from './masking.js';
import type { NotificationDoc, NotificationRow } from './outbox.js';

export interface NotificationFilter {
  fromMs: number;
  toMs: number;
  alertChannelId?: number | undefined;
  hasFailures?: boolean | undefined;
}

const FAILED = new Set(['FAILED', 'UNDELIVERABLE']);

export class NotificationLog {
  readonly #table: NotificationLogTable;

  constructor(store: Store) {
    this.#table = new NotificationLogTable(store.db, SUBSCRIBER_DELIVERY);
  }

  list(accountId: string, filter: NotificationFilter, paging: { page: number; limit: number }): Page<AlertNotification> {
    const rows = this.#table.inWindow(accountId, filter.fromMs, filter.toMs, filter.alertChannelId ?? null).filter(
      (row) => filter.hasFailures === undefined || FAILED.has(row.delivery) === filter.hasFailures,
    );
    const start = (paging.page - 1) * paging.limit;
    return { items: rows.slice(start, start + paging.limit).map(toApi), total: rows.length };
  }
}

function toApi(row: NotificationRow): AlertNotification {
  const doc = JSON.parse(row.doc) as NotificationDoc;
  const channel = maskChannel(doc.alertConfig);
  return {
    id: row.id,
    type: row.channel_type,
    status: row.delivery === 'PENDING' ? 'IN_PROGRESS' : row.delivery === 'SENT' ? 'SUCCESS' : 'FAILURE',
    alertConfig: channel.config,
    notificationResult: channel.redact(row.notification_result),
    timestamp: row.settled_ms === null ? null : new Date(row.settled_ms).toISOString(),
    checkType: doc.context.checkType,
    checkId: row.check_id,
    checkAlertId: doc.checkAlertId,
    alertChannelId: row.alert_channel_id,
    checkResultId: doc.context.checkResultId,
    alertType: row.alert_type,
    delivery: row.delivery,
    attempts: row.attempts,
    lastError: channel.redact(row.last_error),
  };
}
