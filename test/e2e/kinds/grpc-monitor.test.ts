/**
 * GrpcMonitor end to end against a real vigil server and a gRPC server on the loopback address
 * (the standard health service and a unary method of an inline .proto): validate → apply → plan
 * empty → import into a fresh project (next plan empty) → `vigil test`; the service's scheduler
 * runs them and stores their grpcCheckResult; bad inputs at file:line.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, targetEnv, vigil, waitFor, writeProject } from '../../support/cli.js';

const GREETER_PROTO = 'syntax = "proto3";\npackage demo;\nservice Greeter { rpc Hello (HelloRequest) returns (HelloReply); }\nmessage HelloRequest { string name = 1; }\nmessage HelloReply { string greeting = 1; }\n';
const HEALTH_PROTO = 'syntax = "proto3";\npackage grpc.health.v1;\nmessage HealthCheckRequest { string service = 1; }\nmessage HealthCheckResponse { enum ServingStatus { UNKNOWN = 0; SERVING = 1; NOT_SERVING = 2; SERVICE_UNKNOWN = 3; } ServingStatus status = 1; }\nservice Health { rpc Check(HealthCheckRequest) returns (HealthCheckResponse); }\n';

let server: RunningServer;
let grpcServer: grpc.Server;
let grpcPort = 0;
beforeAll(async () => {
  server = await startServer({ port: 0, dataDir: ':memory:', scheduler: true });
  const directory = mkdtempSync(path.join(tmpdir(), 'vigil-grpc-e2e-'));
  writeFileSync(path.join(directory, 'greeter.proto'), GREETER_PROTO);
  writeFileSync(path.join(directory, 'health.proto'), HEALTH_PROTO);
  const loaded = grpc.loadPackageDefinition(protoLoader.loadSync([path.join(directory, 'greeter.proto'), path.join(directory, 'health.proto')])) as unknown as {
    demo: { Greeter: { service: grpc.ServiceDefinition } };
    grpc: { health: { v1: { Health: { service: grpc.ServiceDefinition } } } };
  };
  rmSync(directory, { recursive: true, force: true });
  grpcServer = new grpc.Server();
  grpcServer.addService(loaded.demo.Greeter.service, {
    Hello: (call: grpc.ServerUnaryCall<{ name: string }, unknown>, callback: grpc.sendUnaryData<unknown>) => callback(null, { greeting: `hello ${call.request.name}` }),
  });
  grpcServer.addService(loaded.grpc.health.v1.Health.service, { Check: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback(null, { status: 'SERVING' }) });
  grpcPort = await new Promise<number>((settle, reject) => grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : settle(port))));
});
afterAll(async () => {
  grpcServer.forceShutdown();
  await server.close();
});

const project = (files: Record<string, string>) => writeProject('vigil-grpc-monitor-', files);
const run = (args: string[], cwd: string) => vigil(args, { cwd, env: targetEnv(server.url) });
const get = <T,>(route: string) => getJson<T>(server.url, route);
const CONFIG = "import { defineConfig } from 'checkly';\n\nexport default defineConfig({ projectName: 'Calls', logicalId: 'calls', checks: { checkMatch: '**/*.check.ts' } });\n";

function offsetDueSoon(): number {
  const second = (Date.now() / 1000 + 20) % 60;
  return Math.floor(second / 6) + 1 > 10 ? 10 : Math.floor(second / 6) + 1;
}

const MONITORS = (offset: number, port: number) => `import { readFileSync } from 'node:fs';
import { Frequency, GrpcAssertionBuilder, GrpcMonitor, RetryStrategyBuilder } from 'checkly/constructs';

const common = { frequency: Frequency.EVERY_1M, frequencyOffset: ${offset}, retryStrategy: RetryStrategyBuilder.noRetries() };

new GrpcMonitor('health', {
  ...common,
  name: 'Loopback health',
  request: { url: '127.0.0.1', port: ${port}, timeout: 5, grpcConfig: { mode: 'HEALTH', tls: false }, assertions: [GrpcAssertionBuilder.healthCheckStatus().equals('SERVING')] },
});

new GrpcMonitor('hello', {
  ...common,
  name: 'Loopback hello',
  request: {
    url: '127.0.0.1',
    port: ${port},
    timeout: 5,
    grpcConfig: { mode: 'BEHAVIOR', tls: false, serviceDefinition: 'PROTO_FILE', protoContent: readFileSync(new URL('./greeter.proto', import.meta.url), 'utf8'), method: 'demo.Greeter/Hello', message: JSON.stringify({ name: 'vigil' }) },
    assertions: [GrpcAssertionBuilder.statusCode().equals(0), GrpcAssertionBuilder.responseMessage('$.greeting').equals('hello vigil')],
  },
});
`;

