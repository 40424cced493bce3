/**
 * The API executor: one try of an API check. Order of a try (Checkly's): interpolate `{{KEY}}` →
 * setup script (may change the request and add variables) → interpolate again → HTTP exchange
 * (timed, aborted at maxResponseTime) → teardown script (may change the response) → assertions.
 * The pass/fail rule (status, shouldFail, assertions, timeouts) is `apiVerdict`, written down in
 * docs/testing.md.
 */
import { ApiCheckRequest, DEGRADED_RESPONSE_TIME_DEFAULT, MAX_RESPONSE_TIME_DEFAULT } from '@vigil/schema';
import type {
  ApiRunResult,
  AssertionOutcome,
  Executor,
  ExecutorContext,
  FailureKind,
  JobLog,
  ScriptRequest,
  ScriptResponse,
  TimingPhases,
  Timings,
  TryResult,
  WireCheck,
} from '../types.js';
import { REDACTED, interpolate, redactDeep, secretRedactor, variableLookup } from '../variables.js';
import { exchange, type HttpExchange } from './http.js';

/** Body bytes read for assertions at most; what is kept in the result is `maxBodyBytes`. */
export const MAX_READ_BYTES = 5 * 1024 * 1024;

export const apiExecutor: Executor = { checkType: 'API', run: runWithBasicAuthRedacted };

/**
 * Basic auth credentials are secrets whether or not they came from a secret variable (plans and
 * state keep only the password's hash), and a target may echo them back base64-encoded, where plain
 * redaction cannot see them: the password and the encoded pair are redacted from the whole try.
 */
async function runWithBasicAuthRedacted(check: WireCheck, context: ExecutorContext): Promise<TryResult> {
  const auth = (check.request as { basicAuth?: { username?: unknown; password?: unknown } } | undefined)?.basicAuth;
  if (typeof auth?.username !== 'string' || auth.username === '' || typeof auth.password !== 'string' || auth.password === '') {
    return runApiCheck(check, context);
  }
  const lookup = variableLookup(context.variables);
  const username = interpolate(auth.username, lookup);
  const password = interpolate(auth.password, lookup);
  const credentials = secretRedactor([
    { key: 'password', value: password, secret: true },
    { key: 'pair', value: Buffer.from(`${username}:${password}`).toString('base64'), secret: true },
  ]);
  const redact: ExecutorContext['redact'] = (text, options) => credentials(context.redact(text, options), options);
  return redactDeep(await runApiCheck(check, { ...context, redact }), (text) => credentials(text));
}

const ZERO_TIMINGS: Timings = { socket: 0, lookup: 0, connect: 0, response: 0, end: 0 };
const ZERO_PHASES: TimingPhases = { wait: 0, dns: 0, tcp: 0, firstByte: 0, download: 0, total: 0 };

