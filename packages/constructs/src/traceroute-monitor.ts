import {
  TRACEROUTE_COMPARISONS,
  TRACEROUTE_MAX_RESPONSE_TIME_DEFAULT,
  TRACEROUTE_RESPONSE_TIME_MAX,
  TRACEROUTE_RESPONSE_TIME_PROPERTIES,
  TracerouteCheckCreate,
  type IpFamily,
  type TracerouteAssertionSource,
  type TracerouteProtocol,
} from '@vigil/schema';
import type { z } from 'zod';
import type { BuildContext } from './build-context.js';
import { CHECK_PROP_KEYS, buildCheckFields, checkPropPath, type CheckProps } from './check.js';
import { checkResponseTimes, checkRetryOnlyOn } from './check-rules.js';
import { Construct } from './construct.js';
import { formatPath, type PathSegment } from './path.js';
import { reportUnknownProps, type PropKeys } from './unknown-props.js';

/** One assertion of a traceroute monitor's request, as the payload holds it. */
export interface TracerouteAssertion {
  /** `RESPONSE_TIME` (the final hop's round trips, ms), `HOP_COUNT` or `PACKET_LOSS` (percent, at the final hop). */
  source: TracerouteAssertionSource;
  /** `avg`, `min`, `max` or `stdDev` for RESPONSE_TIME; empty for the others. */
  property: string;
  comparison: string;
  target: string;
  regex: string | null;
}

/** The final hop's round-trip statistics a response-time assertion names. */
export type TracerouteResponseTimeProperty = (typeof TRACEROUTE_RESPONSE_TIME_PROPERTIES)[number];

function assertion(source: TracerouteAssertionSource, comparison: string, property: string, target: number): TracerouteAssertion {
  return { source, property, comparison, target: String(target), regex: null };
}

/** Comparisons of a hop count or a packet loss (no `notEquals`, as Checkly's grammar). */
export class TracerouteNumericAssertionBuilder {
  constructor(protected readonly source: TracerouteAssertionSource, protected readonly property: string) {}
  equals(target: number): TracerouteAssertion {
    return assertion(this.source, 'EQUALS', this.property, target);
  }
  lessThan(target: number): TracerouteAssertion {
    return assertion(this.source, 'LESS_THAN', this.property, target);
  }
  greaterThan(target: number): TracerouteAssertion {
    return assertion(this.source, 'GREATER_THAN', this.property, target);
  }
}

/** Comparisons of a response-time statistic. */
export class TracerouteResponseTimeAssertionBuilder extends TracerouteNumericAssertionBuilder {
  notEquals(target: number): TracerouteAssertion {
    return assertion(this.source, 'NOT_EQUALS', this.property, target);
  }
}

/** Builds traceroute monitor assertions: `TracerouteAssertionBuilder.hopCount().lessThan(20)`. */
export class TracerouteAssertionBuilder {
  /** A round-trip statistic of the final hop in milliseconds: `avg` (the default), `min`, `max` or `stdDev`. */
  static responseTime(property: TracerouteResponseTimeProperty = 'avg'): TracerouteResponseTimeAssertionBuilder {
    return new TracerouteResponseTimeAssertionBuilder('RESPONSE_TIME', property);
  }
  /** The number of hops on the route. */
  static hopCount(): TracerouteNumericAssertionBuilder {
    return new TracerouteNumericAssertionBuilder('HOP_COUNT', '');
  }
  /** The percentage (0..100) of probes to the final hop without an answer. */
  static packetLoss(): TracerouteNumericAssertionBuilder {
    return new TracerouteNumericAssertionBuilder('PACKET_LOSS', '');
  }
}

/** Where to trace to and how (Checkly's `TracerouteRequest`). */
export interface TracerouteRequest {
  /** The host to trace the route to, without scheme or port. Required. */
  url: string;
  /** The probe protocol: `TCP` (SYN, the default), `UDP`, `ICMP` (echo requests) or `SCTP`. */
  protocol?: TracerouteProtocol;
  /** Destination port (1..65535) of TCP, UDP and SCTP probes. Default 443 for TCP, 33434 otherwise. */
  port?: number;
  /** `IPv4` or `IPv6`. Default `IPv4`. */
  ipFamily?: IpFamily;
  /** Hops probed before stopping (1..64). Default 30. */
  maxHops?: number;
  /** Consecutive unanswered hops after which the trace stops (1..30). Default 15. */
  maxUnknownHops?: number;
  /** Reverse-DNS lookups of each hop's address. Default true. Stored and sent; Vigil's runner never looks hop addresses up. */
  ptrLookup?: boolean;
  /** Seconds the whole trace may take (1..30). Default 10. */
  timeout?: number;
  /** Build them with `TracerouteAssertionBuilder`. */
  assertions?: TracerouteAssertion[];
}

/** The props of a traceroute monitor: those of a check without `doubleCheck`. */
export interface TracerouteMonitorProps extends Omit<CheckProps, 'doubleCheck'> {
  request: TracerouteRequest;
  /** Milliseconds (0..30000) the trace may take before the monitor is degraded. Default 10000. */
  degradedResponseTime?: number;
  /** Milliseconds (0..30000) the trace may take before the monitor fails. Default 20000. */
  maxResponseTime?: number;
}

const { doubleCheck: _doubleCheck, ...MONITOR_PROP_KEYS } = CHECK_PROP_KEYS;
const TRACEROUTE_MONITOR_PROP_KEYS: PropKeys<TracerouteMonitorProps> = { ...MONITOR_PROP_KEYS, request: true, degradedResponseTime: true, maxResponseTime: true };
const REQUEST_KEYS: PropKeys<TracerouteRequest> = { url: true, protocol: true, port: true, ipFamily: true, maxHops: true, maxUnknownHops: true, ptrLookup: true, timeout: true, assertions: true };
const ASSERTION_HINT = 'Build assertions with TracerouteAssertionBuilder, e.g. TracerouteAssertionBuilder.hopCount().lessThan(20).';

