import type { AlertChannelType } from '@vigil/schema';
import { AlertChannel, type AlertChannelProps, type ChannelConfig } from './alert-channel.js';

export interface EmailAlertChannelProps extends AlertChannelProps {
  /** The e-mail address alerts are sent to. */
  address: string;
}

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

  protected channelType(): AlertChannelType {
    return 'EMAIL';
  }

  protected channelConfig(): ChannelConfig {
    return { config: { address: this.props.address } };
  }
}
