/**
 * The TCP executor: one try of a TCP monitor. Connect to `hostname:port` (the name resolved through
 * the network policy; a literal IP checked against it), send `data` if any, read the answer, then
 * assert on it. The result reuses `apiCheckResult` as the service stores it for every request-based
 * check: the server's tcp-checks analytics read `responseTime` as `total` and
 * `apiCheckResult.response.timingPhases.{dns, connection, data}`.
 *
 * When the answer is complete is not something TCP says, so the read ends at the first of: the
 * peer closing its side, the read cap (`maxBodyBytes`), a quiet gap of `QUIET_MS` after the last
 * byte, or `maxResponseTime`. The monitor reads only when it sent data or asserts on the answer;
 * otherwise an open connection is the whole check.
 */
import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';
import { TCP_DEGRADED_RESPONSE_TIME_DEFAULT, TCP_MAX_RESPONSE_TIME_DEFAULT, TcpCheckCreate, type TcpAssertion } from '@vigil/schema';
import type { AssertionEvaluator } from '../assertions/pool.js';
import { guardLookup } from '../network-policy.js';
import type { ApiRunResult, AssertionOutcome, Executor, ExecutorContext, FailureKind, TryResult, WireCheck } from '../types.js';
import { interpolate, variableLookup } from '../variables.js';
import { runFields } from './run-fields.js';
import { runnerFault as fault } from './monitor-result.js';

/** How long the read waits for more after the last byte before it takes the answer as complete. */
export const QUIET_MS = 100;

export const tcpExecutor: Executor = { checkType: 'TCP', run: runTcpMonitor };

/** Moments of the try, in performance.now() milliseconds; undefined = did not happen. */
interface Marks {
  start: number;
  lookupStart?: number;
  lookupEnd?: number;
  connected?: number;
  firstByte?: number;
  lastByte?: number;
  end?: number;
}

interface Conversation {
  answer: string;
  truncated: boolean;
  /** Why the try has no (complete) answer; null when it has one. */
  error: { kind: FailureKind; message: string } | null;
  marks: Marks;
}

async function runTcpMonitor(check: WireCheck, context: ExecutorContext): Promise<TryResult> {
  const startedAt = new Date();
  const parsed = TcpCheckCreate.safeParse(runFields(check));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fault(startedAt, `this TCP monitor's payload does not parse: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid'}`);
  }
  const spec = parsed.data;
  const lookup = variableLookup(context.variables);
  const hostname = interpolate(spec.request.hostname, lookup);
  const data = spec.request.data === null ? null : interpolate(spec.request.data, lookup);
  const { port } = spec.request;
  const maxResponseTime = spec.maxResponseTime ?? TCP_MAX_RESPONSE_TIME_DEFAULT;
  const degradedResponseTime = spec.degradedResponseTime ?? TCP_DEGRADED_RESPONSE_TIME_DEFAULT;
  const reads = data !== null || spec.request.assertions.some((assertion) => assertion.source === 'RESPONSE_DATA');

  const talk = await converse({
    hostname,
    port,
    family: spec.request.ipFamily === 'IPv6' ? 6 : 4,
    data,
    reads,
    maxResponseTime,
    maxReadBytes: context.options.maxBodyBytes,
    context,
  });
  const { marks } = talk;
  const finished = marks.end ?? performance.now();
  const timedOut = talk.error?.kind === 'TIMEOUT';
  const responseTime = Math.round(timedOut ? Math.max(finished - marks.start, maxResponseTime) : finished - marks.start);

  let assertions: AssertionOutcome[] = [];
  let failure = talk.error;
  if (failure === null) {
    assertions = await evaluateTcpAssertions(context.assertions, spec.request.assertions, talk.answer, responseTime);
    const failed = assertions.find((assertion) => !assertion.passed);
    if (failed) {
      const detail = failed.error ?? `${failed.source} ${failed.comparison} ${JSON.stringify(failed.target)}: actual ${failed.actual === undefined ? '(absent)' : JSON.stringify(failed.actual)}`;
      failure = { kind: 'ASSERTION', message: `assertion failed: ${detail}` };
    }
  }
  if (spec.shouldFail && failure?.kind !== 'ABORTED') {
    failure = failure === null
      ? { kind: 'ASSERTION', message: `shouldFail is set, so a failure was expected, but the connection to ${hostname}:${port} and its assertions succeeded` }
      : null;
  }
  if (failure) failure = { kind: failure.kind, message: context.redact(failure.message) };

  const apiCheckResult: ApiRunResult = {
    assertions,
    request: { method: 'TCP', url: `tcp://${net.isIPv6(hostname) ? `[${hostname}]` : hostname}:${port}`, data: context.redact(data ?? ''), headers: {}, params: {} },
    response: {
      status: 0,
      statusText: '',
      body: context.redact(talk.answer, { cut: talk.truncated }),
      bodyTruncated: talk.truncated,
      headers: {},
      ...measure(marks, finished),
    },
    requestError: talk.error ? context.redact(talk.error.message) : null,
    jobLog: { setup: [], request: [{ time: Date.now(), level: talk.error ? 'ERROR' : 'INFO', msg: context.redact(talk.error?.message ?? `connected to ${hostname}:${port} in ${responseTime} ms`) }], teardown: [] },
    jobAssets: null,
  };
  return {
    hasFailures: failure !== null,
    hasErrors: false,
    isDegraded: talk.error === null && responseTime > degradedResponseTime,
    overMaxResponseTime: timedOut,
    responseTime,
    startedAt: startedAt.toISOString(),
    stoppedAt: new Date().toISOString(),
    apiCheckResult,
    multiStepCheckResult: null,
    failure,
  };
}

