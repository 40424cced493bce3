/**
 * SSL monitors: one TLS handshake with a host and port (SNI = `serverName`, else the host name),
 * then the certificate and the connection judged: expired or not yet valid, an untrusted chain
 * (unless `skipChainValidation`), a name mismatch, expiry within `alertDaysBeforeExpiry` days, the
 * security baseline, and the assertions. The response time is the handshake's.
 *
 * The handshake never rejects: the chain and the name are checked after it, so a bad certificate
 * still yields every fact a user needs to see why it is bad.
 */
import tls, { type TLSSocket } from 'node:tls';
import net from 'node:net';
import { SslCheckCreate, sslPropertyGrammar, type SslAssertion } from '@vigil/schema';
import type { AssertionInput } from '../assertions/evaluate.js';
import { guardLookup } from '../network-policy.js';
import type { AssertionOutcome, Executor, ExecutorContext, FailureKind, TryResult, WireCheck } from '../types.js';
import { interpolate, variableLookup } from '../variables.js';
import { runFields } from './run-fields.js';
import { baselineFindings, certificateFacts, connectionFacts, peerCertificate, tlsVersionRank, type BaselineFinding, type CertificateFacts, type ConnectionFacts } from './ssl-facts.js';
import { monitorEnvelope as envelope, runnerFault as fault } from './monitor-result.js';

export const sslExecutor: Executor = { checkType: 'SSL', run: runSslMonitor };

interface Handshake {
  socket: TLSSocket | null;
  ocspStapled: boolean;
  error: { kind: FailureKind; message: string } | null;
  handshakeTimeMs: number;
}

