import type { AlertChannelType, HttpMethod } from '@vigil/schema';
import { AlertChannel, type AlertChannelProps, type ChannelConfig } from './alert-channel.js';
import type { KeyValue } from './api-check.js';

export interface WebhookAlertChannelProps extends AlertChannelProps {
  /** Friendly name to recognise the integration. */
  name: string;
  /** The URL the webhook request is sent to. */
  url: string;
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
}

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

  protected channelType(): AlertChannelType {
    return 'WEBHOOK';
  }

  protected channelConfig(): ChannelConfig {
    const { name, url, method, headers, queryParameters, template, webhookSecret } = this.props;
    return {
      config: { name, url, method: method ?? 'POST', headers: headers ?? [], queryParameters: queryParameters ?? [], template, webhookSecret },
      secretKeys: ['webhookSecret'],
    };
  }
}
