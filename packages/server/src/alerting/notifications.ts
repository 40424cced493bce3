/**
 * The read side of the outbox: `GET /v1/alert-notifications` rows of one account, in a time window
 * (on when the alert happened), newest first (ties: the later written first) as the real API lists
 * them, so the first page is what just happened. E-mails
 * to status-page subscribers share the outbox but are no alert channel's notifications: not listed.
 * Read through the outbox port, so any replica lists what every replica queued and delivered.
 */
import type { AlertNotification } from '@vigil/schema';
import type { Page } from '../store/index.js';
import type { LoggedNotification, NotificationOutbox } from '../store/ports.js';
import { maskChannel } from './masking.js';
import type { NotificationDoc } from './outbox.js';

export interface NotificationFilter {
  fromMs: number;
  toMs: number;
  alertChannelId?: number | undefined;
  /** The notifications of one check (the dashboard's check page). */
  checkId?: string | undefined;
  hasFailures?: boolean | undefined;
}

/** The outbox's log (NotificationOutbox.log) as the API shows it: channels' secrets masked. */
export class NotificationLog {
  readonly #outbox: Pick<NotificationOutbox, 'log'>;

  constructor(outbox: Pick<NotificationOutbox, 'log'>) {
    this.#outbox = outbox;
  }

  async list(accountId: string, filter: NotificationFilter, paging: { page: number; limit: number }): Promise<Page<AlertNotification>> {
    const { items, total } = await this.#outbox.log(accountId, {
      fromMs: filter.fromMs,
      toMs: filter.toMs,
      ...(filter.alertChannelId === undefined ? {} : { alertChannelId: filter.alertChannelId }),
      ...(filter.checkId === undefined ? {} : { checkId: filter.checkId }),
      ...(filter.hasFailures === undefined ? {} : { failed: filter.hasFailures }),
      page: paging.page,
      limit: paging.limit,
    });
    return { items: items.map(toApi), total };
  }
}

function toApi(row: LoggedNotification): AlertNotification {
  const doc = JSON.parse(row.doc) as NotificationDoc;
  const channel = maskChannel(doc.alertConfig);
  return {
    id: row.id,
    type: row.channelType,
    status: row.delivery === 'PENDING' ? 'IN_PROGRESS' : row.delivery === 'SENT' ? 'SUCCESS' : 'FAILURE',
    alertConfig: channel.config,
    notificationResult: channel.redact(row.result),
    timestamp: row.settledMs === null ? null : new Date(row.settledMs).toISOString(),
    checkType: doc.context.checkType,
    checkId: row.checkId,
    checkAlertId: doc.checkAlertId,
    alertChannelId: row.alertChannelId,
    checkResultId: doc.context.checkResultId,
    alertType: row.alertType,
    delivery: row.delivery,
    attempts: row.attempts,
    lastError: channel.redact(row.lastError),
  };
}
