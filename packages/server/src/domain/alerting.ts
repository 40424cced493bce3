/**
 * The `alertChannels` summary in check responses. (Which channels a check or group subscribes to is
 * resolved over the ports by domain/checks.ts and domain/check-groups.ts.)
 */
import type { AlertChannelSubscription, StoredDoc } from '../store/index.js';

export interface AlertChannelsSummary {
  email: Array<{ address: string }>;
  webhook: Array<{ url: string; name: string; method: string; headers: unknown[]; queryParameters: unknown[] }>;
  slack: Array<{ url: string }>;
  sms: Array<{ number: string; name: string }>;
}

/** The response-only `alertChannels` of a check: its activated channels, by kind. */
export function summarizeChannels(channelsById: ReadonlyMap<number, StoredDoc>, subscriptions: readonly AlertChannelSubscription[]): AlertChannelsSummary {
  const summary: AlertChannelsSummary = { email: [], webhook: [], slack: [], sms: [] };
  for (const subscription of subscriptions) {
    if (!subscription.activated) continue;
    const channel = channelsById.get(subscription.alertChannelId);
    if (!channel) continue;
    const config = (channel['config'] ?? {}) as Record<string, unknown>;
    switch (channel['type']) {
      case 'EMAIL':
        summary.email.push({ address: String(config['address'] ?? '') });
        break;
      case 'WEBHOOK':
        summary.webhook.push({
          url: String(config['url'] ?? ''),
          name: String(config['name'] ?? ''),
          method: String(config['method'] ?? 'POST'),
          headers: (config['headers'] as unknown[] | undefined) ?? [],
          queryParameters: (config['queryParameters'] as unknown[] | undefined) ?? [],
        });
        break;
      case 'SLACK':
        summary.slack.push({ url: String(config['url'] ?? '') });
        break;
      case 'SMS':
        summary.sms.push({ number: String(config['number'] ?? ''), name: String(config['name'] ?? '') });
        break;
      default:
        // SLACK_APP, CALL, PAGERDUTY and OPSGENIE have no place in the summary the spec defines.
        break;
    }
  }
  return summary;
}
