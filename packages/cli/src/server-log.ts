/**
 * What `vigil server` says on stderr while it runs: a check that failed, an alert sent, a delivery
 * that failed (to be retried, or given up on), and the service's own notices — one line each, as
 * text for a person (default) or as JSON lines for a log collector (`--log-format json`).
 */
import type { CheckFailedEvent, DeliveryEvent } from '@vigil/server';
import { oneLine } from './errors.js';
import { failureReason } from './testing/outcome.js';

export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

type Level = 'info' | 'warn' | 'error';

export interface ServerLog {
  checkFailed(event: CheckFailedEvent): void;
  delivery(event: DeliveryEvent): void;
  /** A notice of the service itself (`sandbox`, `stopping`, `service-error`) in the chosen format. */
  notice(event: string, level: Level, message: string): void;
}

export function serverLog(format: LogFormat, write: (line: string) => void = (line) => process.stderr.write(`${line}\n`), now: () => Date = () => new Date()): ServerLog {
  const emit = (level: Level, event: string, fields: Record<string, unknown>, text: string) =>
    write(format === 'json' ? JSON.stringify({ time: now().toISOString(), level, event, ...fields }) : `vigil server: ${text}`);
  return {
    checkFailed({ accountId, checkId, checkName, location, result }) {
      const reason = failureReason(result);
      emit('warn', 'check-failed', { accountId, checkId, checkName, location, reason }, `check "${oneLine(checkName)}" (${checkId}, account ${accountId}) failed in ${location}: ${oneLine(reason)}`);
    },
    delivery(event) {
      const { accountId, checkId, checkName, alertType, channelId, channelType, attempts, outcome, notificationId } = event;
      const fields = { accountId, checkId, checkName, alertType, channelId, channelType, notificationId, attempts, ...(event.error === undefined ? {} : { error: event.error }) };
      const what = `${alertType} of check "${oneLine(checkName)}" (${checkId}, account ${accountId}) to ${channelType} channel ${channelId}`;
      const why = event.error === undefined ? '' : `: ${oneLine(event.error)}`;
      if (outcome === 'sent') emit('info', 'alert-sent', fields, `alert ${what} sent (attempt ${attempts})`);
      else if (outcome === 'retrying') emit('warn', 'alert-delivery-failed', { ...fields, retrying: true }, `alert ${what} failed, will retry (attempt ${attempts})${why}`);
      else emit('error', 'alert-delivery-failed', { ...fields, retrying: false, ...(outcome === 'undeliverable' ? { undeliverable: true } : {}) }, `alert ${what} ${outcome === 'undeliverable' ? 'cannot be delivered' : `failed for good after ${attempts} attempt(s)`}${why}`);
    },
    notice(event, level, message) {
      emit(level, event, { message }, message);
    },
  };
}
