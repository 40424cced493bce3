import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { createFetch } from 'ofetch';
import { AttemptSignal } from './attempt-signal.js';
import { Deadlines } from './deadlines.js';
import { ApiError, NetworkError, TimeoutError, errorForStatus, normaliseErrorBody, type ErrorBody } from './errors.js';
import { DEFAULT_PACING, Pacer, type PacingOptions } from './pacer.js';
import { DEFAULT_RETRY, parseRetryAfter, realClock, runWithRetries, type AttemptFailure, type AttemptResult, type RetryOptions } from './retry.js';

const require = createRequire(import.meta.url);
/** The client's version, for the `vigil/<version>` user agent. */
export const CLIENT_VERSION: string = (require('../package.json') as { version: string }).version;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryScalar = string | number | boolean;
export type QueryValue = QueryScalar | readonly QueryScalar[] | null | undefined;

/** Connection settings shared by every call of one client. */
export interface TransportOptions {
  /** Service root, e.g. `http://127.0.0.1:4000` (a trailing slash is fine). */
  baseUrl: string;
  apiKey: string;
  /** Sent as `x-service-account`; absent means the key's own account. */
  accountId?: string | undefined;
  /** Defaults to `vigil/<client version>`. */
  userAgent?: string | undefined;
  /** Per attempt, covering the response body too. Default 30 000. */
  timeoutMs?: number | undefined;
  /** Request budget to stay under; `false` for a service without a rate limit (the embedded one). Default 600/60. */
  pacing?: PacingOptions | false | undefined;
  /**
   * Budget of `/v1/analytics/*`, which the service limits separately. Default 30/60, or `false` when
   * `pacing` is `false`.
   */
  analyticsPacing?: PacingOptions | false | undefined;
  /** Requests in flight at once. Default 10. */
  concurrency?: number | undefined;
  retry?: Partial<RetryOptions> | undefined;
  /** Called after every attempt, retried ones included: for progress output, logs and tests. */
  onAttempt?: ((attempt: AttemptInfo) => void) | undefined;
}

/** What `onAttempt` reports about one HTTP exchange. */
export interface AttemptInfo {
  method: HttpMethod;
  path: string;
  /** Endpoint id from `ENDPOINTS`, when the call went through one. */
  endpoint: string | undefined;
  /** 1-based; > 1 for a retry. */
  attempt: number;
  /** Undefined when no response arrived. */
  status: number | undefined;
  durationMs: number;
  error: ApiError | undefined;
}

/** One call as the transport sends it. `path` has its parameters substituted already. */
export interface HttpRequest {
  method: HttpMethod;
  path: string;
  query?: Readonly<Record<string, QueryValue>> | undefined;
  body?: unknown;
  /** For POST: the key the service deduplicates on; generated when absent. */
  idempotencyKey?: string | undefined;
  /** Endpoint id (from `ENDPOINTS`) carried into errors. */
  endpoint?: string | undefined;
}

export interface HttpResponse {
  status: number;
  statusText: string;
  headers: Headers;
  /** The JSON body, parsed; `undefined` for an empty body. Non-JSON text stays a string. */
  body: unknown;
  /** Attempts the call took. */
  attempts: number;
  /** The `Idempotency-Key` that was sent (POST only). */
  idempotencyKey: string | undefined;
}

/** A fresh `Idempotency-Key`; journal it before a create so a recovery can repeat the create safely. */
export function newIdempotencyKey(): string {
  return randomUUID();
}

/** Arrays become comma-separated values, as the service's list parameters (`metrics`, `filterByStatus`) expect. */
export function encodeQuery(query: Readonly<Record<string, QueryValue>> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.append(name, Array.isArray(value) ? value.map(String).join(',') : String(value));
  }
  const encoded = params.toString();
  return encoded.length > 0 ? `?${encoded}` : '';
}

// Node and undici name a lost connection in several ways; all mean "the request may have been acted on".
const CONNECTION_LOST_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ERR_STREAM_PREMATURE_CLOSE']);
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_INVALID_URL']);

function errorChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current !== undefined && current !== null && chain.length < 8; current = (current as { cause?: unknown }).cause) {
    chain.push(current);
    if (typeof current !== 'object') break;
  }
  return chain;
}

