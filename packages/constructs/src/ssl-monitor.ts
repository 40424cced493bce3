import { SSL_MAX_RESPONSE_TIME_DEFAULT, SSL_RESPONSE_TIME_MAX, SslCheckCreate, sslPropertyGrammar, type IpFamily, type SslSecurityBaseline } from '@vigil/schema';
import type { z } from 'zod';
import type { BuildContext } from './build-context.js';
import { CHECK_PROP_KEYS, buildCheckFields, checkPropPath, type CheckProps } from './check.js';
import { checkResponseTimes, checkRetryOnlyOn } from './check-rules.js';
import { Construct } from './construct.js';
import { formatPath, type PathSegment } from './path.js';
import type { SslAssertion } from './ssl-assertion.js';
import { checkHostname } from './tcp-monitor.js';
import { reportUnknownProps, type PropKeys } from './unknown-props.js';

/** The TLS settings of an SSL monitor's request (Checkly's `SslConfig`). */
export interface SslConfig {
  /** The SNI name sent in the handshake, which the certificate must match; the hostname when unset. */
  serverName?: string;
  /** The stored client certificate to present (mutual TLS); required with `clientCertificateMode: 'explicit'`. */
  sslClientCertificateId?: string;
  /** Inspect the certificate without validating its chain against trusted roots (self-signed, private CA). Default false. */
  skipChainValidation?: boolean;
  /** Milliseconds (1000..30000) to wait for the handshake. Default 10000. */
  handshakeTimeout?: number;
  /** Fail when the certificate expires within this many days (1..365). Default 20. */
  alertDaysBeforeExpiry?: number;
  /** `auto` or `explicit` (with `sslClientCertificateId`); vigil's runner presents no client certificate. */
  clientCertificateMode?: 'auto' | 'explicit';
  /** The security baseline's rules; omitted ones take their defaults (minimum TLS 1.2 and 2048-bit keys fail). */
  securityBaseline?: SslSecurityBaseline;
}

/** Which host's certificate to check and how (Checkly's `SslRequest`). */
export interface SslRequest {
  /** The host to connect to, without scheme or port: `shop.example.com`. Required. */
  hostname: string;
  /** The port (1..65535). Default 443. */
  port?: number;
  /** `IPv4` or `IPv6`. Default `IPv4`. */
  ipFamily?: IpFamily;
  /** The TLS settings. Required (may be `{}`). */
  sslConfig: SslConfig;
  /** Build them with `SslAssertionBuilder`. */
  assertions?: SslAssertion[];
}

/** The props of an SSL monitor: those of a check without `doubleCheck` (retries are a `retryStrategy`). */
export interface SslMonitorProps extends Omit<CheckProps, 'doubleCheck'> {
  /** The host, port and TLS settings, and the assertions. Required. */
  request: SslRequest;
  /** Handshake time in milliseconds (0..30000) above which the monitor is degraded. Default 3000. */
  degradedResponseTime?: number | null;
  /** Handshake time in milliseconds (0..30000) above which the monitor fails. Default 10000. */
  maxResponseTime?: number | null;
}

const { doubleCheck: _doubleCheck, ...MONITOR_PROP_KEYS } = CHECK_PROP_KEYS;
const SSL_MONITOR_PROP_KEYS: PropKeys<SslMonitorProps> = { ...MONITOR_PROP_KEYS, request: true, degradedResponseTime: true, maxResponseTime: true };
const REQUEST_KEYS: PropKeys<SslRequest> = { hostname: true, port: true, ipFamily: true, sslConfig: true, assertions: true };
const CONFIG_KEYS: PropKeys<SslConfig> = {
  serverName: true, sslClientCertificateId: true, skipChainValidation: true, handshakeTimeout: true, alertDaysBeforeExpiry: true, clientCertificateMode: true, securityBaseline: true,
};

/** Payload paths under `request` whose prop sits elsewhere in Checkly's request. */
const PROP_PATHS: Record<string, string> = {
  'request.sslConfig.hostname': 'request.hostname',
  'request.sslConfig.port': 'request.port',
  'request.sslConfig.ipFamily': 'request.ipFamily',
  'request.sslConfig.handshakeTimeoutMs': 'request.sslConfig.handshakeTimeout',
  'request.sslClientCertificateId': 'request.sslConfig.sslClientCertificateId',
};

/**
 * An SSL monitor: a TLS handshake with a host on a schedule, failing on an expired, soon-expiring,
 * untrusted or mismatched certificate, a broken security-baseline rule, or a failed assertion.
 *
 * ```ts
 * new SslMonitor('shop-cert', {
 *   name: 'Shop certificate',
 *   request: {
 *     hostname: 'shop.example.com',
 *     sslConfig: { alertDaysBeforeExpiry: 14 },
 *     assertions: [SslAssertionBuilder.connection('tlsVersion').equals(TlsVersion.TLS1_3)],
 *   },
 * })
 * ```
 */
