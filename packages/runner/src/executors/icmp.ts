/**
 * ICMP monitors: `pingCount` echo requests to one host, then packet loss against the thresholds and
 * assertions on the round-trip statistics. Node has no raw or ICMP sockets, so the echo requests
 * are sent by the system's `ping` (iputils), which uses an unprivileged ICMP datagram socket where
 * `net.ipv4.ping_group_range` admits the service's group and a raw socket otherwise (as root or
 * with CAP_NET_RAW); the result names which. The host is resolved here, through the network
 * policy, and `ping` is given the address, so it never resolves (or reaches) a name by itself.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { promisify } from 'node:util';
import { IcmpCheckCreate, type IcmpAssertion } from '@vigil/schema';
import { guardLookup, type NetworkPolicy } from '../network-policy.js';
import type { AssertionOutcome, Executor, ExecutorContext, FailureKind, TryResult, WireCheck } from '../types.js';
import { interpolate, variableLookup } from '../variables.js';
import { monitorEnvelope as envelope, monitorFailure, runnerFault as fault } from './monitor-result.js';

const failed = monitorFailure.bind(null, 'icmpCheckResult');

export const icmpExecutor: Executor = { checkType: 'ICMP', run: runIcmpMonitor };

const run = promisify(execFile);

/** What `ping` reported. */
export interface PingReport {
  sent: number;
  received: number;
  /** Percent of echo requests without a reply. */
  packetLoss: number;
  /** Round-trip times of the replies, in milliseconds. */
  replies: number[];
  latency: { min: number; avg: number; max: number; stdDev: number } | null;
}

