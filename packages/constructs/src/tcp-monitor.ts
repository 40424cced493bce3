import { TCP_MAX_RESPONSE_TIME_DEFAULT, TCP_RESPONSE_TIME_MAX, TcpCheckCreate, type IpFamily } from '@vigil/schema';
import type { z } from 'zod';
import type { BuildContext } from './build-context.js';
import { CHECK_PROP_KEYS, buildCheckFields, checkPropPath, type CheckProps } from './check.js';
import { checkResponseTimes, checkRetryOnlyOn } from './check-rules.js';
import { Construct } from './construct.js';
import { formatPath, type PathSegment } from './path.js';
import type { TcpAssertion } from './tcp-assertion.js';
import { reportUnknownProps, type PropKeys } from './unknown-props.js';

/** Where a TCP monitor connects and what it sends (the real API's `ChecksV1TcpRequest`). */
export interface TcpRequest {
  /** The host to connect to, without scheme or port: `db.example.com`, `192.0.2.10`. Required. */
  hostname: string;
  /** The port to connect to (1..65535). Required. */
  port: number;
  /**
   * Text sent once the connection is up, e.g. a protocol's command (`'PING\r\n'`). When omitted,
   * nothing is sent and the monitor reads what the target says first (a greeting), if anything.
   */
  data?: string;
  /** `IPv4` or `IPv6`: the address family the host name is resolved to. Default `IPv4`. */
  ipFamily?: IpFamily;
  /**
   * What the answer must satisfy; build them with `TcpAssertionBuilder`. Without assertions, a run
   * passes when the connection opens (and `data`, if any, is sent).
   */
  assertions?: TcpAssertion[];
}

/** The props of a TCP monitor: those of a check without `doubleCheck` (retries are a `retryStrategy`). */
export interface TcpMonitorProps extends Omit<CheckProps, 'doubleCheck'> {
  /** The connection to make and its assertions. Required. */
  request: TcpRequest;
  /**
   * Response time in milliseconds (0..5000) above which the monitor counts as degraded; at most
   * `maxResponseTime`. Default 3000.
   */
  degradedResponseTime?: number | null;
  /** Response time in milliseconds (0..5000) after which the run stops and fails. Default 5000. */
  maxResponseTime?: number | null;
}

const { doubleCheck: _doubleCheck, ...MONITOR_PROP_KEYS } = CHECK_PROP_KEYS;

const TCP_MONITOR_PROP_KEYS: PropKeys<TcpMonitorProps> = {
  ...MONITOR_PROP_KEYS,
  request: true,
  degradedResponseTime: true,
  maxResponseTime: true,
};

const REQUEST_KEYS: PropKeys<TcpRequest> = { hostname: true, port: true, data: true, ipFamily: true, assertions: true };

/**
 * A TCP monitor: opens a TCP connection to a host and port on a schedule, optionally sends data,
 * and asserts on what comes back and how long it took.
 *
 * ```ts
 * new TcpMonitor('smtp', {
 *   name: 'SMTP answers',
 *   request: {
 *     hostname: 'smtp.example.com',
 *     port: 25,
 *     assertions: [TcpAssertionBuilder.responseData().contains('220'), TcpAssertionBuilder.responseTime().lessThan(500)],
 *   },
 *   frequency: Frequency.EVERY_1M,
 * })
 * ```
 */
export class TcpMonitor extends Construct {
  readonly props: TcpMonitorProps;

  /**
   * @param logicalId unique (per kind) name of the monitor in this project
   * @param props the monitor's connection, schedule and alerting
   */
  constructor(logicalId: string, props: TcpMonitorProps) {
    super('tcp-monitor', logicalId, props);
    this.props = props;
  }