async function runApiCheck(check: WireCheck, context: ExecutorContext): Promise<TryResult> {
  const startedAt = new Date();
  const jobLog: JobLog = { setup: [], request: [], teardown: [] };
  const log = (line: string, level: 'INFO' | 'ERROR' = 'INFO') => jobLog.request.push({ time: Date.now(), level, msg: line });

  const parsed = ApiCheckRequest.safeParse(check.request);
  if (!parsed.success) {
    const message = `the check's request is not a valid API check request: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'request'}: ${issue.message}`).join('; ')}`;
    return finish({ redact: context.redact, startedAt, failure: { kind: 'RUNNER', message }, hasErrors: true, jobLog, request: emptyRequest(check) });
  }
  const spec = parsed.data;
  const maxResponseTime = numberOr(check.maxResponseTime, MAX_RESPONSE_TIME_DEFAULT);
  const degradedResponseTime = numberOr(check.degradedResponseTime, DEGRADED_RESPONSE_TIME_DEFAULT);
  const shouldFail = check.shouldFail === true;
  const variables = variableLookup(context.variables);
  const fill = (text: string) => interpolate(text, variables);

  let request: ScriptRequest = fillRequest(
    {
      url: spec.url,
      method: spec.method,
      headers: Object.fromEntries(spec.headers.map((header) => [header.key, header.value])),
      queryParameters: Object.fromEntries(spec.queryParameters.map((parameter) => [parameter.key, parameter.value])),
      body: spec.body,
    },
    fill,
  );
  const env = Object.fromEntries(variables);

  const setupCode = stringOr(check.localSetupScript);
  if (setupCode !== undefined) {
    const setup = await context.scripts().runSetup({ code: setupCode, request, env, signal: context.signal, ...projectRootOf(context) });
    jobLog.setup.push(...setup.logs);
    if (setup.error !== null) {
      return finish({ redact: context.redact, startedAt, failure: { kind: 'SCRIPT', message: `setup script failed: ${setup.error}` }, jobLog, request: recorded(request) });
    }
    // Variables the script set in process.env fill the placeholders that are still unresolved.
    const after = variableLookup(Object.entries(setup.env ?? {}).map(([key, value]) => ({ key, value })));
    request = fillRequest(setup.value, (text) => interpolate(text, after));
  }

  let url: URL;
  try {
    url = new URL(request.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported protocol ${url.protocol}`);
  } catch (error) {
    const unresolved = [...request.url.matchAll(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g)].map((match) => match[1]);
    const why = unresolved.length > 0 ? ` (no variable ${unresolved.join(', ')} is set)` : '';
    const message = `the request URL ${JSON.stringify(request.url)} is not a valid http(s) URL: ${(error as Error).message}${why}`;
    return finish({ redact: context.redact, startedAt, failure: { kind: 'ASSERTION', message }, jobLog, request: recorded(request) });
  }
  for (const [key, value] of Object.entries(request.queryParameters)) url.searchParams.append(key, value);

  const headers = { ...request.headers };
  const basicAuthToken = basicAuthHeader(spec.basicAuth, fill);
  if (basicAuthToken !== undefined && !hasHeader(headers, 'authorization')) headers.authorization = basicAuthToken;
  const body = requestBody(spec.bodyType, request.method, request.body, headers);

  // One controller and one timer instead of AbortSignal.timeout + AbortSignal.any: on Node 20 the
  // pair costs a quarter of a millisecond per run, more than the rest of a run's own work.
  const deadline = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    deadline.abort();
  }, maxResponseTime);
  const cancel = () => deadline.abort();
  if (context.signal.aborted) cancel();
  else context.signal.addEventListener('abort', cancel, { once: true });
  const signal = deadline.signal;
  const readLimit = Math.max(MAX_READ_BYTES, context.options.maxBodyBytes);
  log(`${request.method} ${url.href}`);
  let http: HttpExchange;
  try {
    http = await exchange({
      method: request.method,
      url,
      headers,
      body,
      followRedirects: spec.followRedirects,
      skipSSL: spec.skipSSL,
      ipFamily: spec.ipFamily === 'IPv6' ? 6 : 4,
      signal,
      maxReadBytes: readLimit,
      log,
      networkPolicy: context.options.networkPolicy,
    });
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener('abort', cancel);
  }
  const overMaxResponseTime = timedOut && !context.signal.aborted;
  const responseTime = Math.round(overMaxResponseTime ? Math.max(http.elapsed, maxResponseTime) : http.elapsed);
  const requestRecord: ApiRunResult['request'] = {
    method: request.method,
    url: url.href,
    data: body ?? '',
    headers: recordedHeaders(headers, basicAuthToken),
    params: { ...request.queryParameters },
  };

  if (http.response === null) {
    const message = overMaxResponseTime
      ? `no complete response within maxResponseTime (${maxResponseTime} ms)`
      : context.signal.aborted
        ? 'the run was cancelled before the response arrived'
        : (http.error?.message ?? 'no response');
    const kind: FailureKind = overMaxResponseTime ? 'TIMEOUT' : context.signal.aborted ? 'ABORTED' : 'NETWORK_ERROR';
    log(message, 'ERROR');
    return finish({ redact: context.redact, startedAt, failure: { kind, message }, jobLog, request: requestRecord, http, responseTime, overMaxResponseTime, requestError: message });
  }

  let response = http.response;
  log(`${response.status} ${response.statusText} in ${responseTime} ms${response.truncated ? ` (body read stopped at ${readLimit} bytes, the rest discarded)` : ''}`);
  let scriptFailure: TryResult['failure'] = null;
  const tearDownCode = stringOr(check.localTearDownScript);
  if (tearDownCode !== undefined) {
    const scriptResponse: ScriptResponse = {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
      body: response.body,
      timings: http.timings,
      timingPhases: http.timingPhases,
    };
    const tearDown = await context.scripts().runTearDown({ code: tearDownCode, request, response: scriptResponse, env, signal: context.signal, ...projectRootOf(context) });
    jobLog.teardown.push(...tearDown.logs);
    if (tearDown.error !== null) scriptFailure = { kind: 'SCRIPT', message: `teardown script failed: ${tearDown.error}` };
    else if (tearDown.response !== undefined) {
      const changed = tearDown.response;
      response = { ...response, status: changed.status, statusText: changed.statusText, headers: lowerCaseKeys(changed.headers), body: changed.body };
    }
  }
  const assertions = await context.assertions.evaluate(spec.assertions, {
    status: response.status,
    headers: response.headers,
    body: response.body,
    responseTime,
    ...(response.truncated ? { readLimitBytes: readLimit } : {}),
  });
  const failure = scriptFailure ?? apiVerdict({ status: response.status, shouldFail, assertions });
  http.response = response;

  return finish({
    redact: context.redact,
    startedAt,
    failure,
    jobLog,
    request: requestRecord,
    http,
    responseTime,
    overMaxResponseTime: false,
    isDegraded: responseTime > degradedResponseTime,
    assertions,
    maxBodyBytes: context.options.maxBodyBytes,
  });
}

