import { AlertChannelCreate } from '@vigil/schema';
import type { z } from 'zod';
import type { BuildContext } from './build-context.js';
import { Construct, type ConstructProps } from './construct.js';
import { formatPath, type PathSegment } from './path.js';
import { externalRef, numericIdProblem, type ExternalRef } from './ref.js';
import type { PropKeys } from './unknown-props.js';
import type { AlertChannelType } from '@vigil/schema';

/** Props shared by every alert channel. */
export interface AlertChannelProps extends ConstructProps {
  /** Notify when a failing check recovers. */
  sendRecovery?: boolean;
  /** Notify when a check fails. */
  sendFailure?: boolean;
  /** Notify when a check is degraded (slower than its `degradedResponseTime`). */
  sendDegraded?: boolean;
  /** Alert on expiring SSL certificates. */
  sslExpiry?: boolean;
  /** Days (1..30) before expiry to start alerting on SSL certificates. */
  sslExpiryThreshold?: number;
  /** Subscribe newly created checks to this channel automatically. */
  autoSubscribe?: boolean;
}

/** Every prop of {@link AlertChannelProps}, for the unknown-prop check. */
export const ALERT_CHANNEL_PROP_KEYS: PropKeys<AlertChannelProps> = {
  protect: true,
  sendRecovery: true,
  sendFailure: true,
  sendDegraded: true,
  sslExpiry: true,
  sslExpiryThreshold: true,
  autoSubscribe: true,
};

/** An alert channel construct, or a reference to one Vigil does not manage. */
export type AlertChannelReference = AlertChannel | ExternalRef<'alert-channel', number>;

/** What a channel type contributes to the payload: its `config` and which config keys are secret. */
export interface ChannelConfig {
  config: Record<string, unknown>;
  secretKeys?: string[];
}

/**
 * Base of the alert channels. Subclasses supply the channel `type` and its `config`; the common
 * notification switches live here.
 */
export abstract class AlertChannel extends Construct {
  readonly props: AlertChannelProps;

  protected constructor(logicalId: string, props: AlertChannelProps) {
    super('alert-channel', logicalId, props);
    this.props = props;
  }

  /**
   * Refers to an alert channel that exists on the service but is not managed by this project.
   * @param id the channel's numeric id on the service
   */
  static fromId(id: number): ExternalRef<'alert-channel', number> {
    return externalRef('alert-channel', id, numericIdProblem(`${this.name}.fromId`, id));
  }

  protected abstract channelType(): AlertChannelType;
  protected abstract channelConfig(context: BuildContext): ChannelConfig;

  /** Payload keys of `config` whose prop has another name (`number` ← `phoneNumber`). */
  protected configPropNames(): Record<string, string> {
    return {};
  }

  protected payloadSchema(): z.ZodType {
    return AlertChannelCreate;
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const { config, secretKeys = [] } = this.channelConfig(context);
    for (const key of secretKeys) context.secret(['config', key]);
    const { sendRecovery, sendFailure, sendDegraded, sslExpiry, sslExpiryThreshold, autoSubscribe } = this.props;
    return { type: this.channelType(), config, sendRecovery, sendFailure, sendDegraded, sslExpiry, sslExpiryThreshold, autoSubscribe };
  }

  protected override propPath(payloadPath: PathSegment[]): string {
    const [head, key, ...rest] = payloadPath;
    if (head === 'config' && typeof key === 'string') {
      return formatPath([this.configPropNames()[key] ?? key, ...rest]);
    }
    return formatPath(payloadPath);
  }
}

/**
 * A URL prop as the payload holds it: Checkly takes `URL | string`. Duck-typed, since a `URL` from
 * another realm fails `instanceof`; anything else is left for the schema to report.
 */
export function urlText(value: unknown): unknown {
  return typeof value === 'object' && value !== null && typeof (value as { href?: unknown }).href === 'string' && typeof (value as { protocol?: unknown }).protocol === 'string'
    ? (value as URL).href
    : value;
}
