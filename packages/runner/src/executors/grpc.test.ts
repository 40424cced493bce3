import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../runner.js';
import type { RunContext, RunResult, WireCheck } from '../types.js';

const GREETER_PROTO = `syntax = "proto3";
package demo;
service Greeter { rpc Hello (HelloRequest) returns (HelloReply); rpc Fail (HelloRequest) returns (HelloReply); }
message HelloRequest { string name = 1; }
message HelloReply { string greeting = 1; int32 length = 2; }
`;
const HEALTH_PROTO = `syntax = "proto3";
package grpc.health.v1;
message HealthCheckRequest { string service = 1; }
message HealthCheckResponse { enum ServingStatus { UNKNOWN = 0; SERVING = 1; NOT_SERVING = 2; SERVICE_UNKNOWN = 3; } ServingStatus status = 1; }
service Health { rpc Check(HealthCheckRequest) returns (HealthCheckResponse); }
`;

const context: RunContext = { location: 'eu-west-1', variables: [], retries: 0 };
const runner = createRunner();
let server: grpc.Server;
let port = 0;

beforeAll(async () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'vigil-grpc-test-'));
  writeFileSync(path.join(directory, 'greeter.proto'), GREETER_PROTO);
  writeFileSync(path.join(directory, 'health.proto'), HEALTH_PROTO);
  const loaded = grpc.loadPackageDefinition(protoLoader.loadSync([path.join(directory, 'greeter.proto'), path.join(directory, 'health.proto')], { keepCase: true }));
  rmSync(directory, { recursive: true, force: true });
  const services = loaded as unknown as { demo: { Greeter: { service: grpc.ServiceDefinition } }; grpc: { health: { v1: { Health: { service: grpc.ServiceDefinition } } } } };
  server = new grpc.Server();
  server.addService(services.demo.Greeter.service, {
    Hello: (call: grpc.ServerUnaryCall<{ name: string }, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      call.sendMetadata(new grpc.Metadata());
      callback(null, { greeting: `hello ${call.request.name}`, length: call.request.name.length });
    },
    Fail: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback({ code: grpc.status.PERMISSION_DENIED, details: 'not you' }),
  });
  server.addService(services.grpc.health.v1.Health.service, {
    Check: (call: grpc.ServerUnaryCall<{ service: string }, unknown>, callback: grpc.sendUnaryData<unknown>) =>
      callback(null, { status: call.request.service === 'down' ? 'NOT_SERVING' : 'SERVING' }),
  });
  port = await new Promise<number>((settle, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : settle(bound))));
});
afterAll(async () => {
  server.forceShutdown();
  await runner.close();
});

function grpcMonitor(grpcConfig: Record<string, unknown>, assertions: unknown[] = []): WireCheck {
  return { checkType: 'GRPC', name: 'grpc', request: { url: '127.0.0.1', port, timeout: 5, grpcConfig: { tls: false, ...grpcConfig }, assertions } };
}
const behavior = (extra: Record<string, unknown> = {}) => ({ mode: 'BEHAVIOR', serviceDefinition: 'PROTO_FILE', protoContent: GREETER_PROTO, method: 'demo.Greeter/Hello', message: '{"name":"vigil"}', ...extra });

async function run(check: WireCheck): Promise<RunResult> {
  return (await runner.run(check, context)).final;
}

type Result = { grpcStatusCode: number; healthStatus: number | null; response: { responseMessage: string; healthStatusLabel: string; resolvedIp: string } | null; assertions: Array<{ passed: boolean }> };

describe('gRPC executor against a loopback server', () => {
  it('asks the health service and passes a health-status assertion', async () => {
    const result = await run(grpcMonitor({ mode: 'HEALTH' }, [{ source: 'GRPC_HEALTHCHECK_STATUS', comparison: 'EQUALS', target: '1' }]));
    expect(result.error).toBeNull();
    expect(result.grpcCheckResult as Result).toMatchObject({ grpcStatusCode: 0, healthStatus: 1, response: { healthStatusLabel: 'SERVING', resolvedIp: '127.0.0.1' }, assertions: [{ passed: true }] });
  });

  it('fails a service that is not serving, naming its status', async () => {
    const result = await run(grpcMonitor({ mode: 'HEALTH', service: 'down' }));
    expect(result.error).toBe('the health check answered NOT_SERVING, not SERVING');
  });

  it('calls a unary method of the inline .proto and asserts on its message, status and time', async () => {
    const result = await run(grpcMonitor(behavior(), [
      { source: 'GRPC_RESPONSE', property: '$.greeting', comparison: 'EQUALS', target: 'hello vigil' },
      { source: 'GRPC_STATUS_CODE', comparison: 'EQUALS', target: '0' },
      { source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'vigil' },
      { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '5000' },
    ]));
    expect(result.error).toBeNull();
    const grpcResult = result.grpcCheckResult as Result;
    expect(JSON.parse(grpcResult.response!.responseMessage)).toEqual({ greeting: 'hello vigil', length: 5 });
    expect(grpcResult.assertions.map((assertion) => assertion.passed)).toEqual([true, true, true, true]);
  });

  it('fails a non-OK status unless a status-code assertion decides', async () => {
    const denied = await run(grpcMonitor(behavior({ method: 'demo.Greeter/Fail' })));
    expect(denied.error).toBe('gRPC status 7 PERMISSION_DENIED: not you');
    const expected = await run(grpcMonitor(behavior({ method: 'demo.Greeter/Fail' }), [{ source: 'GRPC_STATUS_CODE', comparison: 'EQUALS', target: '7' }]));
    expect(expected.error).toBeNull();
  });

  it.each([
    [behavior({ serviceDefinition: 'REFLECTION' }), 'gRPC server reflection is not supported by this runner; set "serviceDefinition": "PROTO_FILE" and "protoContent"'],
    [behavior({ method: 'demo.Greeter/Nope' }), 'the .proto has no method "demo.Greeter/Nope" (write it as package.Service/Method)'],
  ])('refuses %j before calling', async (config, message) => {
    expect((await run(grpcMonitor(config))).error).toBe(message);
  });

  it('refuses a message that is not JSON before calling, with the parser\'s reason', async () => {
    // The reason's wording is V8's and changes between Node versions.
    expect((await run(grpcMonitor(behavior({ message: '{name' })))).error).toMatch(/^"request\.grpcConfig\.message" is not JSON: \S/);
  });

  it('calls nothing the network policy denies', async () => {
    const guarded = createRunner({ denyNetworks: ['127.0.0.0/8'] });
    try {
      const denied = (await guarded.run(grpcMonitor({ mode: 'HEALTH' }), context)).final;
      expect(denied.error).toMatch(/127\.0\.0\.1/);
      expect((denied.grpcCheckResult as Result).response).toBeNull();
    } finally {
      await guarded.close();
    }
  });

  it('reports a closed port as a network error', async () => {
    const closed = await run({ ...grpcMonitor({ mode: 'HEALTH' }), request: { url: '127.0.0.1', port: 1, timeout: 2, grpcConfig: { mode: 'HEALTH', tls: false } } });
    expect(closed.error).toMatch(/^gRPC status 14 UNAVAILABLE: /);
  });
});
