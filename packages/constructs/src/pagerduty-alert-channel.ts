import type { AlertChannelType } from '@vigil/schema';
import { AlertChannel, type AlertChannelProps, type ChannelConfig } from './alert-channel.js';

export interface PagerdutyAlertChannelProps extends AlertChannelProps {
  /** The PagerDuty integration (routing) key. Secret: plans and state only keep its hash. */
  serviceKey: string;
  /** The PagerDuty account name, for display. */
  account?: string;
  /** The PagerDuty service name, for display. */
  serviceName?: string;
}

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

  protected channelType(): AlertChannelType {
    return 'PAGERDUTY';
  }

  protected channelConfig(): ChannelConfig {
    const { serviceKey, account, serviceName } = this.props;
    return { config: { serviceKey, account, serviceName }, secretKeys: ['serviceKey'] };
  }
}
