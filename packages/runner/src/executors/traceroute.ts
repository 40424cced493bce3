/**
 * Traceroute monitors: the route to one host, hop by hop, then whether the host was reached and
 * assertions on the hop count and the final hop's round trips and loss. Node cannot set a
 * packet's TTL or read ICMP "time exceeded", so the probes are sent by the system's `traceroute`
 * (Linux traceroute: TCP SYN and ICMP probes need a raw socket, as root or with CAP_NET_RAW).
 * The host is resolved here, through the network policy, and `traceroute` is given only the
 * address and `-n`, so it never resolves (or reaches) a name by itself. Its output names
 * addresses that routers chose to send: it is parsed defensively and bounded.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { TRACEROUTE_DEFAULT_PORTS, TracerouteCheckCreate, type TracerouteAssertion, type TracerouteProtocol } from '@vigil/schema';
import type { AssertionOutcome, Executor, ExecutorContext, FailureKind, TryResult, WireCheck } from '../types.js';
import { interpolate, variableLookup } from '../variables.js';
import { resolveThroughPolicy } from './icmp.js';
import { monitorEnvelope as envelope, monitorFailure, runnerFault as fault } from './monitor-result.js';

const failed = monitorFailure.bind(null, 'tracerouteCheckResult');

export const tracerouteExecutor: Executor = { checkType: 'TRACEROUTE', run: runTracerouteMonitor };

/** Probes per hop, as traceroute's default; packet loss is counted over them. */
const PROBES_PER_HOP = 3;
/** More output than 64 hops of 3 probes can honestly produce; past it the rest is ignored. */
const OUTPUT_LIMIT = 64 * 1024;
const PROBE_FLAGS: Readonly<Record<Exclude<TracerouteProtocol, 'SCTP'>, readonly string[]>> = { TCP: ['-T'], UDP: ['-U'], ICMP: ['-I'] };

/** One probe's answer: who answered and after how long; null when none came. */
export interface Probe {
  ip: string;
  rtt: number;
  /** traceroute's `!H`, `!N`, `!X`… when the answer was an ICMP unreachable. */
  annotation?: string;
}

export interface Hop {
  hop: number;
  /** Always null: hop addresses are not looked up in DNS (docs/migrating-from-checkly.md). */
  hostname: null;
  ips: string[];
  probes: Array<Probe | null>;
  packetLoss: number;
  latency: Latency | null;
}

export interface Latency {
  min: number;
  avg: number;
  max: number;
  stdDev: number;
}

