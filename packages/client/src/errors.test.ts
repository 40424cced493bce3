import { describe, expect, it } from 'vitest';
import {
  ApiError,
  ConflictError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  PaymentRequiredError,
  RateLimitError,
  ResponseShapeError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  ValidationError,
  errorForStatus,
  normaliseErrorBody,
} from './errors.js';

describe('normaliseErrorBody', () => {
  const validationBody = JSON.stringify({
    statusCode: 400,
    error: 'Bad Request',
    message: '"frequencyOffset" must be 10, 20 or 30 when frequency is 0',
    validation: { source: 'payload', keys: ['frequencyOffset'] },
  });

  it.each([
    {
      shape: 'the service JSON error object',
      raw: validationBody,
      want: {
        statusCode: 400,
        error: 'Bad Request',
        message: '"frequencyOffset" must be 10, 20 or 30 when frequency is 0',
        validation: { source: 'payload', keys: ['frequencyOffset'] },
      },
    },
    { shape: 'an {error} only object', raw: '{"error":"Bad Token"}', want: { statusCode: undefined, error: 'Bad Token', message: 'Bad Token', validation: undefined } },
    { shape: 'a {message} only object', raw: '{"message":"Missing authentication"}', want: { error: undefined, message: 'Missing authentication' } },
    { shape: 'a message array', raw: '{"message":["a is required","b is required"]}', want: { message: 'a is required; b is required' } },
    { shape: 'plain text', raw: 'upstream connect error\n', want: { message: 'upstream connect error', error: undefined } },
    { shape: 'a JSON string', raw: '"Service Unavailable"', want: { message: 'Service Unavailable' } },
    { shape: 'a JSON array', raw: '[1,2]', want: { message: '[1,2]' } },
    { shape: 'an empty body', raw: '', want: { statusCode: undefined, error: undefined, message: undefined, validation: undefined, body: undefined } },
    { shape: 'a whitespace body', raw: '  \n', want: { message: undefined, body: undefined } },
    { shape: 'no body at all', raw: undefined, want: { message: undefined, body: undefined } },
    { shape: 'an already parsed object', raw: { error: 'Conflict', message: 'group 3 still holds 2 checks' }, want: { error: 'Conflict', message: 'group 3 still holds 2 checks' } },
    {
      shape: 'validation with an unknown source and non-string keys',
      raw: '{"message":"bad","validation":{"source":"body","keys":["a",3]}}',
      want: { validation: { source: undefined, keys: ['a'] } },
    },
  ])('reads $shape', ({ raw, want }) => {
    expect(normaliseErrorBody(raw)).toMatchObject(want);
  });

  it('keeps a long HTML page to one truncated line', () => {
    const html = `<html>\n<body>${'x'.repeat(1000)}</body>\n</html>`;
    const { message, body } = normaliseErrorBody(html);
    expect(message).toHaveLength(301);
    expect(message?.startsWith('<html> <body>xxx')).toBe(true);
    expect(message?.endsWith('…')).toBe(true);
    expect(body).toBe(html);
  });
});

describe('errorForStatus', () => {
  const base = { method: 'POST', path: '/v1/checks/api' };

  it.each([
    [400, ValidationError],
    [401, UnauthorizedError],
    [402, PaymentRequiredError],
    [403, ForbiddenError],
    [404, NotFoundError],
    [409, ConflictError],
    [413, PayloadTooLargeError],
    [429, RateLimitError],
    [500, ServerError],
    [503, ServerError],
    [405, ApiError],
    [422, ApiError],
  ])('maps status %i to %o, one level below ApiError', (status, ErrorClass) => {
    const error = errorForStatus({ ...base, status, data: normaliseErrorBody('') });
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.constructor).toBe(ErrorClass);
    expect(error.name).toBe(ErrorClass.name);
    if (ErrorClass !== ApiError) expect(Object.getPrototypeOf(ErrorClass)).toBe(ApiError);
  });

  it('writes the message as [METHOD] "path": status reason — service message', () => {
    const raw = '{"statusCode":400,"error":"Bad Request","message":"\\"frequencyOffset\\" must be 10, 20 or 30 when frequency is 0","validation":{"source":"payload","keys":["frequencyOffset"]}}';
    const error = errorForStatus({ ...base, status: 400, statusText: 'Bad Request', data: normaliseErrorBody(raw), cause: 'the cause' });
    expect(error.message).toBe('[POST] "/v1/checks/api": 400 Bad Request — "frequencyOffset" must be 10, 20 or 30 when frequency is 0');
    expect(error).toMatchObject({ status: 400, method: 'POST', path: '/v1/checks/api', cause: 'the cause' });
    expect((error as ValidationError).keys).toEqual(['frequencyOffset']);
    expect((error as ValidationError).source).toBe('payload');
  });

  it('falls back to the standard reason phrase and omits a detail that only repeats it', () => {
    const error = errorForStatus({ method: 'GET', path: '/v1/checks/9', status: 404, statusText: '', data: normaliseErrorBody('{"error":"Not Found"}') });
    expect(error.message).toBe('[GET] "/v1/checks/9": 404 Not Found');
  });

  it('keeps the Retry-After of a final 429', () => {
    const error = errorForStatus({ ...base, status: 429, data: normaliseErrorBody(''), retryAfterMs: 2000 });
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(2000);
    expect(error.message).toBe('[POST] "/v1/checks/api": 429 Too Many Requests');
  });

  it('gives a 400 without validation details an empty key list', () => {
    const error = errorForStatus({ ...base, status: 400, data: normaliseErrorBody('bad json') }) as ValidationError;
    expect(error.keys).toEqual([]);
    expect(error.message).toBe('[POST] "/v1/checks/api": 400 Bad Request — bad json');
  });
});

describe('errors without a response', () => {
  const init = { method: 'GET', path: '/v1/checks', status: undefined, data: { ...normaliseErrorBody(undefined), message: 'socket hang up' } };

  it('names a network failure and its code', () => {
    const error = new NetworkError({ ...init, code: 'ECONNRESET', attempts: 3 });
    expect(error.message).toBe('[GET] "/v1/checks": network error — socket hang up (ECONNRESET)');
    expect(error).toMatchObject({ status: undefined, code: 'ECONNRESET', attempts: 3 });
  });

  it('names the timeout that expired', () => {
    const error = new TimeoutError({ ...init, timeoutMs: 30_000 });
    expect(error.message).toBe('[GET] "/v1/checks": timed out after 30000 ms');
    expect(error).toBeInstanceOf(ApiError);
  });

  it('names the endpoint and field of a response that breaks its schema', () => {
    const error = new ResponseShapeError({
      method: 'GET',
      path: '/v1/checks/1',
      status: 200,
      data: normaliseErrorBody(undefined),
      endpoint: 'checks.get',
      field: 'frequency',
      issues: ['frequency: expected number, received string'],
    });
    expect(error.message).toBe(
      '[GET] "/v1/checks/1": 200 OK — response of checks.get does not match its schema at "frequency": frequency: expected number, received string',
    );
  });
});
