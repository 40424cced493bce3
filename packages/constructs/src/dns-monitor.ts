import { DNS_MAX_RESPONSE_TIME_DEFAULT, DNS_RESPONSE_TIME_MAX, DnsCheckCreate, type DnsProtocol, type DnsRecordType } from '@vigil/schema';
import type { z } from 'zod';
import type { BuildContext } from './build-context.js';
import { CHECK_PROP_KEYS, buildCheckFields, checkPropPath, type CheckProps } from './check.js';
import { checkResponseTimes } from './check-rules.js';
import { Construct } from './construct.js';
import type { DnsAssertion } from './dns-assertion.js';
import { formatPath, type PathSegment } from './path.js';
import { reportUnknownProps, type PropKeys } from './unknown-props.js';

/** The query a DNS monitor sends (the real API's `ChecksV1DnsRequest`). */
export interface DnsRequest {
  /** The record type asked for: `A`, `AAAA`, `CNAME`, `MX`, `NS`, `TXT`, `SOA` or `HTTPS`. Required. */
  recordType: DnsRecordType;
  /** The name asked about, e.g. `api.example.com` (1..100 characters). Required. */
  query: string;
  /**
   * The name server asked (an IP address or a host name, at most 100 characters); set `port` with
   * it. When omitted, the system's resolver (the first server of `/etc/resolv.conf` where the
   * monitor runs) is asked.
   */
  nameServer?: string;
  /** The name server's port (1..65535), required with `nameServer`; 53 when neither is set. */
  port?: number;
  /** `UDP` or `TCP`. Default `UDP`. */
  protocol?: DnsProtocol;
  /**
   * What the response must satisfy; build them with `DnsAssertionBuilder`. Without a
   * `responseCode()` assertion, any code but `NOERROR` fails the run.
   */
  assertions?: DnsAssertion[];
}

/** The props of a DNS monitor: those of a check without `doubleCheck` (retries are a `retryStrategy`). */
export interface DnsMonitorProps extends Omit<CheckProps, 'doubleCheck'> {
  /** The DNS query and its assertions. Required. */
  request: DnsRequest;
  /**
   * Response time in milliseconds (0..5000) above which the monitor counts as degraded; at most
   * `maxResponseTime`. Default 500.
   */
  degradedResponseTime?: number | null;
  /** Response time in milliseconds (0..5000) above which the monitor fails. Default 1000. */
  maxResponseTime?: number | null;
}

const { doubleCheck: _doubleCheck, ...MONITOR_PROP_KEYS } = CHECK_PROP_KEYS;

const DNS_MONITOR_PROP_KEYS: PropKeys<DnsMonitorProps> = {
  ...MONITOR_PROP_KEYS,
  request: true,
  degradedResponseTime: true,
  maxResponseTime: true,
};

const REQUEST_KEYS: PropKeys<DnsRequest> = {
  recordType: true,
  query: true,
  nameServer: true,
  port: true,
  protocol: true,
  assertions: true,
};

/**
 * A DNS monitor: asks a name server for a record on a schedule and asserts on the response code,
 * the answer (as text or JSON) and the response time.
 *
 * ```ts
 * new DnsMonitor('api-a-record', {
 *   name: 'api.example.com resolves',
 *   request: {
 *     recordType: 'A',
 *     query: 'api.example.com',
 *     assertions: [DnsAssertionBuilder.jsonAnswer('$.Answer[0].data').equals('192.0.2.10')],
 *   },
 *   frequency: Frequency.EVERY_5M,
 * })
 * ```
 */
export class DnsMonitor extends Construct {
  readonly props: DnsMonitorProps;

  /**
   * @param logicalId unique (per kind) name of the monitor in this project
   * @param props the monitor's query, schedule and alerting
   */
  constructor(logicalId: string, props: DnsMonitorProps) {
    super('dns-monitor', logicalId, props);
    this.props = props;
  }

  protected payloadSchema(): z.ZodType {
    return DnsCheckCreate;
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    // doubleCheck is known so that it gets its own message below rather than "not a prop".
    return { ...DNS_MONITOR_PROP_KEYS, doubleCheck: true };
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const { props } = this;
    // Checkly's monitors refuse doubleCheck outright ("unsupported"), rather than deprecate it.
    if ((props as { doubleCheck?: unknown }).doubleCheck !== undefined) {
      context.error(
        'doubleCheck',
        '"doubleCheck" is not supported by DnsMonitor',
        'Use retryStrategy instead, e.g. RetryStrategyBuilder.fixedStrategy({ maxRetries: 1 }), or RetryStrategyBuilder.noRetries().',
      );
    }
    const payload = buildCheckFields(context, { ...props, doubleCheck: undefined }, 'DNS');
    // Checkly's Monitor base always sends doubleCheck: false; the service's default (true) would retry once.
    payload.doubleCheck = false;
    payload.checkType = 'DNS';
    payload.request = props.request;
    reportUnknownProps(context, props.request, REQUEST_KEYS, { owner: 'the request', base: 'request' });
    checkNameServerAndPort(context, props.request);
    payload.degradedResponseTime = props.degradedResponseTime;
    payload.maxResponseTime = props.maxResponseTime;
    if (isWithin(props.degradedResponseTime) && isWithin(props.maxResponseTime ?? DNS_MAX_RESPONSE_TIME_DEFAULT)) {
      checkResponseTimes(context, props, DNS_MAX_RESPONSE_TIME_DEFAULT);
    }
    return payload;
  }

  protected override fieldHint(payloadPath: PathSegment[]): string | undefined {
    const [head, second] = payloadPath;
    if (head === 'degradedResponseTime' || head === 'maxResponseTime') return `A DNS monitor's response-time limits are milliseconds between 0 and ${DNS_RESPONSE_TIME_MAX}.`;
    if (head === 'request' && second === 'assertions') return "Build assertions with DnsAssertionBuilder, e.g. DnsAssertionBuilder.responseCode().equals('NOERROR').";
    return super.fieldHint(payloadPath);
  }

  protected override propPath(payloadPath: PathSegment[]): string {
    return payloadPath[0] === 'request' ? formatPath(payloadPath) : checkPropPath(payloadPath);
  }
}

/** Out-of-range values are the schema's to report (0..5000 here, not the API check's 0..30000). */
function isWithin(value: unknown): boolean {
  return typeof value === 'number' && value >= 0 && value <= DNS_RESPONSE_TIME_MAX;
}

/** As Checkly's construct: a name server and its port come together. */
function checkNameServerAndPort(context: BuildContext, request: DnsRequest | undefined): void {
  if (typeof request !== 'object' || request === null) return;
  const hasServer = typeof request.nameServer === 'string' && request.nameServer !== '';
  if (hasServer && request.port === undefined) {
    context.error('request.port', '"request.port" is required when "request.nameServer" is set', 'Give the name server\'s DNS port, usually 53.');
  }
  if (!hasServer && request.port !== undefined) {
    context.error('request.nameServer', '"request.nameServer" is required when "request.port" is set', 'Name the server to ask, or leave out both to ask the system resolver.');
  }
}