async function runTracerouteMonitor(check: WireCheck, context: ExecutorContext): Promise<TryResult> {
  const startedAt = new Date();
  const parsed = TracerouteCheckCreate.safeParse({ name: 'run', request: check.request, maxResponseTime: check.maxResponseTime, degradedResponseTime: check.degradedResponseTime, shouldFail: check.shouldFail });
  if (!parsed.success) return fault(startedAt, `this traceroute monitor's payload does not parse: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const spec = parsed.data;
  const hostname = interpolate(spec.request.url, variableLookup(context.variables));
  const family = spec.request.ipFamily === 'IPv6' ? 6 : 4;
  const protocol = spec.request.protocol ?? 'TCP';
  const port = protocol === 'ICMP' ? null : (spec.request.port ?? TRACEROUTE_DEFAULT_PORTS[protocol]);
  const maxHops = spec.request.maxHops ?? 30;
  const maxUnknownHops = spec.request.maxUnknownHops ?? 15;
  const timeoutMs = (spec.request.timeout ?? 10) * 1000;
  const maxResponseTime = spec.maxResponseTime ?? 20000;
  const request = { url: hostname, protocol, port, ipFamily: family === 6 ? 'IPv6' : 'IPv4', maxHops, maxUnknownHops, ptrLookup: spec.request.ptrLookup ?? true, timeout: timeoutMs / 1000 };
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const empty = { request, response: null, assertions: [], totalHops: 0, destinationReached: false, finalHopLatency: null, timingPhases: null };

  if (protocol === 'SCTP') return fault(startedAt, "SCTP probes are not supported by this runner's traceroute; use TCP, UDP or ICMP");
  const address = await resolveThroughPolicy(hostname, family, context.options.networkPolicy);
  if ('error' in address) return failed(startedAt, elapsed(), 'NETWORK_ERROR', address.error, empty, context);

  const args = ['-n', `-${family}`, ...PROBE_FLAGS[protocol], ...(port === null ? [] : ['-p', String(port)]), '-m', String(maxHops), '-q', String(PROBES_PER_HOP), '-w', String(Math.min(3, timeoutMs / 1000)), address.ip];
  const trace = await runTraceroute(args, { signal: context.signal, timeoutMs, maxUnknownHops });
  if (trace.kind === 'missing') return fault(startedAt, 'traceroute monitors need the system traceroute (Debian: apt-get install traceroute); it is not on the PATH');
  if (context.signal.aborted) return failed(startedAt, elapsed(), 'ABORTED', 'the run was cancelled before traceroute finished', empty, context);
  const hops = trace.hops;
  if (hops.length === 0) {
    const detail = trace.stderr.trim().split('\n')[0]?.slice(0, 300) || `exit code ${String(trace.code)}`;
    return failed(startedAt, elapsed(), 'NETWORK_ERROR', `traceroute to ${address.ip} failed: ${detail}`, empty, context);
  }
  const duration = elapsed();
  const destinationReached = hops.some((hop) => hop.ips.includes(address.ip));
  const finalHop = [...hops].reverse().find((hop) => hop.latency !== null) ?? null;
  const truncationReason = destinationReached ? null : trace.stopped ?? (hops.length >= maxHops ? 'maxHops' : 'unknown');
  const response = {
    hostname,
    resolvedIp: address.ip,
    totalHops: hops.length,
    destinationReached,
    truncationReason,
    finalHopLatency: finalHop?.latency ?? null,
    packetLoss: finalHop?.packetLoss ?? 100,
    hops,
    protocol,
    probeProtocol: protocol,
  };
  const assertions = await evaluateTracerouteAssertions(context, spec.request.assertions, response, duration);
  let failure: TryResult['failure'] = null;
  if (!destinationReached) failure = { kind: 'NETWORK_ERROR', message: `${hostname} (${address.ip}) was not reached after ${hops.length} hop${hops.length === 1 ? '' : 's'} (${truncationReason})` };
  else {
    const broken = assertions.find((assertion) => !assertion.passed);
    if (broken) failure = { kind: 'ASSERTION', message: `assertion failed: ${broken.error ?? `${broken.source}${broken.property ? ` ${broken.property}` : ''} ${broken.comparison} ${JSON.stringify(broken.target)}: actual ${broken.actual === undefined ? '(absent)' : JSON.stringify(broken.actual)}`}` };
  }
  if (spec.shouldFail) failure = failure === null ? { kind: 'STATUS', message: 'shouldFail is set, so a failure was expected, but the host was reached' } : null;
  return {
    ...envelope(startedAt, duration),
    hasFailures: failure !== null,
    isDegraded: duration > (spec.degradedResponseTime ?? maxResponseTime),
    overMaxResponseTime: duration > maxResponseTime,
    failure,
    tracerouteCheckResult: {
      totalHops: hops.length,
      destinationReached,
      finalHopLatency: response.finalHopLatency,
      timingPhases: { total: duration },
      requestError: null,
      request,
      assertions,
      response,
    },
  };
}

type TraceOutcome =
  | { kind: 'missing' }
  | { kind: 'ran'; hops: Hop[]; stderr: string; code: number | null; stopped: 'timeout' | 'maxUnknownHops' | null };

/**
 * Runs traceroute and reads hops as they are printed, so a route that stops answering ends after
 * maxUnknownHops silent hops (traceroute itself would wait out every hop up to maxHops).
 */
function runTraceroute(args: string[], options: { signal: AbortSignal; timeoutMs: number; maxUnknownHops: number }): Promise<TraceOutcome> {
  return new Promise((settle) => {
    const child = spawn('traceroute', args, { stdio: ['ignore', 'pipe', 'pipe'], signal: options.signal });
    let stdout = '';
    let stderr = '';
    let stopped: 'timeout' | 'maxUnknownHops' | null = null;
    const stop = (reason: 'timeout' | 'maxUnknownHops') => {
      stopped ??= reason;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length >= OUTPUT_LIMIT) return;
      stdout += chunk.slice(0, OUTPUT_LIMIT - stdout.length);
      if (trailingUnknownHops(parseTraceroute(stdout)) >= options.maxUnknownHops) stop('maxUnknownHops');
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      settle(error.code === 'ENOENT' ? { kind: 'missing' } : { kind: 'ran', hops: [], stderr: error.message, code: null, stopped });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const hops = parseTraceroute(stdout);
      // A hop cut off mid-line by a kill is not a hop.
      const whole = stopped !== null && !stdout.endsWith('\n') ? hops.slice(0, -1) : hops;
      settle({ kind: 'ran', hops: whole, stderr, code, stopped });
    });
  });
}

function trailingUnknownHops(hops: readonly Hop[]): number {
  let count = 0;
  for (let index = hops.length - 1; index >= 0 && hops[index]!.latency === null; index--) count++;
  return count;
}

/**
 * traceroute's hop lines: ` 3  192.0.2.1  1.234 ms  198.51.100.7  1.5 ms *`, an address before the
 * times of the probes it answered, `*` for a probe without an answer, `!H`-style marks after a time.
 * Anything else (the header, a name, garbage) is skipped.
 */
export function parseTraceroute(output: string): Hop[] {
  const hops: Hop[] = [];
  for (const line of output.split('\n')) {
    const match = /^\s*(\d{1,2})\s+(.*)$/.exec(line);
    if (!match) continue;
    const number = Number(match[1]);
    if (number < 1 || number > 64 || hops.some((hop) => hop.hop === number)) continue;
    const probes: Array<Probe | null> = [];
    let ip: string | null = null;
    const tokens = match[2]!.trim().split(/\s+/);
    for (let index = 0; index < tokens.length && probes.length < 16; index++) {
      const token = tokens[index]!;
      if (token === '*') probes.push(null);
      else if (net.isIP(token) !== 0) ip = token;
      else if (/^\d+(\.\d+)?$/.test(token) && tokens[index + 1] === 'ms' && ip !== null) {
        probes.push({ ip, rtt: Number(token) });
        index++;
      } else if (/^![A-Z]?\d{0,3}$/.test(token) && probes.at(-1)) probes.at(-1)!.annotation = token;
    }
    if (probes.length === 0) continue;
    const answered = probes.filter((probe): probe is Probe => probe !== null);
    hops.push({
      hop: number,
      hostname: null,
      ips: [...new Set(answered.map((probe) => probe.ip))],
      probes,
      packetLoss: Math.round(((probes.length - answered.length) / probes.length) * 1000) / 10,
      latency: statistics(answered.map((probe) => probe.rtt)),
    });
  }
  return hops;
}

function statistics(values: readonly number[]): Latency | null {
  if (values.length === 0) return null;
  const avg = values.reduce((sum, value) => sum + value, 0) / values.length;
  const variance = values.reduce((sum, value) => sum + (value - avg) ** 2, 0) / values.length;
  const round = (value: number) => Math.round(value * 1000) / 1000;
  return { min: round(Math.min(...values)), avg: round(avg), max: round(Math.max(...values)), stdDev: round(Math.sqrt(variance)) };
}

const ASSERTION_PATHS: Readonly<Record<string, (property: string) => string>> = {
  RESPONSE_TIME: (property) => `$.finalHopLatency.${property}`,
  HOP_COUNT: () => '$.totalHops',
  PACKET_LOSS: () => '$.packetLoss',
};

async function evaluateTracerouteAssertions(context: ExecutorContext, assertions: readonly TracerouteAssertion[], response: Record<string, unknown>, responseTime: number): Promise<AssertionOutcome[]> {
  if (assertions.length === 0) return [];
  const inputs = assertions.map(({ source, comparison, property, target, regex }) => ({ source: 'JSON_BODY', label: source, comparison, property: ASSERTION_PATHS[source]!(property), target, regex }));
  const evaluated = await context.assertions.evaluate(inputs, { status: 0, headers: {}, body: JSON.stringify(response), responseTime });
  return evaluated.map((outcome, index) => ({ ...outcome, source: assertions[index]!.source, property: assertions[index]!.property }));
}
