import type { AlertChannelType } from '@vigil/schema';
import { ALERT_CHANNEL_PROP_KEYS, AlertChannel, urlText, type AlertChannelProps, type ChannelConfig } from './alert-channel.js';
import type { BuildContext } from './build-context.js';
import { checkHttpUrl } from './http-url.js';
import type { PropKeys } from './unknown-props.js';

export interface SlackAlertChannelProps extends AlertChannelProps {
  /** The Slack incoming-webhook URL (a string or a `URL`). */
  url: string | URL;
  /** Channel to post in, e.g. `#ops`; the webhook's own channel when omitted. */
  channel?: string;
}

const SLACK_ALERT_CHANNEL_PROP_KEYS: PropKeys<SlackAlertChannelProps> = { ...ALERT_CHANNEL_PROP_KEYS, url: true, channel: true };

/** Posts alerts to Slack through an incoming webhook. */
export class SlackAlertChannel extends AlertChannel {
  declare readonly props: SlackAlertChannelProps;

  /**
   * @param logicalId unique (per kind) name of the channel in this project
   * @param props the webhook URL, channel and notification switches
   */
  constructor(logicalId: string, props: SlackAlertChannelProps) {
    super(logicalId, props);
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return SLACK_ALERT_CHANNEL_PROP_KEYS;
  }

  protected channelType(): AlertChannelType {
    return 'SLACK';
  }

  protected channelConfig(context: BuildContext): ChannelConfig {
    checkHttpUrl(context, urlText(this.props.url), 'url', ['config', 'url']);
    return { config: { url: urlText(this.props.url), channel: this.props.channel } };
  }
}
