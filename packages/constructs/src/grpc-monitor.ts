import { GRPC_HEALTH_STATUSES, GRPC_RESPONSE_TIME_MAX, GRPC_MAX_RESPONSE_TIME_DEFAULT, GrpcCheckCreate, type GrpcAssertionSource, type GrpcMode, type IpFamily } from '@vigil/schema';
import type { z } from 'zod';
import type { BuildContext } from './build-context.js';
import { CHECK_PROP_KEYS, buildCheckFields, checkPropPath, type CheckProps } from './check.js';
import { checkResponseTimes, checkRetryOnlyOn } from './check-rules.js';
import { Construct } from './construct.js';
import { formatPath, type PathSegment } from './path.js';
import { checkHost } from './traceroute-monitor.js';
import { reportUnknownProps, type PropKeys } from './unknown-props.js';

/** One assertion of a gRPC monitor's request, as the payload holds it. */
export interface GrpcAssertion {
  source: GrpcAssertionSource;
  /** A JSONPath for GRPC_RESPONSE, a metadata key for GRPC_METADATA; empty otherwise. */
  property: string;
  comparison: string;
  target: string;
  regex: string | null;
}

/** The serving statuses of the standard health check. */
export type GrpcHealthStatus = keyof typeof GRPC_HEALTH_STATUSES;

function assertion(source: GrpcAssertionSource, comparison: string, property: string, target?: string | number): GrpcAssertion {
  return { source, property, comparison, target: target === undefined ? '' : String(target), regex: null };
}

/** Comparisons of a number: the response time or the status code. */
export class GrpcNumericAssertionBuilder {
  constructor(private readonly source: GrpcAssertionSource) {}
  equals(target: number): GrpcAssertion {
    return assertion(this.source, 'EQUALS', '', target);
  }
  notEquals(target: number): GrpcAssertion {
    return assertion(this.source, 'NOT_EQUALS', '', target);
  }
  lessThan(target: number): GrpcAssertion {
    return assertion(this.source, 'LESS_THAN', '', target);
  }
  greaterThan(target: number): GrpcAssertion {
    return assertion(this.source, 'GREATER_THAN', '', target);
  }
}

/** Comparisons of the response message, its text or a metadata value. */
export class GrpcGeneralAssertionBuilder {
  constructor(private readonly source: GrpcAssertionSource, private readonly property: string) {}
  equals(target: string | number | boolean): GrpcAssertion { return assertion(this.source, 'EQUALS', this.property, String(target)); }
  notEquals(target: string | number | boolean): GrpcAssertion { return assertion(this.source, 'NOT_EQUALS', this.property, String(target)); }
  hasKey(target: string): GrpcAssertion { return assertion(this.source, 'HAS_KEY', this.property, target); }
  notHasKey(target: string): GrpcAssertion { return assertion(this.source, 'NOT_HAS_KEY', this.property, target); }
  hasValue(target: string | number | boolean): GrpcAssertion { return assertion(this.source, 'HAS_VALUE', this.property, String(target)); }
  notHasValue(target: string | number | boolean): GrpcAssertion { return assertion(this.source, 'NOT_HAS_VALUE', this.property, String(target)); }
  isEmpty(): GrpcAssertion { return assertion(this.source, 'IS_EMPTY', this.property); }
  notEmpty(): GrpcAssertion { return assertion(this.source, 'NOT_EMPTY', this.property); }
  lessThan(target: number): GrpcAssertion { return assertion(this.source, 'LESS_THAN', this.property, target); }
  greaterThan(target: number): GrpcAssertion { return assertion(this.source, 'GREATER_THAN', this.property, target); }
  contains(target: string): GrpcAssertion { return assertion(this.source, 'CONTAINS', this.property, target); }
  notContains(target: string): GrpcAssertion { return assertion(this.source, 'NOT_CONTAINS', this.property, target); }
  isNull(): GrpcAssertion { return assertion(this.source, 'IS_NULL', this.property); }
  notNull(): GrpcAssertion { return assertion(this.source, 'NOT_NULL', this.property); }
}

/** The health status, written as its number on the wire: `equals('SERVING')` sends `1`. */
export class GrpcHealthCheckStatusAssertionBuilder {
  equals(target: GrpcHealthStatus | 0 | 1 | 2 | 3): GrpcAssertion {
    return assertion('GRPC_HEALTHCHECK_STATUS', 'EQUALS', '', typeof target === 'number' ? target : (GRPC_HEALTH_STATUSES[target] ?? String(target)));
  }
  notEquals(target: GrpcHealthStatus | 0 | 1 | 2 | 3): GrpcAssertion {
    return assertion('GRPC_HEALTHCHECK_STATUS', 'NOT_EQUALS', '', typeof target === 'number' ? target : (GRPC_HEALTH_STATUSES[target] ?? String(target)));
  }
}