async function runSslMonitor(check: WireCheck, context: ExecutorContext): Promise<TryResult> {
  const startedAt = new Date();
  const parsed = SslCheckCreate.safeParse(runFields(check));
  if (!parsed.success) return fault(startedAt, `this SSL monitor's payload does not parse: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const spec = parsed.data;
  const lookup = variableLookup(context.variables);
  const config = spec.request.sslConfig;
  const hostname = interpolate(config.hostname, lookup);
  const name = config.serverName ? interpolate(config.serverName, lookup) : hostname;
  const maxResponseTime = spec.maxResponseTime ?? config.handshakeTimeoutMs;
  const degradedResponseTime = spec.degradedResponseTime ?? maxResponseTime;
  const request = { hostname, port: config.port, serverName: name, ipFamily: config.ipFamily, skipChainValidation: config.skipChainValidation };

  const handshake = await shake({ hostname, port: config.port, name, family: config.ipFamily === 'IPv6' ? 6 : 4, timeoutMs: config.handshakeTimeoutMs, context });
  const peer = handshake.socket === null ? null : peerCertificate(handshake.socket);
  if (handshake.socket === null || peer === null) {
    handshake.socket?.destroy();
    const error = handshake.error ?? { kind: 'NETWORK_ERROR' as const, message: `${hostname}:${config.port} sent no certificate` };
    return {
      ...envelope(startedAt, handshake.handshakeTimeMs),
      hasFailures: true,
      isDegraded: false,
      overMaxResponseTime: error.kind === 'TIMEOUT',
      failure: { kind: error.kind, message: context.redact(error.message) },
      sslCheckResult: { request, requestError: context.redact(error.message), failureCategory: error.kind, response: null, assertions: [] },
    };
  }
  const certificate = certificateFacts(peer.certificate, peer.issuerFingerprint, new Date());
  const connection = connectionFacts(handshake.socket, peer.certificate, name, handshake.ocspStapled);
  handshake.socket.destroy();
  const findings = baselineFindings(config.securityBaseline, certificate, connection);
  const assertions = await evaluateSslAssertions(context, spec.request.assertions, { certificate, connection, responseTime: handshake.handshakeTimeMs });
  const rule = sslVerdict({ certificate, connection, findings, assertions, skipChainValidation: config.skipChainValidation, alertDaysBeforeExpiry: config.alertDaysBeforeExpiry, name });
  const over = handshake.handshakeTimeMs > maxResponseTime;
  const failure = over
    ? { kind: 'TIMEOUT' as const, message: `the handshake took ${handshake.handshakeTimeMs} ms, over maxResponseTime (${maxResponseTime} ms)` }
    : invert(rule, spec.shouldFail);
  const degraded = findings.some((finding) => finding.severity === 'degrade') || handshake.handshakeTimeMs > degradedResponseTime;
  return {
    ...envelope(startedAt, handshake.handshakeTimeMs),
    hasFailures: failure !== null,
    isDegraded: degraded,
    overMaxResponseTime: over,
    failure,
    sslCheckResult: {
      request,
      tlsVersion: connection.tlsVersion,
      cipherSuite: connection.cipherSuite,
      daysUntilExpiry: certificate.daysUntilExpiry,
      handshakeTimeMs: handshake.handshakeTimeMs,
      chainTrusted: connection.chainTrusted,
      hostnameVerified: connection.hostnameVerified,
      baselineVerdict: findings.some((finding) => finding.severity === 'fail') ? 'fail' : findings.length > 0 ? 'degrade' : 'pass',
      failureCategory: failure?.kind ?? null,
      requestError: null,
      assertions,
      response: { ...connection, handshakeTimeMs: handshake.handshakeTimeMs, certificate, securityBaseline: { findings } },
    },
  };
}

export interface SslVerdictInput {
  certificate: CertificateFacts;
  connection: ConnectionFacts;
  findings: readonly BaselineFinding[];
  assertions: readonly AssertionOutcome[];
  skipChainValidation: boolean;
  alertDaysBeforeExpiry: number;
  name: string;
}

/** The first rule the certificate breaks, in the order a user fixes them; null when it passes. */
export function sslVerdict(input: SslVerdictInput): TryResult['failure'] {
  const { certificate, connection } = input;
  const now = Date.now();
  if (Date.parse(certificate.validTo) < now) return { kind: 'STATUS', message: `the certificate expired on ${certificate.validTo}` };
  if (Date.parse(certificate.validFrom) > now) return { kind: 'STATUS', message: `the certificate is not valid before ${certificate.validFrom}` };
  if (!connection.chainTrusted && !input.skipChainValidation) {
    return { kind: 'STATUS', message: `the certificate chain is not trusted (${connection.chainTrustReason}); set sslConfig.skipChainValidation to check a self-signed or private-CA certificate` };
  }
  if (!connection.hostnameVerified) return { kind: 'STATUS', message: `the certificate does not match ${input.name} (it names ${certificate.sans.join(', ') || certificate.subjectCN})` };
  if (certificate.daysUntilExpiry <= input.alertDaysBeforeExpiry) {
    return { kind: 'STATUS', message: `the certificate expires in ${certificate.daysUntilExpiry} days (${certificate.validTo}), within alertDaysBeforeExpiry (${input.alertDaysBeforeExpiry})` };
  }
  const broken = input.findings.find((finding) => finding.severity === 'fail');
  if (broken !== undefined) return { kind: 'STATUS', message: `security baseline ${broken.rule}: ${broken.message}` };
  const failed = input.assertions.find((assertion) => !assertion.passed);
  if (failed !== undefined) {
    const detail = failed.error ?? `${failed.source}${failed.property ? ` ${failed.property}` : ''} ${failed.comparison} ${JSON.stringify(failed.target)}: actual ${failed.actual === undefined ? '(absent)' : JSON.stringify(failed.actual)}`;
    return { kind: 'ASSERTION', message: `assertion failed: ${detail}` };
  }
  return null;
}

/** `shouldFail` expects a broken certificate: the verdict turns over. */
function invert(failure: TryResult['failure'], shouldFail: boolean): TryResult['failure'] {
  if (!shouldFail) return failure;
  return failure === null ? { kind: 'STATUS', message: 'shouldFail is set, so a failing certificate was expected, but it passed every rule' } : null;
}

/**
 * CERTIFICATE and CONNECTION assertions compare facts here (plain values, no patterns); the others
 * go through the API assertions' evaluator, the response being the facts as one JSON document.
 */
async function evaluateSslAssertions(
  context: ExecutorContext,
  assertions: readonly SslAssertion[],
  facts: { certificate: CertificateFacts; connection: ConnectionFacts; responseTime: number },
): Promise<AssertionOutcome[]> {
  const outcomes: AssertionOutcome[] = new Array(assertions.length);
  const delegated: Array<{ index: number; input: AssertionInput }> = [];
  assertions.forEach((assertion, index) => {
    const { source, comparison, property, target, regex } = assertion;
    if (source === 'CERTIFICATE' || source === 'CONNECTION') {
      outcomes[index] = compareFact(assertion, (source === 'CERTIFICATE' ? facts.certificate : facts.connection) as unknown as Record<string, unknown>);
    } else if (source === 'RESPONSE_TIME') delegated.push({ index, input: { source: 'RESPONSE_TIME', comparison, target } });
    else if (source === 'JSON_RESPONSE') delegated.push({ index, input: { source: 'JSON_BODY', label: source, comparison, property, target, regex } });
    else delegated.push({ index, input: { source: 'TEXT_BODY', label: source, comparison, target, regex: property !== '' ? property : regex } });
  });
  if (delegated.length > 0) {
    const body = JSON.stringify({ certificate: facts.certificate, connection: facts.connection });
    const evaluated = await context.assertions.evaluate(delegated.map((item) => item.input), { status: 0, headers: {}, body, responseTime: facts.responseTime });
    delegated.forEach(({ index }, position) => {
      const { source, property } = assertions[index]!;
      outcomes[index] = { ...evaluated[position]!, source, property };
    });
  }
  return outcomes;
}

function compareFact(assertion: SslAssertion, facts: Record<string, unknown>): AssertionOutcome {
  const { source, comparison, property, target } = assertion;
  const outcome = (passed: boolean, actual: unknown, error: string | null = null): AssertionOutcome => ({ source, property, comparison, target, regex: null, actual, passed, error });
  const grammar = sslPropertyGrammar(source)!;
  if (!Object.hasOwn(grammar, property)) return outcome(false, undefined, `${source} has no property ${JSON.stringify(property)} (known: ${Object.keys(grammar).join(', ')})`);
  if (!grammar[property]!.comparisons.includes(comparison)) return outcome(false, undefined, `${source} ${property} cannot be compared with ${comparison}`);
  const actual = facts[property];
  const rank = property === 'tlsVersion' ? (value: unknown) => tlsVersionRank(typeof value === 'string' ? value : null) : (value: unknown) => (value === null || value === '' ? undefined : Number(value));
  switch (comparison) {
    case 'EQUALS':
      return outcome(same(actual, target), actual);
    case 'NOT_EQUALS':
      return outcome(!same(actual, target), actual);
    case 'GREATER_THAN':
    case 'LESS_THAN': {
      const [a, b] = [rank(actual), rank(target)];
      const holds = a !== undefined && b !== undefined && !Number.isNaN(a) && !Number.isNaN(b) && (comparison === 'GREATER_THAN' ? a > b : a < b);
      return outcome(holds, actual);
    }
    case 'CONTAINS':
    case 'NOT_CONTAINS': {
      const found = Array.isArray(actual) ? actual.some((item) => String(item).toLowerCase() === target.toLowerCase()) : typeof actual === 'string' && actual.includes(target);
      return outcome(comparison === 'CONTAINS' ? found : !found, actual);
    }
    default:
      return outcome(false, actual, `${source} ${property} cannot be compared with ${comparison}`);
  }
}

function same(actual: unknown, target: string): boolean {
  if (typeof actual === 'number') return target.trim() !== '' && Number(target) === actual;
  if (typeof actual === 'boolean') return String(actual) === target.trim().toLowerCase();
  return actual === target;
}

interface ShakeOptions {
  hostname: string;
  port: number;
  name: string;
  family: 4 | 6;
  timeoutMs: number;
  context: ExecutorContext;
}

/** One handshake; resolves once with the open socket (the caller destroys it) or why there is none. */
function shake(options: ShakeOptions): Promise<Handshake> {
  const { hostname, port, context } = options;
  const policy = context.options.networkPolicy;
  const target = `${net.isIPv6(hostname) ? `[${hostname}]` : hostname}:${port}`;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((settle) => {
    let done = false;
    let stapled = false;
    // Node dials a literal IP without a lookup, so the guarded lookup never sees it.
    const refusal = policy.refusal(hostname);
    if (refusal) return settle({ socket: null, ocspStapled: false, error: { kind: 'NETWORK_ERROR', message: refusal.message }, handshakeTimeMs: 0 });
    // tls.connect passes these socket options on (requestOCSP to the TLSSocket); its typings lack them.
    const connectOptions: tls.ConnectionOptions & Pick<net.TcpNetConnectOpts, 'family' | 'lookup' | 'autoSelectFamily'> & { requestOCSP: boolean } = {
      host: hostname,
      port,
      family: options.family,
      lookup: guardLookup(policy),
      autoSelectFamily: false,
      // SNI carries names only (RFC 6066 §3).
      ...(net.isIP(options.name) === 0 ? { servername: options.name } : {}),
      rejectUnauthorized: false,
      checkServerIdentity: () => undefined,
      requestOCSP: true,
    };
    const socket = tls.connect(connectOptions);
    const finish = (outcome: Omit<Handshake, 'handshakeTimeMs' | 'ocspStapled'>) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      context.signal.removeEventListener('abort', abort);
      if (outcome.socket === null) socket.destroy();
      settle({ ...outcome, ocspStapled: stapled, handshakeTimeMs: elapsed() });
    };
    const deadline = setTimeout(() => finish({ socket: null, error: { kind: 'TIMEOUT', message: `no TLS handshake with ${target} within handshakeTimeout (${options.timeoutMs} ms)` } }), options.timeoutMs);
    const abort = () => finish({ socket: null, error: { kind: 'ABORTED', message: 'the run was cancelled before the handshake finished' } });
    if (context.signal.aborted) return abort();
    context.signal.addEventListener('abort', abort, { once: true });
    // Node reports "no stapled response" as null.
    socket.on('OCSPResponse', (response: Buffer | null) => {
      stapled = response !== null && response.length > 0;
    });
    socket.once('secureConnect', () => finish({ socket, error: null }));
    socket.on('error', (error: Error) => {
      const refused = (error as { code?: string }).code === 'ERR_VIGIL_NETWORK_POLICY';
      finish({ socket: null, error: { kind: 'NETWORK_ERROR', message: refused ? error.message : `TLS handshake with ${target} failed: ${error.message}` } });
    });
  });
}
