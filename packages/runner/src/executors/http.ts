/**
 * One HTTP exchange for the API executor, on a fresh undici Agent (so DNS and TCP/TLS happen in
 * every run and their phases are real), with manual redirects (each hop is visible and counted),
 * a read cap on the body (a target that streams forever cannot grow memory) and phase timings taken
 * from the connector and the lookup it calls. Errors are returned, never thrown.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { guardLookup, type NetworkPolicy } from '../network-policy.js';
import type { TimingPhases, Timings } from '../types.js';

export interface HttpRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | undefined;
  followRedirects: boolean;
  skipSSL: boolean;
  ipFamily: 4 | 6;
  /** Ends the exchange (maxResponseTime, session timeout). */
  signal: AbortSignal;
  /** Body bytes read at most; the rest is not read. */
  maxReadBytes: number;
  /** Called for each hop, for the job log. */
  log(message: string): void;
  /** Addresses never dialled (checked for each hop after DNS, and for literal IPs); none when absent. */
  networkPolicy?: NetworkPolicy;
}

export interface HttpResponse {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: string;
  /** True when the read cap stopped the read before the body ended. */
  truncated: boolean;
  /** The URL of the last hop. */
  url: URL;
}

export interface HttpExchange {
  response: HttpResponse | null;
  /** Why no (complete) response arrived. */
  error: { message: string; aborted: boolean } | null;
  timings: Timings;
  timingPhases: TimingPhases;
  /** Wall time of the whole exchange, all hops, in milliseconds. */
  elapsed: number;
  /** When the TLS certificate of the last https hop expires (ISO 8601); null over plain http. */
  certificateExpiresAt: string | null;
}

export const MAX_REDIRECTS = 10;

/** Moments of one hop, in performance.now() milliseconds; undefined = did not happen. */
interface HopMarks {
  start: number;
  connectStart?: number;
  lookupStart?: number;
  lookupEnd?: number;
  connectEnd?: number;
  headers?: number;
  end?: number;
  /** The peer certificate's `valid_to`, for SSL expiry alerts and check statuses. */
  certificateValidTo?: string;
}