/** Builds gRPC monitor assertions: `GrpcAssertionBuilder.healthCheckStatus().equals('SERVING')`. */
export class GrpcAssertionBuilder {
  /** The call's duration in milliseconds. */
  static responseTime(): GrpcNumericAssertionBuilder {
    return new GrpcNumericAssertionBuilder('RESPONSE_TIME');
  }
  /** The gRPC status code (0 is OK). */
  static statusCode(): GrpcNumericAssertionBuilder {
    return new GrpcNumericAssertionBuilder('GRPC_STATUS_CODE');
  }
  /** The serving status the health check answered (HEALTH mode). */
  static healthCheckStatus(): GrpcHealthCheckStatusAssertionBuilder {
    return new GrpcHealthCheckStatusAssertionBuilder();
  }
  /** The response message as JSON, or one value of it by JSONPath (`$.status`). BEHAVIOR mode. */
  static responseMessage(property?: string): GrpcGeneralAssertionBuilder {
    return new GrpcGeneralAssertionBuilder('GRPC_RESPONSE', property ?? '');
  }
  /** The response message's JSON text. BEHAVIOR mode. */
  static textBody(property?: string): GrpcGeneralAssertionBuilder {
    return new GrpcGeneralAssertionBuilder('TEXT_BODY', property ?? '');
  }
  /** The response metadata (headers and trailers), or one key's value. */
  static responseMetadata(property?: string): GrpcGeneralAssertionBuilder {
    return new GrpcGeneralAssertionBuilder('GRPC_METADATA', property ?? '');
  }
}

/** The call (Checkly's `GrpcConfig`). */
export interface GrpcConfig {
  /** `BEHAVIOR` calls `method`; `HEALTH` asks the standard health service. Default `BEHAVIOR`. */
  mode?: GrpcMode;
  /** TLS to the server. Default true. */
  tls?: boolean;
  /** Request metadata (headers), at most 50. */
  metadata?: Array<{ key: string; value: string }>;
  /** `REFLECTION` (Vigil's runner does not support it) or `PROTO_FILE` with `protoContent`. BEHAVIOR only. Default `REFLECTION`. */
  serviceDefinition?: 'REFLECTION' | 'PROTO_FILE';
  /** `package.Service/Method`, required in BEHAVIOR mode. */
  method?: string;
  /** The `.proto` source that defines `method`. */
  protoContent?: string;
  /** The request message as JSON. BEHAVIOR only. */
  message?: string;
  /** The service whose health is asked; empty for the whole server. HEALTH only. */
  service?: string;
}

/** Where to call (Checkly's `GrpcRequest`). */
export interface GrpcRequest {
  /** The host, without scheme or port. Required. */
  url: string;
  /** The port (1..65535). Required. */
  port: number;
  /** `IPv4` or `IPv6`. Default `IPv4`. */
  ipFamily?: IpFamily;
  /** Accept any certificate when `tls` is on. Default false. */
  skipSSL?: boolean;
  /** Seconds the call may take (1..180). Default 60. */
  timeout?: number;
  grpcConfig: GrpcConfig;
  /** Build them with `GrpcAssertionBuilder`. */
  assertions?: GrpcAssertion[];
}

/** The props of a gRPC monitor: those of a check without `doubleCheck`. */
export interface GrpcMonitorProps extends Omit<CheckProps, 'doubleCheck'> {
  request: GrpcRequest;
  /** Milliseconds (0..180000) after which the monitor is degraded. Default 10000. */
  degradedResponseTime?: number;
  /** Milliseconds (0..180000) after which the monitor fails. Default 20000. */
  maxResponseTime?: number;
}

const { doubleCheck: _doubleCheck, ...MONITOR_PROP_KEYS } = CHECK_PROP_KEYS;
const GRPC_MONITOR_PROP_KEYS: PropKeys<GrpcMonitorProps> = { ...MONITOR_PROP_KEYS, request: true, degradedResponseTime: true, maxResponseTime: true };
const REQUEST_KEYS: PropKeys<GrpcRequest> = { url: true, port: true, ipFamily: true, skipSSL: true, timeout: true, grpcConfig: true, assertions: true };
const CONFIG_KEYS: PropKeys<GrpcConfig> = { mode: true, tls: true, metadata: true, serviceDefinition: true, method: true, protoContent: true, message: true, service: true };
const BEHAVIOR_ONLY = ['method', 'serviceDefinition', 'protoContent', 'message'] as const;

/**
 * A gRPC monitor: one unary call on a schedule (the standard health check, or a method of your
 * `.proto`), failing on a non-OK status, a health status other than SERVING, or a failed assertion.
 *
 * ```ts
 * new GrpcMonitor('orders-health', { name: 'Orders health', request: { url: 'orders.internal', port: 50051, grpcConfig: { mode: 'HEALTH' }, assertions: [GrpcAssertionBuilder.healthCheckStatus().equals('SERVING')] } })
 * ```
 */
export class GrpcMonitor extends Construct {
  readonly props: GrpcMonitorProps;

  /**
   * @param logicalId unique (per kind) name of the monitor in this project
   * @param props the server, the call, limits, assertions, schedule and alerting
   */
  constructor(logicalId: string, props: GrpcMonitorProps) {
    super('grpc-monitor', logicalId, props);
    this.props = props;
  }