interface ConverseOptions {
  hostname: string;
  port: number;
  family: 4 | 6;
  data: string | null;
  reads: boolean;
  maxResponseTime: number;
  maxReadBytes: number;
  context: ExecutorContext;
}

/** One connection: connect, send, read. Resolves once, never rejects. */
function converse(options: ConverseOptions): Promise<Conversation> {
  const { hostname, port, context } = options;
  const marks: Marks = { start: performance.now() };
  const policy = context.options.networkPolicy.rules.length > 0 ? context.options.networkPolicy : undefined;
  const resolve: LookupFunction = policy ? guardLookup(policy) : (dns.lookup as LookupFunction);
  const timedLookup: LookupFunction = (name, lookupOptions, callback) => {
    marks.lookupStart ??= performance.now();
    resolve(name, lookupOptions, (...args: Parameters<typeof callback>) => {
      marks.lookupEnd = performance.now();
      (callback as (...values: unknown[]) => void)(...args);
    });
  };
  const target = `${net.isIPv6(hostname) ? `[${hostname}]` : hostname}:${port}`;

  return new Promise((settle) => {
    const chunks: Buffer[] = [];
    let read = 0;
    let truncated = false;
    let done = false;
    let quiet: NodeJS.Timeout | undefined;
    // Node dials a literal IP without a lookup, so the guarded lookup never sees it.
    const refusal = policy?.refusal(hostname);
    const socket = refusal ? undefined : net.connect({ host: hostname, port, family: options.family, lookup: timedLookup, autoSelectFamily: false });

    const finish = (error: Conversation['error']) => {
      if (done) return;
      done = true;
      marks.end = marks.lastByte ?? marks.connected ?? performance.now();
      if (error) marks.end = performance.now();
      clearTimeout(deadline);
      clearTimeout(quiet);
      context.signal.removeEventListener('abort', abort);
      socket?.destroy();
      settle({ answer: Buffer.concat(chunks).toString('utf8'), truncated, error, marks });
    };
    const deadline = setTimeout(() => {
      const message = marks.connected === undefined
        ? `no connection to ${target} within maxResponseTime (${options.maxResponseTime} ms)`
        : marks.firstByte === undefined
          ? `no answer from ${target} within maxResponseTime (${options.maxResponseTime} ms)`
          : `the answer from ${target} did not end within maxResponseTime (${options.maxResponseTime} ms)`;
      finish({ kind: 'TIMEOUT', message });
    }, options.maxResponseTime);
    const abort = () => finish({ kind: 'ABORTED', message: 'the run was cancelled before the TCP exchange ended' });
    if (context.signal.aborted) return abort();
    context.signal.addEventListener('abort', abort, { once: true });
    if (refusal || !socket) return finish({ kind: 'NETWORK_ERROR', message: `could not connect to ${target}: ${refusal?.message ?? 'no socket'}` });

    socket.on('connect', () => {
      marks.connected = performance.now();
      if (options.data !== null) socket.write(options.data);
      if (!options.reads) finish(null);
    });
    socket.on('data', (chunk: Buffer) => {
      const now = performance.now();
      marks.firstByte ??= now;
      marks.lastByte = now;
      const room = options.maxReadBytes - read;
      if (chunk.length >= room) {
        chunks.push(chunk.subarray(0, room));
        read += room;
        truncated = chunk.length > room;
        return finish(null);
      }
      chunks.push(chunk);
      read += chunk.length;
      clearTimeout(quiet);
      quiet = setTimeout(() => finish(null), QUIET_MS);
    });
    socket.on('end', () => finish(null));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      const message = marks.connected === undefined ? `could not connect to ${target}: ${describe(error)}` : `the connection to ${target} failed: ${describe(error)}`;
      finish({ kind: 'NETWORK_ERROR', message });
    });
  });
}

