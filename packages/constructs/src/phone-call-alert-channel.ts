import type { AlertChannelType } from '@vigil/schema';
import { AlertChannel, type AlertChannelProps, type ChannelConfig } from './alert-channel.js';

export interface PhoneCallAlertChannelProps extends AlertChannelProps {
  /** Friendly name to recognise the recipient. */
  name: string;
  /** Phone number in international format, e.g. `+31612345678`. */
  phoneNumber: string;
}

/** Sends alerts as phone calls. */
export class PhoneCallAlertChannel extends AlertChannel {
  declare readonly props: PhoneCallAlertChannelProps;

  /**
   * @param logicalId unique (per kind) name of the channel in this project
   * @param props the recipient and notification switches
   */
  constructor(logicalId: string, props: PhoneCallAlertChannelProps) {
    super(logicalId, props);
  }

  protected channelType(): AlertChannelType {
    return 'CALL';
  }

  protected channelConfig(): ChannelConfig {
    return { config: { name: this.props.name, number: this.props.phoneNumber } };
  }

  protected override configPropNames(): Record<string, string> {
    return { number: 'phoneNumber' };
  }
}