  protected payloadSchema(): z.ZodType {
    return GrpcCheckCreate;
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return { ...GRPC_MONITOR_PROP_KEYS, doubleCheck: true };
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const { props } = this;
    if ((props as { doubleCheck?: unknown }).doubleCheck !== undefined) {
      context.error('doubleCheck', '"doubleCheck" is not supported by GrpcMonitor', 'Use retryStrategy instead, e.g. RetryStrategyBuilder.fixedStrategy({ maxRetries: 1 }), or RetryStrategyBuilder.noRetries().');
    }
    const payload = buildCheckFields(context, { ...props, doubleCheck: undefined }, 'OTHER');
    payload.doubleCheck = false;
    checkRetryOnlyOn(context, { value: props.retryStrategy, origin: 'check' }, 'GrpcMonitor');
    payload.checkType = 'GRPC';
    payload.request = props.request;
    payload.degradedResponseTime = props.degradedResponseTime;
    payload.maxResponseTime = props.maxResponseTime;
    checkResponseTimes(context, props, GRPC_MAX_RESPONSE_TIME_DEFAULT);
    reportUnknownProps(context, props.request, REQUEST_KEYS, { owner: 'the request', base: 'request' });
    checkHost(context, props.request?.url);
    const config = props.request?.grpcConfig;
    if (config && typeof config === 'object') {
      reportUnknownProps(context, config, CONFIG_KEYS, { owner: 'grpcConfig', base: 'request.grpcConfig' });
      checkConfig(context, config);
    }
    (props.request?.assertions ?? []).forEach((item, index) => {
      if (item?.source !== 'GRPC_HEALTHCHECK_STATUS') return;
      const at = `request.assertions[${index}]`;
      if (item.comparison !== 'EQUALS' && item.comparison !== 'NOT_EQUALS') {
        context.error(`${at}.comparison`, `"${at}.comparison" ${JSON.stringify(item.comparison)} is not a comparison GRPC_HEALTHCHECK_STATUS takes`, 'Use EQUALS or NOT_EQUALS, e.g. GrpcAssertionBuilder.healthCheckStatus().equals(\'SERVING\').');
      }
      if (!Object.values(GRPC_HEALTH_STATUSES).map(String).includes(item.target)) {
        context.error(`${at}.target`, `"${at}.target" must be a serving status number (0..3), got ${JSON.stringify(item.target)}`, `Use GrpcAssertionBuilder.healthCheckStatus().equals('SERVING'); the numbers are ${Object.entries(GRPC_HEALTH_STATUSES).map(([label, value]) => `${value} ${label}`).join(', ')}.`);
      }
    });
    return payload;
  }

  protected override fieldHint(payloadPath: PathSegment[]): string | undefined {
    const [head, second] = payloadPath;
    if (head === 'degradedResponseTime' || head === 'maxResponseTime') return `A gRPC monitor's response-time limits are milliseconds between 0 and ${GRPC_RESPONSE_TIME_MAX}.`;
    if (head === 'request' && second === 'assertions') return "Build assertions with GrpcAssertionBuilder, e.g. GrpcAssertionBuilder.statusCode().equals(0).";
    return super.fieldHint(payloadPath);
  }

  protected override propPath(payloadPath: PathSegment[]): string {
    return payloadPath[0] === 'request' ? formatPath(payloadPath) : checkPropPath(payloadPath);
  }
}

/** Which fields each mode takes; the service and the runner refuse the others. */
function checkConfig(context: BuildContext, config: GrpcConfig): void {
  const at = (key: string) => `request.grpcConfig.${key}`;
  if (config.mode === 'HEALTH') {
    for (const key of BEHAVIOR_ONLY) {
      if (config[key] !== undefined) context.error(at(key), `"${at(key)}" is not used in HEALTH mode`, `Remove it, or set "${at('mode')}": "BEHAVIOR".`);
    }
    return;
  }
  if (config.service !== undefined) context.error(at('service'), `"${at('service')}" is only used in HEALTH mode`, `Remove it, or set "${at('mode')}": "HEALTH".`);
  if (!config.method) context.error(at('method'), `"${at('method')}" is required in BEHAVIOR mode`, 'Name the method as package.Service/Method, e.g. "demo.Greeter/Hello".');
  if (config.serviceDefinition === 'PROTO_FILE' && !config.protoContent) {
    context.error(at('protoContent'), `"${at('protoContent')}" is required when "serviceDefinition" is "PROTO_FILE"`, 'Paste the .proto that defines the method, e.g. readFileSync(new URL(\'./orders.proto\', import.meta.url), \'utf8\').');
  }
  if (typeof config.message === 'string' && config.message !== '') {
    try {
      JSON.parse(config.message);
    } catch {
      context.error(at('message'), `"${at('message')}" must be JSON, got ${JSON.stringify(config.message.slice(0, 60))}`, 'Write the request message as JSON, e.g. JSON.stringify({ name: "vigil" }).');
    }
  }
}
