import type { AlertChannelType } from '@vigil/schema';
import { ALERT_CHANNEL_PROP_KEYS, AlertChannel, type AlertChannelProps, type ChannelConfig } from './alert-channel.js';
import type { PropKeys } from './unknown-props.js';

export interface EmailAlertChannelProps extends AlertChannelProps {
  /** The e-mail address alerts are sent to. */
  address: string;
}

const EMAIL_ALERT_CHANNEL_PROP_KEYS: PropKeys<EmailAlertChannelProps> = { ...ALERT_CHANNEL_PROP_KEYS, address: true };

/** Sends alerts by e-mail. */
export class EmailAlertChannel extends AlertChannel {
  declare readonly props: EmailAlertChannelProps;

  /**
   * @param logicalId unique (per kind) name of the channel in this project
   * @param props the channel's address and notification switches
   */
  constructor(logicalId: string, props: EmailAlertChannelProps) {
    super(logicalId, props);
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return EMAIL_ALERT_CHANNEL_PROP_KEYS;
  }

  protected channelType(): AlertChannelType {
    return 'EMAIL';
  }

  protected channelConfig(): ChannelConfig {
    return { config: { address: this.props.address } };
  }
}