export async function exchange(request: HttpRequest): Promise<HttpExchange> {
  const started = performance.now();
  const hops: HopMarks[] = [];
  let hop: HopMarks = { start: started };
  const policy = request.networkPolicy !== undefined && request.networkPolicy.rules.length > 0 ? request.networkPolicy : undefined;
  const resolve: LookupFunction = policy ? guardLookup(policy) : dns.lookup;
  const timedLookup: LookupFunction = (hostname, options, callback) => {
    hop.lookupStart ??= performance.now();
    resolve(hostname, options, (...args: Parameters<typeof callback>) => {
      hop.lookupEnd = performance.now();
      (callback as (...values: unknown[]) => void)(...args);
    });
  };
  const connectOptions: buildConnector.BuildOptions & { autoSelectFamily: boolean } = {
    rejectUnauthorized: !request.skipSSL,
    family: request.ipFamily,
    // The check names the family; Happy Eyeballs would pick one itself.
    autoSelectFamily: false,
    lookup: timedLookup,
    // maxResponseTime ends a slow connect (through the signal); undici's own 10 s must not come first.
    timeout: 0,
    keepAlive: false,
  };
  const connector = buildConnector(connectOptions);
  const agent = new Agent({
    connect: (options, callback) => {
      hop.connectStart = performance.now();
      // Node dials a literal IP without a lookup, so the guarded lookup never sees it.
      const refusal = policy?.refusal(options.hostname);
      if (refusal) {
        hop.connectEnd = performance.now();
        callback(refusal, null);
        return;
      }
      connector(options, (...args) => {
        hop.connectEnd = performance.now();
        const socket = args[1] as { getPeerCertificate?: () => { valid_to?: string } } | null;
        const validTo = socket?.getPeerCertificate?.().valid_to;
        if (validTo) hop.certificateValidTo = validTo;
        callback(...args);
      });
    },
    // A run is one exchange; nothing is pipelined and nothing outlives it.
    pipelining: 1,
    connections: 1,
  });

  let response: HttpResponse | null = null;
  let error: HttpExchange['error'] = null;
  try {
    let url = request.url;
    let method = request.method;
    let body = request.body;
    let headers = request.headers;
    for (let redirects = 0; ; redirects += 1) {
      hops.push(hop);
      const answer = await agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: method as 'GET',
        headers,
        body,
        signal: request.signal,
        // Our own timer (maxResponseTime) ends the exchange; undici's 300 s defaults must not.
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      hop.headers = performance.now();
      const location = answer.headers.location;
      const isRedirect = answer.statusCode >= 300 && answer.statusCode < 400 && typeof location === 'string';
      if (request.followRedirects && isRedirect) {
        await answer.body.dump();
        hop.end = performance.now();
        if (redirects >= MAX_REDIRECTS) {
          error = { message: `too many redirects: stopped after ${MAX_REDIRECTS} hops (last: ${answer.statusCode} to ${location})`, aborted: false };
          break;
        }
        const next = new URL(location, url);
        request.log(`${answer.statusCode} redirect to ${next.href}`);
        // As browsers do: 303 always, and 301/302 after a POST, continue as a GET without a body.
        if (answer.statusCode === 303 || ((answer.statusCode === 301 || answer.statusCode === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
          headers = withoutBodyHeaders(headers);
        }
        if (next.origin !== url.origin) headers = withoutCredentials(headers);
        url = next;
        hop = { start: performance.now() };
        continue;
      }
      const read = await readCapped(answer.body, request.maxReadBytes);
      hop.end = performance.now();
      response = {
        status: answer.statusCode,
        statusText: statusText(answer.statusCode, answer),
        headers: flattenHeaders(answer.headers),
        body: read.text,
        truncated: read.truncated,
        url,
      };
      break;
    }
  } catch (caught) {
    hop.end ??= performance.now();
    error = { message: describeNetworkError(caught, request.signal), aborted: request.signal.aborted };
  }
  // Measured before the agent is torn down: closing our own socket is not the target's time.
  const finished = performance.now();
  await agent.destroy(AGENT_DONE).catch(() => undefined);
  const validTo = hops.at(-1)?.certificateValidTo;
  const certificateExpiresAt = validTo && Number.isFinite(Date.parse(validTo)) ? new Date(validTo).toISOString() : null;
  return { response, error, ...measure(started, hops, finished), elapsed: finished - started, certificateExpiresAt };
}

/**
 * What tearing down a finished run's agent fails (nothing: its one request is over). One error for
 * every run, because undici would otherwise build a fresh ClientDestroyedError with a stack trace
 * per run: at 167 runs a second that was 3 % of the service's time.
 */
const AGENT_DONE = new Error('the run is over');

/** Reads up to `cap` bytes as UTF-8 text, then stops reading (and drops the connection). */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }, cap: number): Promise<{ text: string; truncated: boolean }> {
  const decoder = new TextDecoder();
  let text = '';
  let read = 0;
  for await (const chunk of body) {
    const room = cap - read;
    if (chunk.length > room) {
      text += decoder.decode(chunk.subarray(0, room), { stream: true });
      body.destroy();
      return { text: text + decoder.decode(), truncated: true };
    }
    read += chunk.length;
    text += decoder.decode(chunk, { stream: true });
  }
  return { text: text + decoder.decode(), truncated: false };
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function statusText(status: number, answer: { statusText?: string }): string {
  return answer.statusText ?? STATUS_TEXTS[status] ?? '';
}

const STATUS_TEXTS: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 301: 'Moved Permanently', 302: 'Found',
  303: 'See Other', 304: 'Not Modified', 307: 'Temporary Redirect', 308: 'Permanent Redirect',
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  409: 'Conflict', 422: 'Unprocessable Entity', 429: 'Too Many Requests', 500: 'Internal Server Error',
  502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

function withoutBodyHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !/^content-(type|length)$/i.test(name)));
}

/** Credentials are for the origin they were written for, not for wherever it redirects. */
function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !/^(authorization|cookie)$/i.test(name)));
}

function describeNetworkError(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'aborted';
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const code = (error as { code?: string }).code;
  const message = error.message || code || error.name;
  return cause instanceof Error && cause.message !== message ? `${message} (${cause.message})` : message;
}

function measure(started: number, hops: readonly HopMarks[], finished: number): { timings: Timings; timingPhases: TimingPhases } {
  const phases = { wait: 0, dns: 0, tcp: 0, firstByte: 0, download: 0 };
  for (const hop of hops) {
    const sent = hop.connectEnd ?? hop.start;
    if (hop.connectStart !== undefined) {
      phases.wait += hop.connectStart - hop.start;
      if (hop.lookupStart !== undefined && hop.lookupEnd !== undefined) phases.dns += hop.lookupEnd - hop.lookupStart;
      if (hop.connectEnd !== undefined) phases.tcp += hop.connectEnd - (hop.lookupEnd ?? hop.connectStart);
    }
    if (hop.headers !== undefined) phases.firstByte += hop.headers - sent;
    if (hop.headers !== undefined && hop.end !== undefined) phases.download += hop.end - hop.headers;
  }
  const last = hops.at(-1);
  const offset = (moment: number | undefined) => (moment === undefined ? 0 : round(moment - started));
  return {
    timings: {
      socket: offset(last?.connectStart),
      lookup: offset(last?.lookupEnd),
      connect: offset(last?.connectEnd),
      response: offset(last?.headers),
      end: offset(last?.end ?? finished),
    },
    timingPhases: {
      wait: round(phases.wait),
      dns: round(phases.dns),
      tcp: round(phases.tcp),
      firstByte: round(phases.firstByte),
      download: round(phases.download),
      total: round(finished - started),
    },
  };
}

function round(milliseconds: number): number {
  return Math.max(0, Math.round(milliseconds * 100) / 100);
}