/**
 * Whether a response fails the run. The status rule: without `shouldFail` a status ≥ 400 fails;
 * with it the rule is inverted, so an error status is the expected outcome and a status < 400
 * fails. Assertions apply as written either way. docs/testing.md has the table of cases.
 */
export function apiVerdict(input: { status: number; shouldFail: boolean; assertions: readonly AssertionOutcome[] }): TryResult['failure'] {
  const failed = input.assertions.find((assertion) => !assertion.passed);
  if (failed !== undefined) {
    const detail = failed.error ?? `${failed.source}${failed.property ? ` ${failed.property}` : ''} ${failed.comparison} ${JSON.stringify(failed.target)}: actual ${failed.actual === undefined ? '(absent)' : JSON.stringify(failed.actual)}`;
    return { kind: 'ASSERTION', message: `assertion failed: ${detail}` };
  }
  const errorStatus = input.status >= 400;
  if (errorStatus && !input.shouldFail) return { kind: 'STATUS', message: `the response status ${input.status} is an error status (≥ 400); set shouldFail to expect it` };
  if (!errorStatus && input.shouldFail) return { kind: 'STATUS', message: `shouldFail is set, so an error status (≥ 400) was expected, but the response status was ${input.status}` };
  return null;
}

function fillRequest(request: ScriptRequest, fill: (text: string) => string): ScriptRequest {
  const fillEntries = (entries: Record<string, string>) => Object.fromEntries(Object.entries(entries).map(([key, value]) => [fill(key), fill(value)]));
  return {
    url: fill(request.url),
    method: request.method,
    headers: fillEntries(request.headers),
    queryParameters: fillEntries(request.queryParameters),
    body: fill(request.body),
  };
}

function projectRootOf(context: ExecutorContext): { projectRoot?: string; tenant?: string } {
  return { ...(context.projectRoot === undefined ? {} : { projectRoot: context.projectRoot }), ...(context.tenant === undefined ? {} : { tenant: context.tenant }) };
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), String(value)]));
}