async function runIcmpMonitor(check: WireCheck, context: ExecutorContext): Promise<TryResult> {
  const startedAt = new Date();
  const parsed = IcmpCheckCreate.safeParse({ name: 'run', request: check.request, maxResponseTime: check.maxResponseTime, degradedResponseTime: check.degradedResponseTime, maxPacketLossThreshold: check.maxPacketLossThreshold, degradedPacketLossThreshold: check.degradedPacketLossThreshold, shouldFail: check.shouldFail });
  if (!parsed.success) return fault(startedAt, `this ICMP monitor's payload does not parse: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const spec = parsed.data;
  const hostname = interpolate(spec.request.hostname, variableLookup(context.variables));
  const family = spec.request.ipFamily === 'IPv6' ? 6 : 4;
  const count = spec.request.pingCount ?? 10;
  const maxResponseTime = spec.maxResponseTime ?? 20000;
  const request = { hostname, ipFamily: family === 6 ? 'IPv6' : 'IPv4', pingCount: count };
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);

  const address = await resolveThroughPolicy(hostname, family, context.options.networkPolicy);
  if ('error' in address) return failed(startedAt, elapsed(), 'NETWORK_ERROR', address.error, { request, method: null, response: null, assertions: [] }, context);
  const method = pingMethod();
  let report: PingReport;
  try {
    // -n: no reverse lookups; -i 0.2: the shortest interval iputils allows without root; -w: a deadline for the whole run.
    const deadline = Math.max(1, Math.ceil(maxResponseTime / 1000));
    const { stdout } = await run('ping', ['-n', `-${family}`, '-c', String(count), '-i', '0.2', '-W', '1', '-w', String(deadline), address.ip], { signal: context.signal, timeout: maxResponseTime + 2000 });
    report = parsePing(stdout);
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string; code?: unknown; killed?: boolean };
    if (context.signal.aborted) return failed(startedAt, elapsed(), 'ABORTED', 'the run was cancelled before ping finished', { request, method, response: null, assertions: [] }, context);
    if (failure.code === 'ENOENT') return fault(startedAt, 'ICMP monitors need the system ping (Debian: apt-get install iputils-ping); it is not on the PATH');
    // ping exits 1 when replies are missing: its statistics still say how many.
    if (typeof failure.stdout === 'string' && /packets transmitted/.test(failure.stdout)) report = parsePing(failure.stdout);
    else return failed(startedAt, elapsed(), 'NETWORK_ERROR', `ping ${address.ip} failed: ${(failure.stderr ?? failure.message).trim()}`, { request, method, response: null, assertions: [] }, context);
  }
  const responseTime = elapsed();
  const response = { resolvedIp: address.ip, packetsSent: report.sent, packetsReceived: report.received, packetLoss: report.packetLoss, latency: report.latency, replies: report.replies };
  const assertions = await evaluateIcmpAssertions(context, spec.request.assertions, response, responseTime);
  const maxLoss = spec.maxPacketLossThreshold ?? 100;
  const degradedLoss = spec.degradedPacketLossThreshold ?? maxLoss;
  let failure: TryResult['failure'] = null;
  if (report.received === 0) failure = { kind: 'NETWORK_ERROR', message: `no echo reply from ${hostname} (${address.ip}): ${report.sent} sent, 100% packet loss` };
  else if (report.packetLoss > maxLoss) failure = { kind: 'STATUS', message: `packet loss ${report.packetLoss}% is above maxPacketLossThreshold (${maxLoss}%)` };
  else {
    const broken = assertions.find((assertion) => !assertion.passed);
    if (broken) failure = { kind: 'ASSERTION', message: `assertion failed: ${broken.error ?? `${broken.source}${broken.property ? ` ${broken.property}` : ''} ${broken.comparison} ${JSON.stringify(broken.target)}: actual ${broken.actual === undefined ? '(absent)' : JSON.stringify(broken.actual)}`}` };
  }
  if (spec.shouldFail) failure = failure === null ? { kind: 'STATUS', message: 'shouldFail is set, so a failure was expected, but the host answered' } : null;
  return {
    ...envelope(startedAt, responseTime),
    hasFailures: failure !== null,
    isDegraded: report.packetLoss > degradedLoss || responseTime > (spec.degradedResponseTime ?? maxResponseTime),
    overMaxResponseTime: responseTime > maxResponseTime,
    failure,
    icmpCheckResult: { request, method, response, assertions, requestError: null },
  };
}

/** `ping`'s summary lines; a reply line per echo reply. */
export function parsePing(output: string): PingReport {
  const replies = [...output.matchAll(/time[=<]([\d.]+) ms/g)].map((match) => Number(match[1]));
  const counts = /(\d+) packets transmitted, (\d+) (?:packets )?received/.exec(output);
  const sent = counts ? Number(counts[1]) : 0;
  const received = counts ? Number(counts[2]) : replies.length;
  const rtt = /= ([\d.]+)\/([\d.]+)\/([\d.]+)\/([\d.]+) ms/.exec(output);
  return {
    sent,
    received,
    packetLoss: sent === 0 ? 100 : Math.round(((sent - received) / sent) * 1000) / 10,
    replies,
    latency: rtt ? { min: Number(rtt[1]), avg: Number(rtt[2]), max: Number(rtt[3]), stdDev: Number(rtt[4]) } : null,
  };
}

/**
 * How the system's ping reaches the network here: an ICMP datagram socket needs no privilege when
 * the kernel's ping_group_range holds the process's group; otherwise iputils needs a raw socket.
 */
export function pingMethod(): string {
  const gid = process.getgid?.() ?? -1;
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ping_group_range', 'utf8').trim().split(/\s+/).map(Number) as [number, number];
    if (gid >= low && gid <= high) return 'system ping (iputils), unprivileged ICMP datagram socket (net.ipv4.ping_group_range)';
  } catch {
    // Not Linux: ping decides alone.
  }
  return process.getuid?.() === 0 ? 'system ping (iputils), raw ICMP socket (running as root)' : 'system ping (iputils), raw ICMP socket (ping needs CAP_NET_RAW or setuid)';
}

/** The address to send probes to, resolved here so the system tools never resolve (or reach) a name the policy denies. */
export async function resolveThroughPolicy(hostname: string, family: 4 | 6, policy: NetworkPolicy): Promise<{ ip: string } | { error: string }> {
  const literal = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (net.isIP(literal) !== 0) {
    const refusal = policy.refusal(literal);
    return refusal ? { error: refusal.message } : { ip: literal };
  }
  return new Promise((settle) => {
    guardLookup(policy)(literal, { family }, (error, address) => {
      if (error) settle({ error: (error as { code?: string }).code === 'ERR_VIGIL_NETWORK_POLICY' ? error.message : `${hostname} could not be resolved: ${error.message}` });
      else settle({ ip: String(address) });
    });
  });
}

async function evaluateIcmpAssertions(context: ExecutorContext, assertions: readonly IcmpAssertion[], response: Record<string, unknown>, responseTime: number): Promise<AssertionOutcome[]> {
  if (assertions.length === 0) return [];
  const inputs = assertions.map(({ source, comparison, property, target, regex }) =>
    source === 'LATENCY'
      ? { source: 'JSON_BODY', label: source, comparison, property: `$.latency.${property}`, target, regex }
      : { source: 'JSON_BODY', label: source, comparison, property, target, regex });
  const evaluated = await context.assertions.evaluate(inputs, { status: 0, headers: {}, body: JSON.stringify(response), responseTime });
  return evaluated.map((outcome, index) => ({ ...outcome, source: assertions[index]!.source, property: assertions[index]!.property }));
}
