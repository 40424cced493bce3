/**
 * Alert notifications (`GET /v1/alert-notifications`, real API; not in the spec): one row per alert
 * sent (or being sent) to one channel. The fields of the real service's `AlertNotification` come
 * first; `status` keeps its enum (IN_PROGRESS while pending, SUCCESS when sent, FAILURE otherwise).
 * Extensions: `alertType`, `delivery` (PENDING, SENT, FAILED after every retry, UNDELIVERABLE when
 * the service cannot deliver to that channel at all), `attempts` and `lastError`.
 */
import { z } from 'zod';
import { queryBoolean, queryInt } from './helpers.js';
import { PageQuery } from './paging.js';

export const NOTIFICATION_DELIVERIES = ['PENDING', 'SENT', 'FAILED', 'UNDELIVERABLE'] as const;
export const NotificationDelivery = z.enum(NOTIFICATION_DELIVERIES);
export type NotificationDelivery = z.infer<typeof NotificationDelivery>;

export const AlertNotification = z.object({
  id: z.string(),
  /** The channel's type (EMAIL, SLACK, WEBHOOK, …). */
  type: z.string(),
  status: z.enum(['IN_PROGRESS', 'SUCCESS', 'FAILURE']),
  /** The channel's config when the alert happened, secrets (webhookSecret, keys, header values) masked. */
  alertConfig: z.record(z.string(), z.unknown()),
  /** What the receiver answered (status and the start of its body), once sent. */
  notificationResult: z.string().nullable(),
  /** When the notification was settled (sent, failed or found undeliverable); null while pending. */
  timestamp: z.string().nullable(),
  checkType: z.string(),
  checkId: z.string(),
  /** One alert of a check (an ALERT_FAILURE, say) shared by the notifications to each of its channels. */
  checkAlertId: z.string(),
  alertChannelId: z.number().int(),
  checkResultId: z.string().nullable(),
  alertType: z.string(),
  delivery: NotificationDelivery,
  attempts: z.number().int(),
  lastError: z.string().nullable(),
});
export type AlertNotification = z.infer<typeof AlertNotification>;

/** Query of `GET /v1/alert-notifications`; the window defaults to the 24 hours before now. */
export const AlertNotificationsQuery = PageQuery.extend({
  /** UNIX seconds, inclusive; default `to` − 24 h. */
  from: queryInt().min(0).optional(),
  /** UNIX seconds, exclusive; default `from` + 24 h, or now when neither is given. */
  to: queryInt().min(0).optional(),
  alertChannelId: queryInt().min(1).optional(),
  /** true: FAILED and UNDELIVERABLE only; false: the others. */
  hasFailures: queryBoolean().optional(),
});
export type AlertNotificationsQuery = z.infer<typeof AlertNotificationsQuery>;