/** Classifies a thrown fetch error: timeout, lost connection, or unreachable service; with Node's code. */
export function classifyNetworkError(error: unknown): { kind: 'timeout' | 'connection-lost' | 'unreachable'; code: string | undefined; message: string } {
  const chain = errorChain(error);
  const named = (name: string) => chain.some((link) => typeof link === 'object' && link !== null && (link as { name?: unknown }).name === name);
  const code = chain.map((link) => (link as { code?: unknown } | null)?.code).find((value): value is string => typeof value === 'string');
  const innermost = chain.filter((link): link is Error => link instanceof Error).at(-1);
  const message = innermost?.message ?? String(error);
  if (named('TimeoutError')) return { kind: 'timeout', code, message };
  if (code !== undefined && UNREACHABLE_CODES.has(code)) return { kind: 'unreachable', code, message };
  if (code !== undefined && CONNECTION_LOST_CODES.has(code)) return { kind: 'connection-lost', code, message };
  // "fetch failed", "terminated", "socket hang up" without a code: the socket died under us.
  return { kind: 'connection-lost', code, message };
}

/**
 * ofetch with a narrower hand-off to `fetch`. ofetch passes fetch its whole options object: its own
 * keys, ours, and two it deletes first, which leaves the object in V8's slow dictionary mode, and
 * undici then reads every `RequestInit` member from it. A fresh init with just the members the
 * transport sets costs ~7 µs less per call. A new `fetch` option must be added here to reach fetch.
 * `globalThis.fetch` is read per call, so a test or an instrumented runtime can still replace it.
 */
const ofetchRaw = createFetch({
  fetch: (input, init) =>
    globalThis.fetch(input, { method: init?.method, headers: init?.headers, body: init?.body, signal: init?.signal }),
}).raw;

function abortOnTimeout(signal: AttemptSignal): void {
  signal.abort(new DOMException('The operation timed out', 'TimeoutError'));
}