describe('GrpcMonitor', () => {
  it('validates, applies, plans nothing more, imports with an empty next plan, vigil test passes and the scheduler runs them', async () => {
    const root = await project({ 'checkly.config.ts': CONFIG, '__checks__/calls.check.ts': MONITORS(offsetDueSoon(), grpcPort), '__checks__/greeter.proto': GREETER_PROTO });
    const fresh = await project({
      'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'copy', logicalId: 'copy' });\n",
      'monitors/empty.monitor.ts': 'export {};\n',
    });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stdout.trim()).toBe('✔ 2 resources valid');
      const apply = await run(['apply', '--auto-approve'], root);
      expect(apply.stderr).toBe('');
      expect(apply.code).toBe(0);
      const checks = await get<Array<Record<string, unknown>>>('/v1/checks?checkType=GRPC');
      expect(checks.map((check) => check.name).sort()).toEqual(['Loopback health', 'Loopback hello']);
      expect(checks.find((check) => check.name === 'Loopback hello')).toMatchObject({
        checkType: 'GRPC', doubleCheck: false,
        request: { url: '127.0.0.1', port: grpcPort, grpcConfig: { mode: 'BEHAVIOR', tls: false, method: 'demo.Greeter/Hello', protoContent: GREETER_PROTO } },
      });
      const again = await run(['plan', '--detailed-exitcode'], root);
      expect(again.stdout).toContain('No changes');
      expect(again.code).toBe(0);

      const imported = await run(['import'], fresh);
      expect(imported.stderr).toBe('');
      const files = (await readdir(path.join(fresh, 'imported'), { recursive: true })).map(String).filter((file) => file.endsWith('.ts'));
      const source = files.map((file) => readFileSync(path.join(fresh, 'imported', file), 'utf8')).join('\n');
      expect(source).toContain("new GrpcMonitor('loopback-health'");
      expect(source).toContain("GrpcAssertionBuilder.healthCheckStatus().equals('SERVING')");
      expect(source).toContain("GrpcAssertionBuilder.responseMessage('$.greeting').equals('hello vigil')");
      const next = await run(['plan', '--detailed-exitcode'], fresh);
      expect(next.stdout + next.stderr).toContain('No changes');
      expect(next.code).toBe(0);

      const test = await run(['test', '--reporter', 'json'], root);
      expect(test.code).toBe(0);
      const results = JSON.parse(test.stdout).results as Array<{ checkType: string; passed: boolean }>;
      expect(results).toMatchObject([{ checkType: 'GRPC', passed: true }, { checkType: 'GRPC', passed: true }]);

      const hello = checks.find((check) => check.name === 'Loopback hello')!;
      const stored = await waitFor('a stored result of the scheduled gRPC monitor', async () => {
        const list = await get<Array<Record<string, unknown>>>(`/v1/check-results/${String(hello.id)}?limit=10`);
        return list.length > 0 ? list : undefined;
      }, { intervalMs: 1000 });
      expect(stored[0]).toMatchObject({ hasFailures: false, grpcCheckResult: { grpcStatusCode: 0, response: { resolvedIp: '127.0.0.1', responseMessage: '{"greeting":"hello vigil"}' } } });
    } finally {
      await rm(root, { recursive: true, force: true });
      await rm(fresh, { recursive: true, force: true });
    }
  }, 150_000);

  it('reports bad inputs at file:line', async () => {
    const root = await project({
      'checkly.config.ts': CONFIG,
      '__checks__/bad.check.ts': `import { GrpcMonitor } from 'checkly/constructs';

new GrpcMonitor('no-method', { name: 'No method', request: { url: '127.0.0.1', port: 50051, grpcConfig: { mode: 'BEHAVIOR' } } });
new GrpcMonitor('port', { name: 'Port', request: { url: '127.0.0.1', port: 0, grpcConfig: { mode: 'HEALTH' } } });
`,
    });
    try {
      const validate = await run(['validate'], root);
      expect(validate.stdout.trim().split('\n')).toEqual([
        '__checks__/bad.check.ts:3:1  error  "request.grpcConfig.method" is required in BEHAVIOR mode  (grpc-monitor.no-method.request.grpcConfig.method)',
        '  hint: Name the method as package.Service/Method, e.g. "demo.Greeter/Hello".',
        '__checks__/bad.check.ts:4:1  error  "request.port" must be greater than or equal to 1  (grpc-monitor.port.request.port)',
        '2 errors',
      ]);
      expect(validate.code).toBe(1);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);
});
