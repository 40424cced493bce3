import { describe, expect, it } from 'vitest';
import { load, markerLocation, specOf } from './__fixtures__/load.js';
import { GrpcAssertionBuilder, GrpcMonitor, type GrpcMonitorProps } from './grpc-monitor.js';
import type { Diagnostic } from './types.js';

const PROTO = 'syntax = "proto3"; package demo; service Greeter { rpc Hello (HelloRequest) returns (HelloReply); } message HelloRequest { string name = 1; } message HelloReply { string greeting = 1; }';
const base: GrpcMonitorProps = { name: 'Orders', request: { url: 'orders.example.com', port: 50051, grpcConfig: { mode: 'HEALTH' } } };
type Expected = Pick<Diagnostic, 'severity' | 'path' | 'message' | 'hint'>;
const error = (path: string, message: string, hint?: string): Expected => ({ severity: 'error', path, message, ...(hint ? { hint } : {}) });
const config = (grpcConfig: Record<string, unknown>) => ({ request: { ...base.request, grpcConfig } as GrpcMonitorProps['request'] });
const assertions = (list: unknown[]) => ({ request: { ...base.request, assertions: list } as GrpcMonitorProps['request'] });
const HEALTH_HINT = "Use GrpcAssertionBuilder.healthCheckStatus().equals('SERVING'); the numbers are 0 UNKNOWN, 1 SERVING, 2 NOT_SERVING, 3 SERVICE_UNKNOWN.";