const ERROR_TEXTS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the peer',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved (temporary DNS failure)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'the peer closed the connection while data was being sent',
};

function describe(error: NodeJS.ErrnoException): string {
  if (error.code === 'ERR_VIGIL_NETWORK_POLICY') return error.message;
  const text = error.code ? ERROR_TEXTS[error.code] : undefined;
  return text ? `${text} (${error.code})` : error.message;
}

/** `RESPONSE_DATA` is the answer as text, compared as an API check's text body is. */
async function evaluateTcpAssertions(evaluator: AssertionEvaluator, assertions: readonly TcpAssertion[], answer: string, responseTime: number): Promise<AssertionOutcome[]> {
  const asApi = assertions.map((assertion) => ({ ...assertion, label: assertion.source, source: assertion.source === 'RESPONSE_DATA' ? 'TEXT_BODY' : assertion.source }));
  const outcomes = await evaluator.evaluate(asApi, { status: 0, headers: {}, body: answer, responseTime });
  return outcomes.map((outcome, index) => ({ ...outcome, source: assertions[index]!.source }));
}

/**
 * Phases in milliseconds: `dns` (the lookup), `connection` (the TCP handshake after it), `data`
 * (connected → last byte read); the API check's names are filled too (`tcp` = `connection`,
 * `firstByte`, `download`) so reporters that print those read real values.
 */
function measure(marks: Marks, finished: number): Pick<ApiRunResult['response'], 'timings' | 'timingPhases'> {
  const offset = (moment: number | undefined) => (moment === undefined ? 0 : round(moment - marks.start));
  const between = (from: number | undefined, to: number | undefined) => (from === undefined || to === undefined ? 0 : round(to - from));
  const dnsTime = between(marks.lookupStart, marks.lookupEnd);
  const connection = between(marks.lookupEnd ?? marks.start, marks.connected);
  return {
    timings: { socket: 0, lookup: offset(marks.lookupEnd), connect: offset(marks.connected), response: offset(marks.firstByte), end: round(finished - marks.start) },
    timingPhases: {
      wait: 0,
      dns: dnsTime,
      tcp: connection,
      firstByte: between(marks.connected, marks.firstByte),
      download: between(marks.firstByte, marks.lastByte),
      total: round(finished - marks.start),
      connection,
      data: between(marks.connected, marks.lastByte ?? marks.connected),
    },
  };
}

function round(milliseconds: number): number {
  return Math.max(0, Math.round(milliseconds * 100) / 100);
}