/**
 * A traceroute monitor: traces the network path to a host on a schedule and fails when the host is
 * not reached or an assertion on the hops, the final hop's latency or its packet loss fails.
 *
 * ```ts
 * new TracerouteMonitor('edge', { name: 'Edge route', request: { url: 'example.com', assertions: [TracerouteAssertionBuilder.hopCount().lessThan(20)] } })
 * ```
 */
export class TracerouteMonitor extends Construct {
  readonly props: TracerouteMonitorProps;

  /**
   * @param logicalId unique (per kind) name of the monitor in this project
   * @param props the host, probe protocol, limits, assertions, schedule and alerting
   */
  constructor(logicalId: string, props: TracerouteMonitorProps) {
    super('traceroute-monitor', logicalId, props);
    this.props = props;
  }

  protected payloadSchema(): z.ZodType {
    return TracerouteCheckCreate;
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return { ...TRACEROUTE_MONITOR_PROP_KEYS, doubleCheck: true };
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const { props } = this;
    if ((props as { doubleCheck?: unknown }).doubleCheck !== undefined) {
      context.error('doubleCheck', '"doubleCheck" is not supported by TracerouteMonitor', 'Use retryStrategy instead, e.g. RetryStrategyBuilder.fixedStrategy({ maxRetries: 1 }), or RetryStrategyBuilder.noRetries().');
    }
    const payload = buildCheckFields(context, { ...props, doubleCheck: undefined }, 'OTHER');
    payload.doubleCheck = false;
    checkRetryOnlyOn(context, { value: props.retryStrategy, origin: 'check' }, 'TracerouteMonitor');
    payload.checkType = 'TRACEROUTE';
    payload.request = props.request;
    payload.degradedResponseTime = props.degradedResponseTime;
    payload.maxResponseTime = props.maxResponseTime;
    checkResponseTimes(context, props, TRACEROUTE_MAX_RESPONSE_TIME_DEFAULT);
    reportUnknownProps(context, props.request, REQUEST_KEYS, { owner: 'the request', base: 'request' });
    checkHost(context, props.request?.url);
    if (props.request?.protocol === 'ICMP' && props.request.port !== undefined) {
      context.error('request.port', '"request.port" is not used by ICMP probes', 'Remove "request.port", or set "request.protocol" to "TCP", "UDP" or "SCTP".');
    }
    (props.request?.assertions ?? []).forEach((item, index) => checkAssertion(context, item, index));
    return payload;
  }

  protected override fieldHint(payloadPath: PathSegment[]): string | undefined {
    const [head, second] = payloadPath;
    if (head === 'degradedResponseTime' || head === 'maxResponseTime') return `A traceroute monitor's response-time limits are milliseconds between 0 and ${TRACEROUTE_RESPONSE_TIME_MAX}.`;
    if (head === 'request' && second === 'assertions') return ASSERTION_HINT;
    return super.fieldHint(payloadPath);
  }

  protected override propPath(payloadPath: PathSegment[]): string {
    return payloadPath[0] === 'request' ? formatPath(payloadPath) : checkPropPath(payloadPath);
  }
}

/** `request.url` of the monitors that name the port apart (traceroute, gRPC): a host alone. */
export function checkHost(context: BuildContext, url: unknown): void {
  if (typeof url !== 'string' || url === '') return;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || url.includes('/')) {
    context.error('request.url', `"request.url" must be a host name or IP address without scheme or path, got ${JSON.stringify(url)}`, 'Put the host alone in url, e.g. "example.com".');
  } else if (/^[^:]+:\d+$/.test(url)) {
    const [host, port] = url.split(':');
    context.error('request.url', `"request.url" must not include a port, got ${JSON.stringify(url)}`, `Set "request.port": ${port} and "request.url": ${JSON.stringify(host)}.`);
  }
}

/** Plain object assertions bypass the builder, so the grammar the service accepts is checked here. */
function checkAssertion(context: BuildContext, item: TracerouteAssertion | undefined, index: number): void {
  const at = `request.assertions[${index}]`;
  const allowed = item ? TRACEROUTE_COMPARISONS[item.source] : undefined;
  if (!item || allowed === undefined) return; // an unknown source is the payload schema's error
  if (item.source === 'RESPONSE_TIME') {
    if (!(TRACEROUTE_RESPONSE_TIME_PROPERTIES as readonly string[]).includes(item.property)) {
      context.error(`${at}.property`, `"${at}.property" ${JSON.stringify(item.property)} is not a response-time statistic`, `Use one of ${TRACEROUTE_RESPONSE_TIME_PROPERTIES.join(', ')}, e.g. TracerouteAssertionBuilder.responseTime('max').lessThan(500).`);
    }
  } else if (item.property) {
    context.error(`${at}.property`, `"${at}.property" must be empty for ${item.source}, got ${JSON.stringify(item.property)}`, ASSERTION_HINT);
  }
  if (typeof item.comparison === 'string' && item.comparison !== '' && !allowed.includes(item.comparison)) {
    context.error(`${at}.comparison`, `"${at}.comparison" ${JSON.stringify(item.comparison)} is not a comparison ${item.source} takes`, `Use one of ${allowed.join(', ')}.`);
  }
  if (item.target !== undefined && item.target !== '' && !Number.isFinite(Number(item.target))) {
    context.error(`${at}.target`, `"${at}.target" must be a number, got ${JSON.stringify(item.target)}`, ASSERTION_HINT);
  }
}
