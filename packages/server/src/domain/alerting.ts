/**
 * Alert-channel subscriptions of checks and groups: the `autoAssignAlerts` query, channel
 * `autoSubscribe`, reference checks, and the `alertChannels` summary in check responses.
 */
import { invalid } from './errors.js';
import type { AlertChannelSubscription, StoredDoc, Store, SubscriptionOwnerKind } from '../store/index.js';

/** Every listed channel id must be one of the account's channels (400 naming the bad entry). */
export function assertChannelsExist(store: Store, accountId: string, subscriptions: readonly AlertChannelSubscription[] | undefined): void {
  subscriptions?.forEach((subscription, index) => {
    if (!store.alertChannels.get(accountId, subscription.alertChannelId)) {
      throw invalid(`"alertChannelSubscriptions[${index}].alertChannelId" references alert channel ${subscription.alertChannelId}, which does not exist`, [`alertChannelSubscriptions.${index}.alertChannelId`]);
    }
  });
}

/**
 * The subscriptions a check or group ends up with: the ones sent (or kept), plus every channel of
 * the account when `autoAssignAlerts` is true, plus — for a new check — every channel
 * with `autoSubscribe`. A channel already listed keeps its sent `activated` value.
 */
export function resolveSubscriptions(
  store: Store,
  accountId: string,
  options: { sent: readonly AlertChannelSubscription[]; autoAssignAlerts: boolean; newCheck: boolean },
): AlertChannelSubscription[] {
  const result = options.sent.map((subscription) => ({ alertChannelId: subscription.alertChannelId, activated: subscription.activated }));
  const listed = new Set(result.map((subscription) => subscription.alertChannelId));
  if (!options.autoAssignAlerts && !options.newCheck) return result;
  for (const channel of store.alertChannels.all(accountId)) {
    const id = channel.id as number;
    if (listed.has(id)) continue;
    if (options.autoAssignAlerts || (options.newCheck && channel['autoSubscribe'] === true)) {
      result.push({ alertChannelId: id, activated: true });
      listed.add(id);
    }
  }
  return result;
}

export function indexSubscriptions(store: Store, accountId: string, ownerKind: SubscriptionOwnerKind, doc: StoredDoc): void {
  store.subscriptions.set(accountId, ownerKind, doc.id, (doc['alertChannelSubscriptions'] as AlertChannelSubscription[] | undefined) ?? []);
}

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