const rules: Array<[string, Partial<GrpcMonitorProps>, Expected[]]> = [
  [
    'accepts every builder and setting',
    {
      request: {
        url: 'orders.example.com', port: 443, ipFamily: 'IPv6', skipSSL: true, timeout: 180,
        grpcConfig: { mode: 'BEHAVIOR', tls: true, metadata: [{ key: 'x-team', value: 'orders' }], serviceDefinition: 'PROTO_FILE', protoContent: PROTO, method: 'demo.Greeter/Hello', message: '{"name":"a"}' },
        assertions: [
          GrpcAssertionBuilder.responseTime().lessThan(500), GrpcAssertionBuilder.statusCode().equals(0), GrpcAssertionBuilder.healthCheckStatus().notEquals('NOT_SERVING'),
          GrpcAssertionBuilder.responseMessage('$.greeting').contains('hello'), GrpcAssertionBuilder.textBody().notEmpty(), GrpcAssertionBuilder.responseMetadata('content-type').hasValue('application/grpc'),
        ],
      },
      maxResponseTime: 180000,
    },
    [],
  ],
  ['rejects a missing port', { request: { url: 'orders.example.com', grpcConfig: { mode: 'HEALTH' } } as GrpcMonitorProps['request'] }, [error('request.port', '"request.port" is required')]],
  ['rejects a timeout above 180 seconds', { request: { ...base.request, timeout: 181 } }, [error('request.timeout', '"request.timeout" must be less than or equal to 180')]],
  [
    'rejects a maxResponseTime above 180000',
    { maxResponseTime: 180001 },
    [error('maxResponseTime', '"maxResponseTime" must be less than or equal to 180000', "A gRPC monitor's response-time limits are milliseconds between 0 and 180000.")],
  ],
  ['rejects a method in HEALTH mode', config({ mode: 'HEALTH', method: 'demo.Greeter/Hello' }), [error('request.grpcConfig.method', '"request.grpcConfig.method" is not used in HEALTH mode', 'Remove it, or set "request.grpcConfig.mode": "BEHAVIOR".')]],
  ['rejects a service in BEHAVIOR mode', config({ mode: 'BEHAVIOR', method: 'demo.Greeter/Hello', service: 'orders' }), [error('request.grpcConfig.service', '"request.grpcConfig.service" is only used in HEALTH mode', 'Remove it, or set "request.grpcConfig.mode": "HEALTH".')]],
  ['rejects BEHAVIOR mode without a method', config({ mode: 'BEHAVIOR' }), [error('request.grpcConfig.method', '"request.grpcConfig.method" is required in BEHAVIOR mode', 'Name the method as package.Service/Method, e.g. "demo.Greeter/Hello".')]],
  [
    'rejects PROTO_FILE without protoContent',
    config({ mode: 'BEHAVIOR', method: 'demo.Greeter/Hello', serviceDefinition: 'PROTO_FILE' }),
    [error('request.grpcConfig.protoContent', '"request.grpcConfig.protoContent" is required when "serviceDefinition" is "PROTO_FILE"', "Paste the .proto that defines the method, e.g. readFileSync(new URL('./orders.proto', import.meta.url), 'utf8').")],
  ],
  [
    'rejects a message that is not JSON',
    config({ mode: 'BEHAVIOR', method: 'demo.Greeter/Hello', message: '{name: 1}' }),
    [error('request.grpcConfig.message', '"request.grpcConfig.message" must be JSON, got "{name: 1}"', 'Write the request message as JSON, e.g. JSON.stringify({ name: "vigil" }).')],
  ],
  [
    'rejects a health status that is not a serving status number',
    assertions([{ source: 'GRPC_HEALTHCHECK_STATUS', property: '', comparison: 'EQUALS', target: 'SERVING', regex: null }]),
    [error('request.assertions[0].target', '"request.assertions[0].target" must be a serving status number (0..3), got "SERVING"', HEALTH_HINT)],
  ],
  [
    'rejects a health-status comparison other than EQUALS and NOT_EQUALS',
    assertions([{ source: 'GRPC_HEALTHCHECK_STATUS', property: '', comparison: 'LESS_THAN', target: '1', regex: null }]),
    [error('request.assertions[0].comparison', '"request.assertions[0].comparison" "LESS_THAN" is not a comparison GRPC_HEALTHCHECK_STATUS takes', "Use EQUALS or NOT_EQUALS, e.g. GrpcAssertionBuilder.healthCheckStatus().equals('SERVING').")],
  ],
  ['rejects a url with a port', { request: { ...base.request, url: 'orders.example.com:50051' } }, [error('request.url', '"request.url" must not include a port, got "orders.example.com:50051"', 'Set "request.port": 50051 and "request.url": "orders.example.com".')]],
  [
    'rejects doubleCheck, as Checkly monitors do',
    { doubleCheck: true } as Partial<GrpcMonitorProps>,
    [error('doubleCheck', '"doubleCheck" is not supported by GrpcMonitor', 'Use retryStrategy instead, e.g. RetryStrategyBuilder.fixedStrategy({ maxRetries: 1 }), or RetryStrategyBuilder.noRetries().')],
  ],
];

describe('GrpcMonitor rules', () => {
  it.each(rules)('%s', async (_name, props, expected) => {
    const project = await load(() => {
      new GrpcMonitor('orders', { ...base, ...props }); // @at:rule
    });
    const source = markerLocation(import.meta.url, 'rule');
    expect(project.validate()).toEqual(expected.map((e) => ({ ...e, address: 'grpc-monitor.orders', source })));
  });
});

describe('GrpcMonitor payload', () => {
  it("synthesises the create body of POST /v1/checks/grpc with the real service's defaults", async () => {
    const project = await load(() => {
      new GrpcMonitor('orders', base);
    });
    expect(specOf(project, 'grpc-monitor.orders').payload).toMatchObject({
      checkType: 'GRPC', doubleCheck: false, degradedResponseTime: 10000, maxResponseTime: 20000,
      request: { url: 'orders.example.com', port: 50051, ipFamily: 'IPv4', skipSSL: false, timeout: 60, grpcConfig: { mode: 'HEALTH', tls: true, metadata: [] }, assertions: [] },
    });
  });

  it('writes health statuses as their numbers, as Checkly does', () => {
    expect(GrpcAssertionBuilder.healthCheckStatus().equals('SERVING')).toEqual({ source: 'GRPC_HEALTHCHECK_STATUS', property: '', comparison: 'EQUALS', target: '1', regex: null });
  });
});
