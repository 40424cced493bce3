import { ICMP_LATENCY_PROPERTIES, IcmpCheckCreate, type IcmpAssertionSource, type IpFamily } from '@vigil/schema';
import type { z } from 'zod';
import type { BuildContext } from './build-context.js';
import { CHECK_PROP_KEYS, buildCheckFields, checkPropPath, type CheckProps } from './check.js';
import { checkRetryOnlyOn } from './check-rules.js';
import { Construct } from './construct.js';
import { formatPath, type PathSegment } from './path.js';
import { checkHostname } from './tcp-monitor.js';
import { reportUnknownProps, type PropKeys } from './unknown-props.js';

/** One assertion of an ICMP monitor's request, as the payload holds it. */
export interface IcmpAssertion {
  /** `LATENCY` (a round-trip statistic, ms) or `JSON_RESPONSE` (the run's statistics as JSON). */
  source: IcmpAssertionSource;
  /** `avg`, `min`, `max` or `stdDev` for LATENCY; a JSONPath for JSON_RESPONSE. */
  property: string;
  comparison: string;
  target: string;
  regex: string | null;
}

/** The round-trip statistics a latency assertion names. */
export type IcmpLatencyProperty = (typeof ICMP_LATENCY_PROPERTIES)[number];

function assertion(source: IcmpAssertionSource, comparison: string, property: string, target?: string | number): IcmpAssertion {
  return { source, property, comparison, target: target === undefined ? '' : String(target), regex: null };
}

/** Comparisons of one statistic or JSON value. */
export class IcmpAssertionValueBuilder {
  constructor(private readonly source: IcmpAssertionSource, private readonly property: string) {}
  equals(target: string | number): IcmpAssertion {
    return assertion(this.source, 'EQUALS', this.property, target);
  }
  notEquals(target: string | number): IcmpAssertion {
    return assertion(this.source, 'NOT_EQUALS', this.property, target);
  }
  lessThan(target: number): IcmpAssertion {
    return assertion(this.source, 'LESS_THAN', this.property, target);
  }
  greaterThan(target: number): IcmpAssertion {
    return assertion(this.source, 'GREATER_THAN', this.property, target);
  }
  contains(target: string): IcmpAssertion {
    return assertion(this.source, 'CONTAINS', this.property, target);
  }
  notContains(target: string): IcmpAssertion {
    return assertion(this.source, 'NOT_CONTAINS', this.property, target);
  }
  isEmpty(): IcmpAssertion {
    return assertion(this.source, 'IS_EMPTY', this.property);
  }
  notEmpty(): IcmpAssertion {
    return assertion(this.source, 'NOT_EMPTY', this.property);
  }
}

/** Builds ICMP monitor assertions: `IcmpAssertionBuilder.latency('avg').lessThan(100)`. */
export class IcmpAssertionBuilder {
  /** A round-trip statistic in milliseconds: `avg`, `min`, `max` or `stdDev`. */
  static latency(property: IcmpLatencyProperty): IcmpAssertionValueBuilder {
    return new IcmpAssertionValueBuilder('LATENCY', property);
  }
  /** The run's statistics as JSON (`$.packetLoss`, `$.latency.max`, `$.packetsReceived`). */
  static jsonResponse(property?: string): IcmpAssertionValueBuilder {
    return new IcmpAssertionValueBuilder('JSON_RESPONSE', property ?? '');
  }
}

/** Which host to ping and how often (Checkly's `IcmpRequest`). */
export interface IcmpRequest {
  /** The host to ping, without scheme or port. Required. */
  hostname: string;
  /** `IPv4` or `IPv6`. Default `IPv4`. */
  ipFamily?: IpFamily;
  /** Echo requests per run (1..50). Default 10. */
  pingCount?: number;
  /** Build them with `IcmpAssertionBuilder`. */
  assertions?: IcmpAssertion[];
}

/** The props of an ICMP monitor: those of a check without `doubleCheck`. */
export interface IcmpMonitorProps extends Omit<CheckProps, 'doubleCheck'> {
  request: IcmpRequest;
  /** Packet loss in percent (above 0, at most 100) above which the monitor is degraded. Default 10. */
  degradedPacketLossThreshold?: number;
  /** Packet loss in percent (above 0, at most 100) above which the monitor fails. Default 20. */
  maxPacketLossThreshold?: number;
}

