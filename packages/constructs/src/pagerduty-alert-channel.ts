import type { AlertChannelType } from '@vigil/schema';
import { ALERT_CHANNEL_PROP_KEYS, AlertChannel, type AlertChannelProps, type ChannelConfig } from './alert-channel.js';
import type { PropKeys } from './unknown-props.js';

export interface PagerdutyAlertChannelProps extends AlertChannelProps {
  /** The PagerDuty integration (routing) key. Secret: plans and state only keep its hash. */
  serviceKey: string;
  /** The PagerDuty account name, for display. */
  account?: string;
  /** The PagerDuty service name, for display. */
  serviceName?: string;
}

const PAGERDUTY_ALERT_CHANNEL_PROP_KEYS: PropKeys<PagerdutyAlertChannelProps> = { ...ALERT_CHANNEL_PROP_KEYS, serviceKey: true, account: true, serviceName: true };

/** Opens PagerDuty incidents for alerts. */
export class PagerdutyAlertChannel extends AlertChannel {
  declare readonly props: PagerdutyAlertChannelProps;

  /**
   * @param logicalId unique (per kind) name of the channel in this project
   * @param props the integration key and notification switches
   */
  constructor(logicalId: string, props: PagerdutyAlertChannelProps) {
    super(logicalId, props);
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return PAGERDUTY_ALERT_CHANNEL_PROP_KEYS;
  }

  protected channelType(): AlertChannelType {
    return 'PAGERDUTY';
  }

  protected channelConfig(): ChannelConfig {
    const { serviceKey, account, serviceName } = this.props;
    return { config: { serviceKey, account, serviceName }, secretKeys: ['serviceKey'] };
  }
}
