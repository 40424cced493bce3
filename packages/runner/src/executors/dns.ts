/**
 * DNS monitors: one query to one name server over UDP or TCP, then assertions on the response code,
 * the answer (text and JSON, see ./dns-answer.ts) and the response time. Node's `dns.Resolver`
 * cannot force TCP, pick a port per query or return the response code (NXDOMAIN is an error to it),
 * so the query is a packet (dns-packet) on a socket of our own, opened only to an address the
 * network policy allows.
 *
 * Without a name server the system's resolver is asked: the first server Node reads from
 * /etc/resolv.conf (`dns.getServers()`).
 */
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';
import * as dnsPacket from 'dns-packet';
import { DNS_DEFAULT_PORT, DNS_RESPONSE_TIME_MAX, DnsCheckCreate, type DnsAssertion } from '@vigil/schema';
import type { AssertionInput } from '../assertions/evaluate.js';
import type { AssertionEvaluator } from '../assertions/pool.js';
import { guardLookup, type NetworkPolicy } from '../network-policy.js';
import type { AssertionOutcome, Executor, ExecutorContext, FailureKind, TryResult, WireCheck } from '../types.js';
import { interpolate, variableLookup } from '../variables.js';
import { HTTPS_TYPE, jsonAnswer, textAnswer, type DnsJsonAnswer } from './dns-answer.js';
import { runFields } from './run-fields.js';
import { monitorEnvelope as envelope, runnerFault as fault } from './monitor-result.js';

export const dnsExecutor: Executor = { checkType: 'DNS', run: runDnsMonitor };

interface Server {
  address: string;
  port: number;
  /** What the result records: the name server as configured, or "system resolver (address)". */
  label: string;
}

interface Exchange {
  response: dnsPacket.Packet | null;
  error: { kind: FailureKind; message: string } | null;
  responseTime: number;
}

