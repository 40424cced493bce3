/**
 * gRPC monitors: one unary call, either the standard health check (`grpc.health.v1.Health/Check`,
 * HEALTH mode) or a method of the check's own `.proto` (BEHAVIOR mode with PROTO_FILE), then the
 * status, the health status, the response message and metadata against the assertions. The host
 * is resolved here, through the network policy, and the channel is opened to that address (the
 * host name kept as authority and TLS server name), so gRPC never resolves a name by itself. The
 * server's answers are hostile input: messages are capped in size and only their JSON form is kept.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { GRPC_HEALTH_STATUSES, GrpcCheckCreate, type GrpcAssertion } from '@vigil/schema';
import type { AssertionOutcome, Executor, ExecutorContext, FailureKind, TryResult, WireCheck } from '../types.js';
import { interpolate, variableLookup } from '../variables.js';
import { resolveThroughPolicy } from './icmp.js';
import { monitorEnvelope as envelope, monitorFailure, runnerFault as fault } from './monitor-result.js';

const failed = monitorFailure.bind(null, 'grpcCheckResult');

export const grpcExecutor: Executor = { checkType: 'GRPC', run: runGrpcMonitor };

const RECEIVE_LIMIT = 1024 * 1024;
const KEPT_MESSAGE_CHARS = 64 * 1024;
const LOADER_OPTIONS: protoLoader.Options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

/** `grpc/health/v1/health.proto`, as protobuf.js JSON: the one service every HEALTH run calls. */
const HEALTH_PROTO = {
  nested: { grpc: { nested: { health: { nested: { v1: { nested: {
    HealthCheckRequest: { fields: { service: { type: 'string', id: 1 } } },
    HealthCheckResponse: {
      fields: { status: { type: 'ServingStatus', id: 1 } },
      nested: { ServingStatus: { values: GRPC_HEALTH_STATUSES } },
    },
    Health: { methods: { Check: { requestType: 'HealthCheckRequest', responseType: 'HealthCheckResponse' } } },
  } } } } } } },
};

const STATUS_NAMES = Object.fromEntries(Object.entries(grpc.status).filter(([, value]) => typeof value === 'number').map(([name, value]) => [value, name])) as Record<number, string>;
const HEALTH_LABELS = Object.fromEntries(Object.entries(GRPC_HEALTH_STATUSES).map(([label, value]) => [value, label])) as Record<number, string>;

interface CallOutcome {
  code: number;
  details: string;
  message: unknown;
  metadata: Record<string, string>;
}

