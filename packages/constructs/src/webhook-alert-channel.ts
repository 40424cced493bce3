import type { AlertChannelType, HttpMethod } from '@vigil/schema';
import { ALERT_CHANNEL_PROP_KEYS, AlertChannel, urlText, type AlertChannelProps, type ChannelConfig } from './alert-channel.js';
import type { BuildContext } from './build-context.js';
import { checkHttpUrl } from './http-url.js';
import type { PropKeys } from './unknown-props.js';
import type { KeyValue } from './api-check.js';

export interface WebhookAlertChannelProps extends AlertChannelProps {
  /** Friendly name to recognise the integration. */
  name: string;
  /** The URL the webhook request is sent to (a string or a `URL`). Text that is not an http(s) URL (a placeholder) is warned about, not refused: the service stores it, and notifications fail until it is set. */
  url: string | URL;
  /** HTTP method of the webhook request, like an API check's. Default `POST`. */
  method?: HttpMethod;
  /** Headers sent with the webhook request. */
  headers?: KeyValue[];
  /** Query parameters added to the webhook URL. */
  queryParameters?: KeyValue[];
  /** Request body, commonly JSON, with Handlebars-style template variables for alert data. */
  template?: string;
  /**
   * Secret used to sign the webhook request, so the receiver can verify it. Secret: plans and
   * state only keep its hash.
   */
  webhookSecret?: string;
  /**
   * The integration this webhook stands for, e.g. `WEBHOOK_MSTEAMS`; set by the webhook-based
   * channels (`MSTeamsAlertChannel`, `TelegramAlertChannel`, …), rarely by hand.
   */
  webhookType?: string;
}

const WEBHOOK_ALERT_CHANNEL_PROP_KEYS: PropKeys<WebhookAlertChannelProps> = { ...ALERT_CHANNEL_PROP_KEYS, name: true, url: true, method: true, headers: true, queryParameters: true, template: true, webhookSecret: true, webhookType: true };

/** Sends alerts as an HTTP request to any URL. */
export class WebhookAlertChannel extends AlertChannel {
  declare readonly props: WebhookAlertChannelProps;

  /**
   * @param logicalId unique (per kind) name of the channel in this project
   * @param props the request to send and notification switches
   */
  constructor(logicalId: string, props: WebhookAlertChannelProps) {
    super(logicalId, props);
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return WEBHOOK_ALERT_CHANNEL_PROP_KEYS;
  }

  protected channelType(): AlertChannelType {
    return 'WEBHOOK';
  }

  protected channelConfig(context: BuildContext): ChannelConfig {
    const { name, url, method, headers, queryParameters, template, webhookSecret, webhookType } = this.props;
    checkHttpUrl(context, urlText(url), 'url', ['config', 'url'], 'warning');
    if (typeof webhookType === 'string' && !/^WEBHOOK_[A-Z0-9_]+$/.test(webhookType)) {
      context.error('webhookType', `"webhookType" must be WEBHOOK_ followed by capital letters, digits or _, e.g. "WEBHOOK_MSTEAMS", got ${JSON.stringify(webhookType)}`);
    }
    return {
      config: { name, url: urlText(url), method: method ?? 'POST', headers: headers ?? [], queryParameters: queryParameters ?? [], template, webhookSecret, webhookType },
      secretKeys: ['webhookSecret'],
    };
  }
}
