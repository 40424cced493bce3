import { STATUS_CODES } from 'node:http';

/** Where the service found the invalid input of a 400. */
export type ValidationSource = 'payload' | 'query' | 'params';

/**
 * Every error body the service may send, reduced to one shape. `message` is the human sentence (if
 * any), `keys` the offending field names of a 400, and `body` the raw body as received, kept for
 * debugging and for shapes this normalisation does not know.
 */
export interface ErrorBody {
  statusCode: number | undefined;
  error: string | undefined;
  message: string | undefined;
  validation: { source: ValidationSource | undefined; keys: string[] } | undefined;
  body: unknown;
}

/** Everything an `ApiError` is built from; collected by the transport for one failed call. */
export interface ApiErrorInit {
  method: string;
  path: string;
  /** HTTP status; `undefined` when no response arrived (network failure, timeout). */
  status: number | undefined;
  statusText?: string | undefined;
  data: ErrorBody;
  /** The endpoint id from `@vigil/schema`'s `ENDPOINTS`, when the call went through one. */
  endpoint?: string | undefined;
  /** Attempts made before giving up (1 when the call was not retried). */
  attempts?: number | undefined;
  cause?: unknown;
}

const EM_DASH = '\u2014';

/** `[POST] "/v1/checks/api": 400 Bad Request — <detail>` — the format users grep for in CI logs. */
function formatMessage(init: ApiErrorInit, outcome: string, detail: string | undefined): string {
  const head = `[${init.method}] ${JSON.stringify(init.path)}: ${outcome}`;
  return detail ? `${head} ${EM_DASH} ${detail}` : head;
}

function statusLine(status: number, statusText: string | undefined): string {
  const reason = statusText && statusText.length > 0 ? statusText : (STATUS_CODES[status] ?? 'Unknown Status');
  return `${status} ${reason}`;
}

/**
 * Base of every failure the client reports. Subclasses exist per HTTP status family so callers can
 * `instanceof` on what they handle (a 404 during refresh, a 409 on group delete) and let the rest
 * bubble up; nothing extends further than one level below this class.
 *
 * Statuses the hierarchy does not name (405, 415, 422, ...) are reported as a plain `ApiError`.
 */
export class ApiError extends Error {
  readonly status: number | undefined;
  readonly method: string;
  readonly path: string;
  readonly data: ErrorBody;
  readonly endpoint: string | undefined;
  readonly attempts: number;