function parseBody(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Sends requests to the service: authentication headers, pacing, timeouts, retries and error mapping.
 * It knows nothing about endpoints; `callEndpoint` adds types and response validation on top.
 */
export class Transport {
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  /** `headers` as a `Headers`, which ofetch copies in half the time it takes to build one from an object. */
  private readonly sharedHeaders: Headers;
  private readonly timeoutMs: number;
  private readonly retry: RetryOptions;
  private readonly pacer: Pacer;
  private readonly deadlines: Deadlines;

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.headers = {
      authorization: `Bearer ${options.apiKey}`,
      accept: 'application/json',
      'user-agent': options.userAgent ?? `vigil/${CLIENT_VERSION}`,
      ...(options.accountId ? { 'x-service-account': options.accountId } : {}),
    };
    this.sharedHeaders = new Headers(this.headers);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.deadlines = new Deadlines(this.timeoutMs, abortOnTimeout);
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.pacer = new Pacer({
      pacing: options.pacing ?? DEFAULT_PACING,
      analyticsPacing: options.analyticsPacing,
      concurrency: options.concurrency ?? 10,
    });
  }

  /** Sends one call, retrying as `RetryOptions` allow; resolves with a 2xx/3xx response or throws an `ApiError`. */
  // Not `async`: returning another promise from an async function costs extra microtask turns per call.
  request(request: HttpRequest): Promise<HttpResponse> {
    const idempotencyKey = request.method === 'POST' ? (request.idempotencyKey ?? newIdempotencyKey()) : undefined;
    // The first attempt is made here, outside the retry loop, which a call answered at once (nearly
    // every call) then never enters.
    const startedAt = realClock.now();
    return this.pacedAttempt(request, idempotencyKey, 1).then((first) =>
      first.ok ? first.value : this.retried(request, idempotencyKey, { result: first, startedAt }),
    );
  }

  private retried(
    request: HttpRequest,
    idempotencyKey: string | undefined,
    first: { result: AttemptResult<HttpResponse>; startedAt: number },
  ): Promise<HttpResponse> {
    return runWithRetries({
      retry: this.retry,
      request: { method: request.method, idempotencyKey },
      first,
      attempt: (attemptNumber) => this.pacedAttempt(request, idempotencyKey, attemptNumber),
    });
  }

  private pacedAttempt(request: HttpRequest, idempotencyKey: string | undefined, attempt: number): Promise<AttemptResult<HttpResponse>> {
    return this.pacer.run(request.path, (observe) => this.attempt(request, idempotencyKey, attempt, observe));
  }

  private attempt(
    request: HttpRequest,
    idempotencyKey: string | undefined,
    attempt: number,
    observe: (headers: Headers) => void,
  ): Promise<AttemptResult<HttpResponse>> {
    const onAttempt = this.options.onAttempt;
    if (onAttempt === undefined) return this.exchange(request, idempotencyKey, attempt, observe);
    return this.reportedAttempt(onAttempt, request, idempotencyKey, attempt, observe);
  }

  private async reportedAttempt(
    onAttempt: (attempt: AttemptInfo) => void,
    request: HttpRequest,
    idempotencyKey: string | undefined,
    attempt: number,
    observe: (headers: Headers) => void,
  ): Promise<AttemptResult<HttpResponse>> {
    const startedAt = performance.now();
    const result = await this.exchange(request, idempotencyKey, attempt, observe);
    onAttempt({
      method: request.method,
      path: request.path,
      endpoint: request.endpoint,
      attempt,
      status: result.ok ? result.value.status : result.error.status,
      durationMs: performance.now() - startedAt,
      error: result.ok ? undefined : result.error,
    });
    return result;
  }

  private async exchange(
    request: HttpRequest,
    idempotencyKey: string | undefined,
    attempt: number,
    observe: (headers: Headers) => void,
  ): Promise<AttemptResult<HttpResponse>> {
    // ofetch copies the headers into its own `Headers`, so the shared object is never written to.
    const headers = idempotencyKey === undefined ? this.sharedHeaders : { ...this.headers, 'idempotency-key': idempotencyKey };
    let response: Awaited<ReturnType<typeof ofetchRaw<string, 'text'>>>;
    // Our own abort timer (rather than ofetch's `timeout`, which stops at the headers) also bounds
    // reading the body, where a connection that stalls mid-response would otherwise hang the call.
    // Not AbortSignal.timeout: its timer cannot be cleared, so every call would leave one pending for
    // the full timeout, thousands of them during a large apply. Not an AbortController either: see
    // AttemptSignal for what one costs per call. Nor a timer per attempt: see Deadlines.
    const signal = new AttemptSignal();
    let deadline: number | undefined;
    try {
      const sent = ofetchRaw(`${this.baseUrl}${request.path}${encodeQuery(request.query)}`, {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : (request.body as Record<string, unknown>),
        responseType: 'text',
        retry: false,
        ignoreResponseError: true,
        signal: signal.asAbortSignal(),
      });
      // On a kept-alive connection undici has written the request within that call, so the deadline
      // is set while the service works on it instead of delaying the send.
      deadline = this.deadlines.start(signal);
      response = await sent;
    } catch (thrown) {
      const base = { method: request.method, path: request.path, endpoint: request.endpoint, attempts: attempt };
      const cause = (thrown as { cause?: unknown }).cause ?? thrown;
      const network = classifyNetworkError(thrown);
      const data: ErrorBody = { ...normaliseErrorBody(undefined), message: network.message };
      if (network.kind === 'timeout') {
        return { ok: false, failure: { kind: 'timeout' }, error: new TimeoutError({ ...base, status: undefined, data, cause, timeoutMs: this.timeoutMs }) };
      }
      const failure: AttemptFailure = { kind: network.kind };
      return { ok: false, failure, error: new NetworkError({ ...base, status: undefined, data, cause, code: network.code }) };
    } finally {
      if (deadline !== undefined) this.deadlines.settle(deadline);
    }
    observe(response.headers);
    const text = response._data ?? '';
    if (response.status >= 400) {
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
      const error = errorForStatus({
        method: request.method,
        path: request.path,
        endpoint: request.endpoint,
        attempts: attempt,
        status: response.status,
        statusText: response.statusText,
        data: normaliseErrorBody(text),
        retryAfterMs,
      });
      return { ok: false, failure: { kind: 'status', status: response.status, retryAfterMs }, error };
    }
    return {
      ok: true,
      value: {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
        body: parseBody(text),
        attempts: attempt,
        idempotencyKey,
      },
    };
  }
}