async function runGrpcMonitor(check: WireCheck, context: ExecutorContext): Promise<TryResult> {
  const startedAt = new Date();
  const parsed = GrpcCheckCreate.safeParse({ name: 'run', request: check.request, maxResponseTime: check.maxResponseTime, degradedResponseTime: check.degradedResponseTime, shouldFail: check.shouldFail });
  if (!parsed.success) return fault(startedAt, `this gRPC monitor's payload does not parse: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const spec = parsed.data;
  const lookup = variableLookup(context.variables);
  const config = spec.request.grpcConfig;
  const host = interpolate(spec.request.url, lookup);
  const port = spec.request.port;
  const family = spec.request.ipFamily === 'IPv6' ? 6 : 4;
  const maxResponseTime = spec.maxResponseTime ?? 20000;
  const request = { url: host, port, ipFamily: family === 6 ? 'IPv6' : 'IPv4', mode: config.mode, tls: config.tls, method: config.method ?? null, service: config.service ?? null };
  const empty = { request, response: null, assertions: [], grpcStatusCode: null, healthStatus: null, timingPhases: null };

  const target = config.mode === 'HEALTH' ? await healthMethod() : await behaviorMethod(config);
  if ('error' in target) return fault(startedAt, target.error);
  let argument: unknown;
  try {
    argument = config.mode === 'HEALTH' ? { service: interpolate(config.service ?? '', lookup) } : JSON.parse(interpolate(config.message || '{}', lookup));
  } catch (error) {
    return fault(startedAt, `"request.grpcConfig.message" is not JSON: ${(error as Error).message}`);
  }
  const metadata = new grpc.Metadata();
  try {
    for (const { key, value } of config.metadata) {
      const text = interpolate(value, lookup);
      if (key.toLowerCase().endsWith('-bin')) metadata.add(key, Buffer.from(text, 'base64'));
      else metadata.add(key, text);
    }
  } catch (error) {
    return fault(startedAt, `gRPC metadata could not be sent: ${(error as Error).message}`);
  }

  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const address = await resolveThroughPolicy(host, family, context.options.networkPolicy);
  if ('error' in address) return failed(startedAt, elapsed(), 'NETWORK_ERROR', address.error, empty, context);
  const outcome = await call(target.method, argument, metadata, {
    address: `${family === 6 ? `[${address.ip}]` : address.ip}:${port}`,
    host,
    tls: config.tls,
    skipVerify: spec.request.skipSSL,
    deadline: Date.now() + (spec.request.timeout ?? 60) * 1000,
    signal: context.signal,
  });
  const responseTime = elapsed();
  if (context.signal.aborted) return failed(startedAt, responseTime, 'ABORTED', 'the run was cancelled before the gRPC call finished', empty, context);

  const healthStatus = config.mode === 'HEALTH' && outcome.code === 0 ? numericHealth(outcome.message) : null;
  const responseMessage = outcome.message === undefined ? '' : JSON.stringify(outcome.message).slice(0, KEPT_MESSAGE_CHARS);
  const response = {
    grpcMode: config.mode, host, resolvedIp: address.ip, port, grpcMethod: target.path,
    responseMessage, grpcStatusCode: outcome.code, grpcStatusMessage: outcome.details,
    healthStatus, healthStatusLabel: healthStatus === null ? '' : (HEALTH_LABELS[healthStatus] ?? String(healthStatus)),
    metadata: Object.entries(outcome.metadata).map(([key, value]) => ({ key, value })),
    requestError: null,
  };
  const assertions = await evaluateGrpcAssertions(context, spec.request.assertions, { code: outcome.code, healthStatus, metadata: outcome.metadata, body: responseMessage, responseTime });
  const asserts = (source: string) => spec.request.assertions.some((assertion) => assertion.source === source);
  let failure: TryResult['failure'] = null;
  if (outcome.code !== 0 && !asserts('GRPC_STATUS_CODE')) {
    const kind: FailureKind = outcome.code === grpc.status.UNAVAILABLE || outcome.code === grpc.status.DEADLINE_EXCEEDED ? 'NETWORK_ERROR' : 'STATUS';
    failure = { kind, message: `gRPC status ${outcome.code} ${STATUS_NAMES[outcome.code] ?? ''}: ${outcome.details}`.slice(0, 500) };
  } else if (healthStatus !== null && healthStatus !== GRPC_HEALTH_STATUSES.SERVING && !asserts('GRPC_HEALTHCHECK_STATUS')) {
    failure = { kind: 'STATUS', message: `the health check answered ${response.healthStatusLabel}, not SERVING` };
  } else {
    const broken = assertions.find((assertion) => !assertion.passed);
    if (broken) failure = { kind: 'ASSERTION', message: `assertion failed: ${broken.error ?? `${broken.source}${broken.property ? ` ${broken.property}` : ''} ${broken.comparison} ${JSON.stringify(broken.target)}: actual ${broken.actual === undefined ? '(absent)' : JSON.stringify(broken.actual)}`}` };
  }
  if (spec.shouldFail) failure = failure === null ? { kind: 'STATUS', message: 'shouldFail is set, so a failure was expected, but the call passed' } : null;
  return {
    ...envelope(startedAt, responseTime),
    hasFailures: failure !== null,
    isDegraded: responseTime > (spec.degradedResponseTime ?? maxResponseTime),
    overMaxResponseTime: responseTime > maxResponseTime,
    failure: failure === null ? null : { ...failure, message: context.redact(failure.message) },
    grpcCheckResult: { grpcStatusCode: outcome.code, healthStatus, timingPhases: { total: responseTime }, requestError: null, request, assertions, response },
  };
}

type Target = { method: protoLoader.MethodDefinition<object, object>; path: string } | { error: string };

async function healthMethod(): Promise<Target> {
  // protobuf.js types the JSON form as a union that a literal cannot satisfy member by member.
  const definition = protoLoader.fromJSON(HEALTH_PROTO as unknown as Parameters<typeof protoLoader.fromJSON>[0], { ...LOADER_OPTIONS, enums: Number });
  return pick(definition, 'grpc.health.v1.Health/Check');
}

/** The method of the check's own .proto: server reflection is not supported (a run that asks for it fails saying so). */
async function behaviorMethod(config: { method?: string | null; serviceDefinition?: string | null; protoContent?: string | null }): Promise<Target> {
  if (!config.method) return { error: 'a BEHAVIOR gRPC monitor needs "request.grpcConfig.method" (package.Service/Method)' };
  if (config.serviceDefinition !== 'PROTO_FILE') return { error: 'gRPC server reflection is not supported by this runner; set "serviceDefinition": "PROTO_FILE" and "protoContent"' };
  if (!config.protoContent) return { error: 'a PROTO_FILE gRPC monitor needs "request.grpcConfig.protoContent"' };
  const directory = await mkdtemp(path.join(tmpdir(), 'vigil-grpc-'));
  try {
    const file = path.join(directory, 'check.proto');
    await writeFile(file, config.protoContent);
    return pick(protoLoader.loadSync(file, { ...LOADER_OPTIONS, includeDirs: [directory] }), config.method);
  } catch (error) {
    return { error: `"request.grpcConfig.protoContent" does not load: ${(error as Error).message}` };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

function pick(definition: protoLoader.PackageDefinition, method: string): Target {
  const slash = method.replace(/^\//, '').lastIndexOf('/');
  const [service, name] = slash < 0 ? ['', ''] : [method.replace(/^\//, '').slice(0, slash), method.replace(/^\//, '').slice(slash + 1)];
  const found = Object.hasOwn(definition, service) ? (definition[service] as Record<string, protoLoader.MethodDefinition<object, object>>)[name] : undefined;
  if (!found || typeof found.path !== 'string') return { error: `the .proto has no method ${JSON.stringify(method)} (write it as package.Service/Method)` };
  if (found.requestStream || found.responseStream) return { error: `${method} streams; gRPC monitors call unary methods only` };
  return { method: found, path: found.path };
}

function call(
  method: protoLoader.MethodDefinition<object, object>,
  argument: unknown,
  metadata: grpc.Metadata,
  options: { address: string; host: string; tls: boolean; skipVerify: boolean; deadline: number; signal: AbortSignal },
): Promise<CallOutcome> {
  const credentials = options.tls
    ? grpc.credentials.createSsl(null, null, null, options.skipVerify ? { rejectUnauthorized: false, checkServerIdentity: () => undefined } : {})
    : grpc.credentials.createInsecure();
  const client = new grpc.Client(options.address, credentials, {
    'grpc.default_authority': options.host,
    'grpc.ssl_target_name_override': options.host,
    'grpc.max_receive_message_length': RECEIVE_LIMIT,
    'grpc.enable_retries': 0,
  });
  return new Promise((settle) => {
    const headers: Record<string, string> = {};
    let message: unknown;
    const record = (source: grpc.Metadata) => {
      for (const [key, value] of Object.entries(source.getMap())) headers[key] ??= (Buffer.isBuffer(value) ? value.toString('base64') : String(value)).slice(0, 8192);
    };
    const pending = client.makeUnaryRequest(method.path, method.requestSerialize, method.responseDeserialize, argument as object, metadata, { deadline: options.deadline }, (error, value) => {
      if (!error) message = value;
    });
    const cancel = () => pending.cancel();
    options.signal.addEventListener('abort', cancel, { once: true });
    pending.on('metadata', record);
    pending.on('status', (status: grpc.StatusObject) => {
      options.signal.removeEventListener('abort', cancel);
      record(status.metadata);
      client.close();
      settle({ code: status.code, details: status.details, message, metadata: headers });
    });
  });
}

function numericHealth(message: unknown): number | null {
  const status = (message as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' ? status : null;
}

async function evaluateGrpcAssertions(
  context: ExecutorContext,
  assertions: readonly GrpcAssertion[],
  facts: { code: number; healthStatus: number | null; metadata: Record<string, string>; body: string; responseTime: number },
): Promise<AssertionOutcome[]> {
  if (assertions.length === 0) return [];
  const SOURCES: Record<string, string> = { RESPONSE_TIME: 'RESPONSE_TIME', GRPC_STATUS_CODE: 'STATUS_CODE', GRPC_HEALTHCHECK_STATUS: 'STATUS_CODE', GRPC_METADATA: 'HEADERS', TEXT_BODY: 'TEXT_BODY', GRPC_RESPONSE: 'JSON_BODY' };
  const evaluate = (list: readonly GrpcAssertion[], status: number) =>
    context.assertions.evaluate(
      list.map(({ source, comparison, property, target, regex }) => ({ source: SOURCES[source]!, label: source, comparison, property: source === 'GRPC_RESPONSE' && property === '' ? '$' : property, target, regex })),
      { status, headers: facts.metadata, body: facts.body, responseTime: facts.responseTime },
    );
  // The health status is asserted as a status code of its own, so it takes a second pass.
  const health = assertions.filter((assertion) => assertion.source === 'GRPC_HEALTHCHECK_STATUS');
  const rest = assertions.filter((assertion) => assertion.source !== 'GRPC_HEALTHCHECK_STATUS');
  const [restOutcomes, healthOutcomes] = await Promise.all([evaluate(rest, facts.code), evaluate(health, facts.healthStatus ?? -1)]);
  const bySource = new Map<GrpcAssertion, AssertionOutcome>();
  rest.forEach((assertion, index) => bySource.set(assertion, restOutcomes[index]!));
  health.forEach((assertion, index) => bySource.set(assertion, healthOutcomes[index]!));
  return assertions.map((assertion) => ({ ...bySource.get(assertion)!, source: assertion.source, property: assertion.property }));
}