  protected payloadSchema(): z.ZodType {
    return TcpCheckCreate;
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    // doubleCheck is known so it gets the "not supported" error below, not "not a prop".
    return { ...TCP_MONITOR_PROP_KEYS, doubleCheck: true };
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const { props } = this;
    // Checkly's monitors refuse doubleCheck outright ("unsupported"), rather than deprecate it.
    if ((props as { doubleCheck?: unknown }).doubleCheck !== undefined) {
      context.error(
        'doubleCheck',
        '"doubleCheck" is not supported by TcpMonitor',
        'Use retryStrategy instead, e.g. RetryStrategyBuilder.fixedStrategy({ maxRetries: 1 }), or RetryStrategyBuilder.noRetries().',
      );
    }
    const payload = buildCheckFields(context, { ...props, doubleCheck: undefined }, 'TCP');
    // Checkly's Monitor base always sends doubleCheck: false; the service's default (true) would retry once.
    payload.doubleCheck = false;
    // Checkly: onlyOn NETWORK_ERROR "is only supported in the ApiCheck and UrlMonitor constructs".
    checkRetryOnlyOn(context, { value: props.retryStrategy, origin: 'check' }, 'TcpMonitor');
    payload.checkType = 'TCP';
    payload.request = props.request;
    reportUnknownProps(context, props.request, REQUEST_KEYS, { owner: 'the request', base: 'request' });
    checkHostname(context, props.request?.hostname);
    payload.degradedResponseTime = props.degradedResponseTime;
    payload.maxResponseTime = props.maxResponseTime;
    if (isWithin(props.degradedResponseTime) && isWithin(props.maxResponseTime ?? TCP_MAX_RESPONSE_TIME_DEFAULT)) {
      checkResponseTimes(context, props, TCP_MAX_RESPONSE_TIME_DEFAULT);
    }
    return payload;
  }

  protected override fieldHint(payloadPath: PathSegment[]): string | undefined {
    const [head, second] = payloadPath;
    if (head === 'degradedResponseTime' || head === 'maxResponseTime') return `A TCP monitor's response-time limits are milliseconds between 0 and ${TCP_RESPONSE_TIME_MAX}.`;
    if (head === 'request' && second === 'assertions') return "Build assertions with TcpAssertionBuilder, e.g. TcpAssertionBuilder.responseData().contains('220').";
    return super.fieldHint(payloadPath);
  }

  protected override propPath(payloadPath: PathSegment[]): string {
    return payloadPath[0] === 'request' ? formatPath(payloadPath) : checkPropPath(payloadPath);
  }
}

/** Out-of-range values are the schema's to report (0..5000 here, not the API check's 0..30000). */
function isWithin(value: unknown): boolean {
  return typeof value === 'number' && value >= 0 && value <= TCP_RESPONSE_TIME_MAX;
}

/** Checkly's construct says "do not include a scheme or a port"; a run would only fail to resolve it. */
export function checkHostname(context: BuildContext, hostname: unknown, options: { hasPort: boolean } = { hasPort: true }): void {
  if (typeof hostname !== 'string' || hostname === '') return;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(hostname);
  if (scheme || hostname.includes('/')) {
    context.error('request.hostname', `"request.hostname" must be a host name or IP address without scheme or path, got ${JSON.stringify(hostname)}`, 'Put the host alone in hostname, e.g. "db.example.com", and the port in "request.port".');
    return;
  }
  // One colon is host:port; an IPv6 address has several.
  if (/^[^:]+:\d+$/.test(hostname)) {
    const host = JSON.stringify(hostname.split(':')[0]);
    const hint = options.hasPort ? `Set "request.port": ${hostname.split(':')[1]} and "request.hostname": ${host}.` : `Set "request.hostname": ${host}: this monitor has no port.`;
    context.error('request.hostname', `"request.hostname" must not include a port, got ${JSON.stringify(hostname)}`, hint);
  }
}

/** Checkly's older name for {@link TcpMonitor}, kept so its projects load. */
export const TcpCheck = TcpMonitor;
/** Checkly's older name for {@link TcpMonitorProps}. */
export type TcpCheckProps = TcpMonitorProps;