const { doubleCheck: _doubleCheck, ...MONITOR_PROP_KEYS } = CHECK_PROP_KEYS;
const ICMP_MONITOR_PROP_KEYS: PropKeys<IcmpMonitorProps> = { ...MONITOR_PROP_KEYS, request: true, degradedPacketLossThreshold: true, maxPacketLossThreshold: true };
const REQUEST_KEYS: PropKeys<IcmpRequest> = { hostname: true, ipFamily: true, pingCount: true, assertions: true };

/**
 * An ICMP monitor: pings a host on a schedule and fails when too many echo requests go unanswered
 * or a round-trip assertion fails.
 *
 * ```ts
 * new IcmpMonitor('gateway', { name: 'Gateway', request: { hostname: 'gw.example.com', assertions: [IcmpAssertionBuilder.latency('avg').lessThan(50)] } })
 * ```
 */
export class IcmpMonitor extends Construct {
  readonly props: IcmpMonitorProps;

  /**
   * @param logicalId unique (per kind) name of the monitor in this project
   * @param props the host, ping count, thresholds, schedule and alerting
   */
  constructor(logicalId: string, props: IcmpMonitorProps) {
    super('icmp-monitor', logicalId, props);
    this.props = props;
  }

  protected payloadSchema(): z.ZodType {
    return IcmpCheckCreate;
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return { ...ICMP_MONITOR_PROP_KEYS, doubleCheck: true };
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const { props } = this;
    if ((props as { doubleCheck?: unknown }).doubleCheck !== undefined) {
      context.error('doubleCheck', '"doubleCheck" is not supported by IcmpMonitor', 'Use retryStrategy instead, e.g. RetryStrategyBuilder.fixedStrategy({ maxRetries: 1 }), or RetryStrategyBuilder.noRetries().');
    }
    const payload = buildCheckFields(context, { ...props, doubleCheck: undefined }, 'OTHER');
    payload.doubleCheck = false;
    checkRetryOnlyOn(context, { value: props.retryStrategy, origin: 'check' }, 'IcmpMonitor');
    payload.checkType = 'ICMP';
    payload.request = props.request;
    reportUnknownProps(context, props.request, REQUEST_KEYS, { owner: 'the request', base: 'request' });
    checkHostname(context, props.request?.hostname, { hasPort: false });
    (props.request?.assertions ?? []).forEach((item, index) => {
      if (item?.source === 'LATENCY' && !(ICMP_LATENCY_PROPERTIES as readonly string[]).includes(item.property)) {
        context.error(`request.assertions[${index}].property`, `"request.assertions[${index}].property" ${JSON.stringify(item.property)} is not a latency statistic`, `Use one of ${ICMP_LATENCY_PROPERTIES.join(', ')}, e.g. IcmpAssertionBuilder.latency('avg').lessThan(100).`);
      }
    });
    payload.degradedPacketLossThreshold = props.degradedPacketLossThreshold;
    payload.maxPacketLossThreshold = props.maxPacketLossThreshold;
    const { degradedPacketLossThreshold: degraded, maxPacketLossThreshold: max } = props;
    if (typeof degraded === 'number' && typeof max === 'number' && degraded > 0 && max <= 100 && degraded > max) {
      context.error('degradedPacketLossThreshold', `"degradedPacketLossThreshold" (${degraded}) must be less than or equal to "maxPacketLossThreshold" (${max})`, 'A monitor is degraded before it fails: lower degradedPacketLossThreshold or raise maxPacketLossThreshold.');
    }
    return payload;
  }

  protected override fieldHint(payloadPath: PathSegment[]): string | undefined {
    const [head, second] = payloadPath;
    if (head === 'degradedPacketLossThreshold' || head === 'maxPacketLossThreshold') return 'Packet loss thresholds are percentages above 0 and at most 100.';
    if (head === 'request' && second === 'assertions') return "Build assertions with IcmpAssertionBuilder, e.g. IcmpAssertionBuilder.latency('avg').lessThan(100).";
    return super.fieldHint(payloadPath);
  }

  protected override propPath(payloadPath: PathSegment[]): string {
    return payloadPath[0] === 'request' ? formatPath(payloadPath) : checkPropPath(payloadPath);
  }
}