async function runDnsMonitor(check: WireCheck, context: ExecutorContext): Promise<TryResult> {
  const startedAt = new Date();
  const parsed = DnsCheckCreate.safeParse(runFields(check));
  if (!parsed.success) return fault(startedAt, `this DNS monitor's payload does not parse: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const spec = parsed.data;
  const lookup = variableLookup(context.variables);
  const query = interpolate(spec.request.query, lookup);
  const nameServer = spec.request.nameServer === undefined ? undefined : interpolate(spec.request.nameServer, lookup);
  const maxResponseTime = spec.maxResponseTime ?? DNS_RESPONSE_TIME_MAX;
  const degradedResponseTime = spec.degradedResponseTime ?? maxResponseTime;
  const { recordType, protocol } = spec.request;

  const request = { query, recordType, nameServer: nameServer ?? null, port: spec.request.port ?? null, protocol };
  const started = performance.now();
  const server = await nameServerOf(nameServer, spec.request.port, context.options.networkPolicy);
  const exchange: Exchange =
    'error' in server
      ? { response: null, error: server.error, responseTime: Math.round(performance.now() - started) }
      : await ask({ server, query, recordType, protocol, timeoutMs: maxResponseTime, signal: context.signal });
  const dnsCheckResult = (json: DnsJsonAnswer | null, text: string, assertions: AssertionOutcome[], requestError: string | null) => ({
    request: { ...request, server: 'error' in server ? null : server.label },
    response: { responseCode: json?.Status ?? null, textAnswer: text, jsonAnswer: json },
    assertions,
    requestError: requestError === null ? null : context.redact(requestError),
    timingPhases: { total: exchange.responseTime },
  });

  if (exchange.response === null) {
    const error = exchange.error ?? { kind: 'NETWORK_ERROR' as const, message: 'no response' };
    return {
      ...envelope(startedAt, exchange.responseTime),
      hasFailures: true,
      overMaxResponseTime: error.kind === 'TIMEOUT',
      isDegraded: false,
      failure: { kind: error.kind, message: context.redact(error.message) },
      dnsCheckResult: dnsCheckResult(null, '', [], error.message),
    };
  }

  const json = jsonAnswer(exchange.response);
  const text = textAnswer(exchange.response, json);
  const assertions = await evaluateDnsAssertions(context.assertions, spec.request.assertions, { json, text, responseTime: exchange.responseTime });
  const failure = dnsVerdict({ responseCode: json.Status, shouldFail: spec.shouldFail, assertions });
  return {
    ...envelope(startedAt, exchange.responseTime),
    hasFailures: failure !== null,
    overMaxResponseTime: false,
    isDegraded: exchange.responseTime > degradedResponseTime,
    failure,
    dnsCheckResult: dnsCheckResult(json, text, assertions, null),
  };
}

/**
 * Whether a response fails the run. Without a `RESPONSE_CODE` assertion, any code but NOERROR fails
 * (Checkly: "pass when the return code is NOERROR and fail on error codes"); `shouldFail` inverts
 * that rule. Assertions apply as written.
 */
export function dnsVerdict(input: { responseCode: string; shouldFail: boolean; assertions: readonly AssertionOutcome[] }): TryResult['failure'] {
  const failed = input.assertions.find((assertion) => !assertion.passed);
  if (failed !== undefined) {
    const detail = failed.error ?? `${failed.source}${failed.property ? ` ${failed.property}` : ''} ${failed.comparison} ${JSON.stringify(failed.target)}: actual ${failed.actual === undefined ? '(absent)' : JSON.stringify(failed.actual)}`;
    return { kind: 'ASSERTION', message: `assertion failed: ${detail}` };
  }
  if (input.assertions.some((assertion) => assertion.source === 'RESPONSE_CODE')) return null;
  const noError = input.responseCode === 'NOERROR';
  if (!noError && !input.shouldFail) {
    return { kind: 'STATUS', message: `the response code is ${input.responseCode}, not NOERROR; assert on it with DnsAssertionBuilder.responseCode() to expect it` };
  }
  if (noError && input.shouldFail) return { kind: 'STATUS', message: 'shouldFail is set, so an error response code was expected, but it was NOERROR' };
  return null;
}

/**
 * DNS assertions through the API assertions' evaluator, so both compare alike: the response code
 * and the text answer are a text body, the JSON answer a JSON body. Checkly's `textAnswer(regex)`
 * puts its regex in `property`. Assertions on the same text go to the evaluator together.
 */
export async function evaluateDnsAssertions(
  evaluator: AssertionEvaluator,
  assertions: readonly DnsAssertion[],
  answer: { json: DnsJsonAnswer | null; text: string; responseTime: number },
): Promise<AssertionOutcome[]> {
  const groups = new Map<string, { indices: number[]; inputs: AssertionInput[] }>();
  assertions.forEach((assertion, index) => {
    const { body, input } = asApiAssertion(assertion, answer);
    const group = groups.get(body) ?? { indices: [], inputs: [] };
    group.indices.push(index);
    group.inputs.push({ ...input, label: assertion.source });
    groups.set(body, group);
  });
  const outcomes: AssertionOutcome[] = new Array(assertions.length);
  await Promise.all(
    [...groups].map(async ([body, group]) => {
      const evaluated = await evaluator.evaluate(group.inputs, { status: 0, headers: {}, body, responseTime: answer.responseTime });
      group.indices.forEach((index, position) => {
        const { source, property } = assertions[index]!;
        outcomes[index] = { ...evaluated[position]!, source, property };
      });
    }),
  );
  return outcomes;
}

function asApiAssertion(assertion: DnsAssertion, answer: { json: DnsJsonAnswer | null; text: string }): { body: string; input: AssertionInput } {
  const { source, comparison, property, target, regex } = assertion;
  switch (source) {
    case 'RESPONSE_TIME':
      return { body: '', input: { source: 'RESPONSE_TIME', comparison, target } };
    case 'RESPONSE_CODE':
      return { body: answer.json?.Status ?? '', input: { source: 'TEXT_BODY', comparison, target, regex } };
    case 'TEXT_ANSWER':
      return { body: answer.text, input: { source: 'TEXT_BODY', comparison, target, regex: property !== '' ? property : regex } };
    case 'JSON_ANSWER':
      return { body: JSON.stringify(answer.json), input: { source: 'JSON_BODY', comparison, target, property, regex } };
  }
}

async function nameServerOf(nameServer: string | undefined, port: number | undefined, policy: NetworkPolicy): Promise<Server | { error: { kind: FailureKind; message: string } }> {
  if (nameServer === undefined || nameServer === '') {
    const system = dns.getServers()[0];
    if (system === undefined) return { error: { kind: 'NETWORK_ERROR', message: 'no name server given and the system has none configured (/etc/resolv.conf)' } };
    const parsed = hostAndPort(system);
    const refusal = policy.refusal(parsed.host);
    if (refusal) return { error: { kind: 'NETWORK_ERROR', message: refusal.message } };
    return { address: parsed.host, port: port ?? parsed.port ?? DNS_DEFAULT_PORT, label: `system resolver (${system})` };
  }
  const serverPort = port ?? DNS_DEFAULT_PORT;
  const host = nameServer.startsWith('[') && nameServer.endsWith(']') ? nameServer.slice(1, -1) : nameServer;
  return new Promise((resolve) => {
    guardLookup(policy)(host, {}, (error, address) => {
      if (error) {
        const refused = (error as { code?: string }).code === 'ERR_VIGIL_NETWORK_POLICY';
        resolve({ error: { kind: 'NETWORK_ERROR', message: refused ? error.message : `the name server ${nameServer} could not be resolved: ${error.message}` } });
      } else resolve({ address: String(address), port: serverPort, label: `${nameServer}:${serverPort}` });
    });
  });
}

/** `1.2.3.4`, `1.2.3.4:5353`, `::1`, `[::1]:5353` as `dns.getServers()` writes them. */
function hostAndPort(server: string): { host: string; port: number | undefined } {
  const bracketed = /^\[(.+)\]:(\d+)$/.exec(server);
  if (bracketed) return { host: bracketed[1]!, port: Number(bracketed[2]) };
  const ipv4 = /^([\d.]+):(\d+)$/.exec(server);
  if (ipv4) return { host: ipv4[1]!, port: Number(ipv4[2]) };
  return { host: server, port: undefined };
}

interface Ask {
  server: Server;
  query: string;
  recordType: string;
  protocol: 'UDP' | 'TCP';
  timeoutMs: number;
  signal: AbortSignal;
}

/** Sends the query and waits for the answer with the same id, at most `timeoutMs`. */
function ask(input: Ask): Promise<Exchange> {
  const id = Math.floor(Math.random() * 0x10000);
  const type = input.recordType === 'HTTPS' ? HTTPS_TYPE : input.recordType;
  const query: dnsPacket.Packet = {
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type: type as dnsPacket.RecordType, name: input.query, class: 'IN' }],
  };
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settle: (outcome: Omit<Exchange, 'responseTime'>) => void = () => {};
    const cleanups: Array<() => void> = [];
    settle = (outcome) => {
      settle = () => {};
      for (const cleanup of cleanups) cleanup();
      resolve({ ...outcome, responseTime: elapsed() });
    };
    const timer = setTimeout(() => settle({ response: null, error: { kind: 'TIMEOUT', message: `no response from ${input.server.label} within maxResponseTime (${input.timeoutMs} ms)` } }), input.timeoutMs);
    cleanups.push(() => clearTimeout(timer));
    const onAbort = () => settle({ response: null, error: { kind: 'ABORTED', message: 'the run was cancelled before the response arrived' } });
    if (input.signal.aborted) return onAbort();
    input.signal.addEventListener('abort', onAbort, { once: true });
    cleanups.push(() => input.signal.removeEventListener('abort', onAbort));
    const accept = (decoded: dnsPacket.Packet) => decoded.id === id && settle({ response: decoded, error: null });
    const networkError = (error: Error) => settle({ response: null, error: { kind: 'NETWORK_ERROR', message: `${input.protocol} query to ${input.server.label} failed: ${error.message}` } });
    if (input.protocol === 'UDP') askOverUdp(input.server, dnsPacket.encode(query), { accept, networkError, cleanups });
    else askOverTcp(input.server, dnsPacket.streamEncode(query), { accept, networkError, cleanups });
  });
}

interface Handlers {
  accept(decoded: dnsPacket.Packet): void;
  networkError(error: Error): void;
  cleanups: Array<() => void>;
}

function askOverUdp(server: Server, message: Buffer, handlers: Handlers): void {
  const socket = dgram.createSocket(net.isIPv6(server.address) ? 'udp6' : 'udp4');
  handlers.cleanups.push(() => socket.close());
  socket.on('error', handlers.networkError);
  socket.on('message', (datagram) => {
    // A datagram that does not decode is not the answer (a late or stray packet); keep waiting.
    const decoded = tryDecode(() => dnsPacket.decode(datagram));
    if (decoded !== null) handlers.accept(decoded);
  });
  socket.send(message, server.port, server.address, (error) => error && handlers.networkError(error));
}

function askOverTcp(server: Server, message: Buffer, handlers: Handlers): void {
  const socket = net.connect({ host: server.address, port: server.port });
  handlers.cleanups.push(() => socket.destroy());
  let received = Buffer.alloc(0);
  socket.on('error', handlers.networkError);
  socket.on('connect', () => socket.write(message));
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    // Each message is prefixed by its length (RFC 1035 §4.2.2).
    while (received.length >= 2 && received.length >= 2 + received.readUInt16BE(0)) {
      const length = received.readUInt16BE(0);
      const decoded = tryDecode(() => dnsPacket.decode(received.subarray(2, 2 + length)));
      received = received.subarray(2 + length);
      if (decoded !== null) handlers.accept(decoded);
    }
  });
  socket.on('end', () => handlers.networkError(new Error('the server closed the connection without an answer')));
}

function tryDecode(decode: () => dnsPacket.Packet): dnsPacket.Packet | null {
  try {
    return decode();
  } catch {
    return null;
  }
}