function requestBody(bodyType: string, method: string, body: string, headers: Record<string, string>): string | undefined {
  if (bodyType === 'NONE' || method === 'HEAD' || method === 'GET' && body === '') return undefined;
  const contentType = CONTENT_TYPES[bodyType];
  if (contentType !== undefined && !hasHeader(headers, 'content-type')) headers['content-type'] = contentType;
  return body;
}

const CONTENT_TYPES: Record<string, string> = {
  JSON: 'application/json',
  GRAPHQL: 'application/json',
  FORM: 'application/x-www-form-urlencoded',
};

function basicAuthHeader(auth: { username: string; password: string }, fill: (text: string) => string): string | undefined {
  if (auth.username === '') return undefined;
  return `Basic ${Buffer.from(`${fill(auth.username)}:${fill(auth.password)}`).toString('base64')}`;
}

/** The credentials the runner built from `basicAuth` are never recorded: base64 would hide a secret from redaction. */
function recordedHeaders(headers: Record<string, string>, basicAuthToken: string | undefined): Record<string, string> {
  if (basicAuthToken === undefined) return { ...headers };
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, value === basicAuthToken ? `Basic ${REDACTED}` : value]));
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}

function recorded(request: ScriptRequest, body: string | undefined = request.body): ApiRunResult['request'] {
  return { method: request.method, url: request.url, data: body ?? '', headers: { ...request.headers }, params: { ...request.queryParameters } };
}

function emptyRequest(check: WireCheck): ApiRunResult['request'] {
  const raw = (check.request ?? {}) as { method?: unknown; url?: unknown };
  return { method: String(raw.method ?? ''), url: String(raw.url ?? ''), data: '', headers: {}, params: {} };
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

interface Finish {
  startedAt: Date;
  redact: ExecutorContext['redact'];
  failure: TryResult['failure'];
  hasErrors?: boolean;
  jobLog: JobLog;
  request: ApiRunResult['request'];
  http?: HttpExchange;
  responseTime?: number;
  overMaxResponseTime?: boolean;
  isDegraded?: boolean;
  assertions?: AssertionOutcome[];
  requestError?: string;
  maxBodyBytes?: number;
}

function finish(input: Finish): TryResult {
  const response = input.http?.response ?? null;
  // Secrets are redacted before the body is cut, so a cut through a secret cannot keep part of it.
  const body = input.redact(response?.body ?? '', { cut: response?.truncated === true });
  const cap = input.maxBodyBytes ?? Number.POSITIVE_INFINITY;
  const overCap = Buffer.byteLength(body) > cap;
  const kept = overCap ? input.redact(cutUtf8(body, cap), { cut: true }) : body;
  const apiCheckResult: ApiRunResult = {
    assertions: input.assertions ?? [],
    request: input.request,
    response: {
      status: response?.status ?? 0,
      statusText: response?.statusText ?? '',
      body: kept,
      bodyTruncated: overCap || response?.truncated === true,
      headers: response?.headers ?? {},
      timings: input.http?.timings ?? ZERO_TIMINGS,
      timingPhases: input.http?.timingPhases ?? ZERO_PHASES,
    },
    requestError: input.requestError ?? null,
    jobLog: input.jobLog,
    jobAssets: null,
  };
  return {
    hasFailures: input.failure !== null,
    hasErrors: input.hasErrors === true,
    isDegraded: input.isDegraded ?? false,
    overMaxResponseTime: input.overMaxResponseTime ?? false,
    responseTime: input.responseTime ?? 0,
    startedAt: input.startedAt.toISOString(),
    stoppedAt: new Date().toISOString(),
    apiCheckResult,
    multiStepCheckResult: null,
    failure: input.failure,
    ...(input.http?.certificateExpiresAt ? { certificateExpiresAt: input.http.certificateExpiresAt } : {}),
  };
}

/** The first `bytes` bytes of `text`, never splitting a character. */
function cutUtf8(text: string, bytes: number): string {
  const buffer = Buffer.from(text);
  let end = Math.min(bytes, buffer.length);
  // Back up over continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (end > 0 && end < buffer.length && (buffer[end]! & 0xc0) === 0x80) end -= 1;
  return buffer.subarray(0, end).toString('utf8');
}
