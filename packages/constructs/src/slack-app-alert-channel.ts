import type { AlertChannelType } from '@vigil/schema';
import { ALERT_CHANNEL_PROP_KEYS, AlertChannel, type AlertChannelProps, type ChannelConfig } from './alert-channel.js';
import type { PropKeys } from './unknown-props.js';

export interface SlackAppAlertChannelProps extends AlertChannelProps {
  /**
   * Slack channels and people to notify: `#channel` names, channel ids (`C0123…`) or `@handle`s,
   * at least one. The app must be invited to a private channel before it can post there.
   * @example ['#alerts', '#ops', '@alice']
   */
  slackChannels: string[];
}

const SLACK_APP_ALERT_CHANNEL_PROP_KEYS: PropKeys<SlackAppAlertChannelProps> = { ...ALERT_CHANNEL_PROP_KEYS, slackChannels: true };

/**
 * Posts alerts to Slack through the Slack App installed in the account's workspace. No URL or
 * token here: the installation holds the bot token, so this channel only names where to post.
 */
export class SlackAppAlertChannel extends AlertChannel {
  declare readonly props: SlackAppAlertChannelProps;

  /**
   * @param logicalId unique (per kind) name of the channel in this project
   * @param props the Slack channels to post to and the notification switches
   */
  constructor(logicalId: string, props: SlackAppAlertChannelProps) {
    super(logicalId, props);
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return SLACK_APP_ALERT_CHANNEL_PROP_KEYS;
  }

  protected channelType(): AlertChannelType {
    return 'SLACK_APP';
  }

  protected channelConfig(): ChannelConfig {
    return { config: { slackChannels: this.props.slackChannels } };
  }
}
