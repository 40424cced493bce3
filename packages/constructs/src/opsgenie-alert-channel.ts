import type { AlertChannelType, OpsgeniePriority, OpsgenieRegion } from '@vigil/schema';
import { ALERT_CHANNEL_PROP_KEYS, AlertChannel, type AlertChannelProps, type ChannelConfig } from './alert-channel.js';
import type { PropKeys } from './unknown-props.js';

export interface OpsgenieAlertChannelProps extends AlertChannelProps {
  /** Friendly name to recognise the integration. */
  name: string;
  /** The Opsgenie API key. Secret: plans and state only keep its hash. */
  apiKey: string;
  /** The Opsgenie region of the account: `EU` or `US`. */
  region: OpsgenieRegion;
  /** Priority of the created alerts, `P1` (highest) to `P5`. */
  priority: OpsgeniePriority;
}

const OPSGENIE_ALERT_CHANNEL_PROP_KEYS: PropKeys<OpsgenieAlertChannelProps> = { ...ALERT_CHANNEL_PROP_KEYS, name: true, apiKey: true, region: true, priority: true };

/** Creates Opsgenie alerts. */
export class OpsgenieAlertChannel extends AlertChannel {
  declare readonly props: OpsgenieAlertChannelProps;

  /**
   * @param logicalId unique (per kind) name of the channel in this project
   * @param props the API key, region, priority and notification switches
   */
  constructor(logicalId: string, props: OpsgenieAlertChannelProps) {
    super(logicalId, props);
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return OPSGENIE_ALERT_CHANNEL_PROP_KEYS;
  }

  protected channelType(): AlertChannelType {
    return 'OPSGENIE';
  }

  protected channelConfig(): ChannelConfig {
    const { name, apiKey, region, priority } = this.props;
    return { config: { name, apiKey, region, priority }, secretKeys: ['apiKey'] };
  }
}
