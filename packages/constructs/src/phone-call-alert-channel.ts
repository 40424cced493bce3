import type { AlertChannelType } from '@vigil/schema';
import { ALERT_CHANNEL_PROP_KEYS, AlertChannel, type AlertChannelProps, type ChannelConfig } from './alert-channel.js';
import type { PropKeys } from './unknown-props.js';

export interface PhoneCallAlertChannelProps extends AlertChannelProps {
  /** Friendly name to recognise the recipient. Default: the phone number. */
  name?: string;
  /** Phone number in international format, e.g. `+31612345678`. */
  phoneNumber: string;
}

const PHONE_CALL_ALERT_CHANNEL_PROP_KEYS: PropKeys<PhoneCallAlertChannelProps> = { ...ALERT_CHANNEL_PROP_KEYS, name: true, phoneNumber: true };

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

  protected override knownProps(): Readonly<Record<string, true>> {
    return PHONE_CALL_ALERT_CHANNEL_PROP_KEYS;
  }

  protected channelType(): AlertChannelType {
    return 'CALL';
  }

  protected channelConfig(): ChannelConfig {
    // The service wants a name; Checkly makes it optional, so the number stands in for it.
    return { config: { name: this.props.name ?? this.props.phoneNumber, number: this.props.phoneNumber } };
  }

  protected override configPropNames(): Record<string, string> {
    return { number: 'phoneNumber' };
  }
}
