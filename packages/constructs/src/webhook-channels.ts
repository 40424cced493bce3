/**
 * The Checkly CLI's webhook-based alert channels: each is a WEBHOOK channel with a `webhookType`,
 * a fixed method and the integration's payload template, built from the props that integration
 * needs. The service delivers them as any webhook.
 */
import type { AlertChannelType } from '@vigil/schema';
import { ALERT_CHANNEL_PROP_KEYS, AlertChannel, urlText, type AlertChannelProps, type ChannelConfig } from './alert-channel.js';
import type { BuildContext } from './build-context.js';
import { checkHttpUrl } from './http-url.js';
import type { PropKeys } from './unknown-props.js';
import { INCIDENTIO_TEMPLATE, MSTEAMS_TEMPLATE, TELEGRAM_TEMPLATE } from './webhook-templates.js';

/** What every webhook-based channel's config holds, in the order the service stores it. */
function webhookConfig(fields: { name: string; webhookType: string; url: unknown; template: string; headers?: Array<{ key: string; value: string; locked: boolean }> }): Record<string, unknown> {
  return { name: fields.name, webhookType: fields.webhookType, url: fields.url, template: fields.template, method: 'POST', headers: fields.headers ?? [], queryParameters: [] };
}

export interface MSTeamsAlertChannelProps extends AlertChannelProps {
  /** Friendly name to recognise the integration. */
  name: string;
  /** The Microsoft Teams workflow (incoming webhook) URL, a string or a `URL`. A placeholder such as `INSERT_WEBHOOK_HERE` is warned about, not refused; notifications fail until it is set. */
  url: string | URL;
  /** The message body: an Adaptive Card JSON template. Default: the Checkly CLI's card. */
  payload?: string;
}

/** Posts alerts to a Microsoft Teams channel as an Adaptive Card (`WEBHOOK_MSTEAMS`). */
export class MSTeamsAlertChannel extends AlertChannel {
  declare readonly props: MSTeamsAlertChannelProps;
  /** The card sent when `payload` is not set. */
  static readonly DEFAULT_PAYLOAD = MSTEAMS_TEMPLATE;

  /**
   * @param logicalId unique (per kind) name of the channel in this project
   * @param props the Teams webhook URL, the card and notification switches
   */
  constructor(logicalId: string, props: MSTeamsAlertChannelProps) {
    super(logicalId, props);
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return { ...ALERT_CHANNEL_PROP_KEYS, name: true, url: true, payload: true } satisfies PropKeys<MSTeamsAlertChannelProps>;
  }

  protected channelType(): AlertChannelType {
    return 'WEBHOOK';
  }

  protected override configPropNames(): Record<string, string> {
    return { template: 'payload' };
  }

  protected channelConfig(context: BuildContext): ChannelConfig {
    const { name, url, payload } = this.props;
    checkHttpUrl(context, urlText(url), 'url', ['config', 'url'], 'warning');
    return { config: webhookConfig({ name, webhookType: 'WEBHOOK_MSTEAMS', url: urlText(url), template: payload ?? MSTEAMS_TEMPLATE }) };
  }
}

export interface TelegramAlertChannelProps extends AlertChannelProps {
  /** Friendly name to recognise the integration. */
  name: string;
  /** The chat the bot posts to. */
  chatId: string;
  /** The bot's token. Secret: plans and state only keep a hash of the URL it is part of. */
  apiKey: string;
  /** A topic of the chat to post in. */
  messageThreadId?: string;
  /** The message, Telegram HTML with template variables. Default: the Checkly CLI's message. */
  payload?: string;
}

/** Sends alerts through a Telegram bot (`WEBHOOK_TELEGRAM`). */
export class TelegramAlertChannel extends AlertChannel {
  declare readonly props: TelegramAlertChannelProps;
  /** The message sent when `payload` is not set. */
  static readonly DEFAULT_PAYLOAD = TELEGRAM_TEMPLATE;

  /**
   * @param logicalId unique (per kind) name of the channel in this project
   * @param props the bot, the chat and notification switches
   */
  constructor(logicalId: string, props: TelegramAlertChannelProps) {
    super(logicalId, props);
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return { ...ALERT_CHANNEL_PROP_KEYS, name: true, chatId: true, apiKey: true, messageThreadId: true, payload: true } satisfies PropKeys<TelegramAlertChannelProps>;
  }

  protected channelType(): AlertChannelType {
    return 'WEBHOOK';
  }

  protected override configPropNames(): Record<string, string> {
    return { url: 'apiKey', template: 'payload' };
  }

  protected channelConfig(): ChannelConfig {
    const { name, chatId, apiKey, messageThreadId, payload } = this.props;
    // As the Checkly CLI builds it: a form body whose text is not escaped (kept for compatibility).
    const thread = messageThreadId ? `&message_thread_id=${messageThreadId}` : '';
    return {
      config: webhookConfig({
        name,
        webhookType: 'WEBHOOK_TELEGRAM',
        url: `https://api.telegram.org/bot${apiKey}/sendMessage`,
        template: `chat_id=${chatId}${thread}&parse_mode=HTML&text=${payload ?? TELEGRAM_TEMPLATE}`,
      }),
      // The bot token is in the URL.
      secretKeys: ['url'],
    };
  }
}

export interface IncidentioAlertChannelProps extends AlertChannelProps {
  /** Friendly name to recognise the integration. */
  name: string;
  /** The incident.io alert source's HTTP URL, a string or a `URL`. */
  url: string | URL;
  /** The alert source's API key, sent as a bearer token. Secret: plans and state keep its hash. */
  apiKey: string;
  /** The alert body, JSON with template variables. Default: the Checkly CLI's body. */
  payload?: string;
}

/** Fires and resolves incident.io alerts (`WEBHOOK_INCIDENTIO`). */
export class IncidentioAlertChannel extends AlertChannel {
  declare readonly props: IncidentioAlertChannelProps;
  /** The body sent when `payload` is not set. */
  static readonly DEFAULT_PAYLOAD = INCIDENTIO_TEMPLATE;

  /**
   * @param logicalId unique (per kind) name of the channel in this project
   * @param props the alert source's URL and key, and notification switches
   */
  constructor(logicalId: string, props: IncidentioAlertChannelProps) {
    super(logicalId, props);
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return { ...ALERT_CHANNEL_PROP_KEYS, name: true, url: true, apiKey: true, payload: true } satisfies PropKeys<IncidentioAlertChannelProps>;
  }

  protected channelType(): AlertChannelType {
    return 'WEBHOOK';
  }

  protected override configPropNames(): Record<string, string> {
    return { template: 'payload', headers: 'apiKey' };
  }

  protected channelConfig(context: BuildContext): ChannelConfig {
    const { name, url, apiKey, payload } = this.props;
    checkHttpUrl(context, urlText(url), 'url', ['config', 'url'], 'warning');
    context.secret(['config', 'headers', 0, 'value']);
    return {
      config: webhookConfig({
        name,
        webhookType: 'WEBHOOK_INCIDENTIO',
        url: urlText(url),
        template: payload ?? INCIDENTIO_TEMPLATE,
        headers: [{ key: 'authorization', value: `Bearer ${apiKey}`, locked: false }],
      }),
    };
  }
}