export class SslMonitor extends Construct {
  readonly props: SslMonitorProps;

  /**
   * @param logicalId unique (per kind) name of the monitor in this project
   * @param props the monitor's host, TLS settings, schedule and alerting
   */
  constructor(logicalId: string, props: SslMonitorProps) {
    super('ssl-monitor', logicalId, props);
    this.props = props;
  }

  protected payloadSchema(): z.ZodType {
    return SslCheckCreate;
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    // doubleCheck is known so it gets the "not supported" error below, not "not a prop".
    return { ...SSL_MONITOR_PROP_KEYS, doubleCheck: true };
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const { props } = this;
    if ((props as { doubleCheck?: unknown }).doubleCheck !== undefined) {
      context.error('doubleCheck', '"doubleCheck" is not supported by SslMonitor', 'Use retryStrategy instead, e.g. RetryStrategyBuilder.fixedStrategy({ maxRetries: 1 }), or RetryStrategyBuilder.noRetries().');
    }
    const payload = buildCheckFields(context, { ...props, doubleCheck: undefined }, 'OTHER');
    // Checkly's Monitor base always sends doubleCheck: false; the service's default (true) would retry once.
    payload.doubleCheck = false;
    checkRetryOnlyOn(context, { value: props.retryStrategy, origin: 'check' }, 'SslMonitor');
    payload.checkType = 'SSL';
    const request = props.request as SslRequest | undefined;
    const config = request?.sslConfig;
    reportUnknownProps(context, request, REQUEST_KEYS, { owner: 'the request', base: 'request' });
    reportUnknownProps(context, config, CONFIG_KEYS, { owner: 'sslConfig', base: 'request.sslConfig' });
    checkHostname(context, request?.hostname);
    if (config?.clientCertificateMode === 'explicit' && config.sslClientCertificateId === undefined) {
      context.error('request.sslConfig.sslClientCertificateId', 'A value for "sslClientCertificateId" is required when "clientCertificateMode" is "explicit".', "Set request.sslConfig.sslClientCertificateId to the stored certificate's id, or leave out clientCertificateMode.");
    }
    (request?.assertions ?? []).forEach((assertion, index) => checkAssertion(context, assertion, index));
    payload.request = request === undefined ? undefined : {
      sslConfig: config === undefined ? undefined : {
        hostname: request.hostname,
        port: request.port,
        ipFamily: request.ipFamily,
        serverName: config.serverName,
        skipChainValidation: config.skipChainValidation,
        handshakeTimeoutMs: config.handshakeTimeout,
        alertDaysBeforeExpiry: config.alertDaysBeforeExpiry,
        clientCertificateMode: config.clientCertificateMode,
        securityBaseline: config.securityBaseline,
      },
      sslClientCertificateId: config?.sslClientCertificateId,
      assertions: request.assertions,
    };
    payload.degradedResponseTime = props.degradedResponseTime;
    payload.maxResponseTime = props.maxResponseTime;
    checkResponseTimes(context, props, SSL_MAX_RESPONSE_TIME_DEFAULT);
    return payload;
  }

  protected override fieldHint(payloadPath: PathSegment[]): string | undefined {
    const [head, second] = payloadPath;
    if (head === 'degradedResponseTime' || head === 'maxResponseTime') return `An SSL monitor's response-time limits are milliseconds between 0 and ${SSL_RESPONSE_TIME_MAX}.`;
    if (head === 'request' && second === 'assertions') return "Build assertions with SslAssertionBuilder, e.g. SslAssertionBuilder.certificate('daysUntilExpiry').greaterThan(14).";
    return super.fieldHint(payloadPath);
  }

  protected override propPath(payloadPath: PathSegment[]): string {
    if (payloadPath[0] !== 'request') return checkPropPath(payloadPath);
    const path = formatPath(payloadPath);
    const moved = Object.keys(PROP_PATHS).find((prefix) => path === prefix || path.startsWith(`${prefix}.`));
    return moved === undefined ? path : PROP_PATHS[moved]! + path.slice(moved.length);
  }
}

/** A certificate or connection assertion must name a fact the runner reports, with a comparison it takes. */
function checkAssertion(context: BuildContext, assertion: SslAssertion | undefined, index: number): void {
  const grammar = assertion === undefined ? undefined : sslPropertyGrammar(assertion.source);
  if (assertion === undefined || grammar === undefined) return;
  const at = `request.assertions[${index}]`;
  const fact = grammar[assertion.property];
  if (fact === undefined) {
    context.error(`${at}.property`, `"${at}.property" ${JSON.stringify(assertion.property)} is not a ${assertion.source} property`, `Known: ${Object.keys(grammar).join(', ')}.`);
    return;
  }
  if (!fact.comparisons.includes(assertion.comparison)) {
    context.error(`${at}.comparison`, `"${at}.comparison" ${assertion.comparison} does not apply to ${assertion.source} ${assertion.property}`, `${assertion.property} takes ${fact.comparisons.join(', ')}.`);
  }
}