  constructor(init: ApiErrorInit, message?: string) {
    const outcome = init.status === undefined ? 'no response' : statusLine(init.status, init.statusText);
    const detail = init.data.message ?? init.data.error;
    // `{error: "Not Found"}` alone would only repeat the status line.
    const informative = detail !== undefined && !outcome.endsWith(` ${detail}`) ? detail : undefined;
    super(message ?? formatMessage(init, outcome, informative), { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.data = init.data;
    this.endpoint = init.endpoint;
    this.attempts = init.attempts ?? 1;
  }
}

/** 400: the request broke a rule; `keys` names the offending fields (may be empty). */
export class ValidationError extends ApiError {
  readonly keys: readonly string[];
  readonly source: ValidationSource | undefined;

  constructor(init: ApiErrorInit) {
    super(init);
    this.keys = init.data.validation?.keys ?? [];
    this.source = init.data.validation?.source;
  }
}

/** 401: missing or bad API key. */
export class UnauthorizedError extends ApiError {}
/** 402: the account's plan does not allow this. */
export class PaymentRequiredError extends ApiError {}
/** 403: the key may not act on the selected account. */
export class ForbiddenError extends ApiError {}
/** 404: no such resource for this account. */
export class NotFoundError extends ApiError {}
/** 409: the resource's state forbids the call (e.g. deleting a group that still holds checks). */
export class ConflictError extends ApiError {}
/** 413: the request body is too large. */
export class PayloadTooLargeError extends ApiError {}

/** 429 after every allowed retry; `retryAfterMs` is the service's last `Retry-After`, if it sent one. */
export class RateLimitError extends ApiError {
  readonly retryAfterMs: number | undefined;

  constructor(init: ApiErrorInit & { retryAfterMs?: number | undefined }) {
    super(init);
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** 5xx: the service failed. */
export class ServerError extends ApiError {}

/** No response: connection refused, reset or dropped mid-response. `code` is Node's (`ECONNRESET`, ...). */
export class NetworkError extends ApiError {
  readonly code: string | undefined;

  constructor(init: ApiErrorInit & { code?: string | undefined }) {
    const detail = init.data.message ?? 'request failed';
    const withCode = init.code && !detail.includes(init.code) ? `${detail} (${init.code})` : detail;
    super(init, formatMessage(init, 'network error', withCode));
    this.code = init.code;
  }
}

/** The service did not answer within the per-request timeout. */
export class TimeoutError extends ApiError {
  readonly timeoutMs: number;

  constructor(init: ApiErrorInit & { timeoutMs: number }) {
    super(init, formatMessage(init, `timed out after ${init.timeoutMs} ms`, undefined));
    this.timeoutMs = init.timeoutMs;
  }
}

/**
 * A successful response whose body does not match the endpoint's response schema. Raised instead of
 * handing the caller data its types lie about; `field` is the first offending path (`items[3].frequency`).
 */
export class ResponseShapeError extends ApiError {
  readonly field: string;
  readonly issues: readonly string[];

  constructor(init: ApiErrorInit & { endpoint: string; field: string; issues: readonly string[] }) {
    const detail = `response of ${init.endpoint} does not match its schema at "${init.field}": ${init.issues.join('; ')}`;
    super(init, formatMessage(init, statusLine(init.status ?? 200, init.statusText), detail));
    this.field = init.field;
    this.issues = init.issues;
  }
}

const STATUS_ERRORS: ReadonlyMap<number, new (init: ApiErrorInit) => ApiError> = new Map<
  number,
  new (init: ApiErrorInit) => ApiError
>([
  [400, ValidationError],
  [401, UnauthorizedError],
  [402, PaymentRequiredError],
  [403, ForbiddenError],
  [404, NotFoundError],
  [409, ConflictError],
  [413, PayloadTooLargeError],
]);

/** The error class for an HTTP error status (>= 400). */
export function errorForStatus(init: ApiErrorInit & { status: number; retryAfterMs?: number | undefined }): ApiError {
  if (init.status === 429) return new RateLimitError(init);
  if (init.status >= 500) return new ServerError(init);
  const ErrorClass = STATUS_ERRORS.get(init.status) ?? ApiError;
  return new ErrorClass(init);
}

function asString(value: unknown): string | undefined {
  if (typeof value === 'string') return value.length > 0 ? value : undefined;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    return value.length > 0 ? value.join('; ') : undefined;
  }
  return undefined;
}

function isValidationSource(value: unknown): value is ValidationSource {
  return value === 'payload' || value === 'query' || value === 'params';
}

function normaliseValidation(value: unknown): ErrorBody['validation'] {
  if (typeof value !== 'object' || value === null) return undefined;
  const { source, keys } = value as { source?: unknown; keys?: unknown };
  return {
    source: isValidationSource(source) ? source : undefined,
    keys: Array.isArray(keys) ? keys.filter((key): key is string => typeof key === 'string') : [],
  };
}

// Plain-text bodies can be whole HTML error pages from a proxy; a message should stay one readable line.
const MAX_TEXT_MESSAGE = 300;

function textMessage(text: string): string | undefined {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  if (oneLine.length === 0) return undefined;
  return oneLine.length > MAX_TEXT_MESSAGE ? `${oneLine.slice(0, MAX_TEXT_MESSAGE)}…` : oneLine;
}

/**
 * Reduces any error body to an `ErrorBody`: the service's JSON error object, a bare `{error}`, a
 * `{message}`, plain text, JSON that is only a string, or nothing at all. `raw` is the body text
 * exactly as received (or an already-parsed value).
 */
export function normaliseErrorBody(raw: unknown): ErrorBody {
  const empty: ErrorBody = { statusCode: undefined, error: undefined, message: undefined, validation: undefined, body: raw };
  if (raw === undefined || raw === null) return { ...empty, body: undefined };
  let parsed: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.trim().length === 0) return { ...empty, body: undefined };
    try {
      parsed = JSON.parse(raw);
    } catch {
      return { ...empty, message: textMessage(raw) };
    }
  }
  if (typeof parsed === 'string') return { ...empty, body: parsed, message: textMessage(parsed) };
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ...empty, body: parsed, message: textMessage(JSON.stringify(parsed)) };
  }
  const object = parsed as Record<string, unknown>;
  const error = asString(object['error']);
  // `{error: "Bad Token"}` alone carries its whole meaning in `error`; it becomes the message.
  const message = asString(object['message']) ?? asString(object['detail']) ?? error;
  const statusCode = typeof object['statusCode'] === 'number' ? object['statusCode'] : undefined;
  return { statusCode, error, message, validation: normaliseValidation(object['validation']), body: parsed };
}
