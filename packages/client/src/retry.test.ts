import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { normaliseErrorBody, errorForStatus } from './errors.js';
import { backoffDelayMs, isRetryable, parseRetryAfter, runWithRetries, type AttemptFailure, type AttemptResult, type RetryOptions } from './retry.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    ['2', 2000],
    ['0', 0],
    ['1.5', 1500],
    [' 3 ', 3000],
    ['Thu, 01 Jan 2026 00:00:05 GMT', 5000],
    ['Wed, 31 Dec 2025 23:59:00 GMT', 0],
    ['soon', undefined],
    ['', undefined],
    [null, undefined],
  ])('reads %j as %j ms', (header, want) => {
    expect(parseRetryAfter(header, now)).toBe(want);
  });
});

describe('backoffDelayMs', () => {
  const options = { baseDelayMs: 100, maxDelayMs: 1000 };
  it.each([
    [1, 100],
    [2, 200],
    [3, 400],
    [4, 800],
    [5, 1000],
    [9, 1000],
  ])('caps retry %i at %i ms and jitters below it', (retry, ceiling) => {
    expect(backoffDelayMs(retry, options, () => 0.999_999)).toBe(ceiling - 1);
    expect(backoffDelayMs(retry, options, () => 0.5)).toBe(ceiling / 2);
    expect(backoffDelayMs(retry, options, () => 0)).toBe(0);
  });
});

describe('isRetryable', () => {
  const status = (code: number): AttemptFailure => ({ kind: 'status', status: code, retryAfterMs: undefined });
  it.each<[string, AttemptFailure, string, string | undefined, boolean]>([
    ['429 on a POST without key', status(429), 'POST', undefined, true],
    ['503 on GET', status(503), 'GET', undefined, true],
    ['502 on PUT', status(502), 'PUT', undefined, true],
    ['504 on DELETE', status(504), 'DELETE', undefined, true],
    ['503 on POST with key', status(503), 'POST', 'k', true],
    ['503 on POST without key', status(503), 'POST', undefined, false],
    ['503 on PATCH', status(503), 'PATCH', undefined, false],
    ['500 on GET', status(500), 'GET', undefined, false],
    ['409 on POST with key (first request still running)', status(409), 'POST', 'k', true],
    ['409 on POST without key', status(409), 'POST', undefined, false],
    ['409 on DELETE', status(409), 'DELETE', undefined, false],
    ['400 on GET', status(400), 'GET', undefined, false],
    ['404 on DELETE', status(404), 'DELETE', undefined, false],
    ['lost connection on GET', { kind: 'connection-lost' }, 'GET', undefined, true],
    ['lost connection on POST with key', { kind: 'connection-lost' }, 'POST', 'k', true],
    ['lost connection on POST without key', { kind: 'connection-lost' }, 'POST', undefined, false],
    ['timeout on PUT', { kind: 'timeout' }, 'PUT', undefined, true],
    ['timeout on POST without key', { kind: 'timeout' }, 'POST', undefined, false],
    ['refused connection on GET', { kind: 'unreachable' }, 'GET', undefined, false],
  ])('%s → %s', (_name, failure, method, idempotencyKey, want) => {
    expect(isRetryable(failure, { method, idempotencyKey })).toBe(want);
  });
});

describe('runWithRetries', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(0);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const retry: RetryOptions = { attempts: 5, maxTotalMs: 60_000, baseDelayMs: 100, maxDelayMs: 10_000 };

  function failing(status: number, retryAfterMs?: number): AttemptResult<string> {
    const error = errorForStatus({ method: 'GET', path: '/v1/checks', status, data: normaliseErrorBody(''), retryAfterMs });
    return { ok: false, failure: { kind: 'status', status, retryAfterMs }, error };
  }

  /** Runs a scripted sequence of attempt results and records when each attempt started. */
  function script(results: Array<AttemptResult<string>>, options: { method?: string; idempotencyKey?: string; retry?: RetryOptions } = {}) {
    const startedAt: number[] = [];
    const promise = runWithRetries({
      retry: options.retry ?? retry,
      request: { method: options.method ?? 'GET', idempotencyKey: options.idempotencyKey },
      random: () => 0.5,
      attempt: async (attemptNumber) => {
        startedAt.push(Date.now());
        const result = results[attemptNumber - 1];
        if (!result) throw new Error(`no scripted result for attempt ${attemptNumber}`);
        return result;
      },
    });
    // Attach a handler now so a rejection that settles while timers advance is not reported as unhandled.
    const settled = promise.then(
      (value) => ({ value, error: undefined }),
      (error: unknown) => ({ value: undefined, error }),
    );
    return { startedAt, settled };
  }

  it('waits exactly Retry-After before retrying a 429', async () => {
    const { startedAt, settled } = script([failing(429, 2000), failing(429, 1000), { ok: true, value: 'done' }]);
    await vi.runAllTimersAsync();
    expect((await settled).value).toBe('done');
    expect(startedAt).toEqual([0, 2000, 3000]);
  });

  it('backs off exponentially with jitter when a 429 has no Retry-After', async () => {
    const { startedAt, settled } = script([failing(429), failing(429), failing(429), { ok: true, value: 'done' }]);
    await vi.runAllTimersAsync();
    expect((await settled).value).toBe('done');
    // random() = 0.5 picks half of each ceiling: 100, 200, 400 ms.
    expect(startedAt).toEqual([0, 50, 150, 350]);
  });

  it('retries a 503 on GET and gives up after the configured attempts with the last error', async () => {
    const { startedAt, settled } = script(Array.from({ length: 5 }, () => failing(503)));
    await vi.runAllTimersAsync();
    const { error } = await settled;
    expect(error).toMatchObject({ status: 503, name: 'ServerError' });
    expect(startedAt).toHaveLength(5);
  });

  it('does not retry a 503 on a POST that has no idempotency key', async () => {
    const { startedAt, settled } = script([failing(503), { ok: true, value: 'never' }], { method: 'POST' });
    await vi.runAllTimersAsync();
    expect((await settled).error).toMatchObject({ status: 503 });
    expect(startedAt).toEqual([0]);
  });

  it('retries a 503 on a POST that carries an idempotency key', async () => {
    const { settled } = script([failing(503), { ok: true, value: 'created' }], { method: 'POST', idempotencyKey: 'key-1' });
    await vi.runAllTimersAsync();
    expect((await settled).value).toBe('created');
  });

  it('does not retry a 400', async () => {
    const { startedAt, settled } = script([failing(400), { ok: true, value: 'never' }]);
    await vi.runAllTimersAsync();
    expect((await settled).error).toMatchObject({ name: 'ValidationError' });
    expect(startedAt).toEqual([0]);
  });

  it('stops before a wait that would pass the total time budget', async () => {
    const tight = { ...retry, maxTotalMs: 2500 };
    const { startedAt, settled } = script([failing(429, 2000), failing(429, 2000), { ok: true, value: 'never' }], { retry: tight });
    await vi.runAllTimersAsync();
    expect((await settled).error).toMatchObject({ name: 'RateLimitError', retryAfterMs: 2000 });
    expect(startedAt).toEqual([0, 2000]);
  });

  it('continues from a first attempt the caller made, counting the budget from when it began', async () => {
    const attempted: number[] = [];
    vi.setSystemTime(1000);
    const promise = runWithRetries({
      retry: { ...retry, maxTotalMs: 2500 },
      request: { method: 'GET', idempotencyKey: undefined },
      first: { result: failing(429, 1000), startedAt: 0 },
      attempt: async (attemptNumber) => {
        attempted.push(attemptNumber);
        return attemptNumber === 2 ? failing(429, 1000) : { ok: true, value: 'never' };
      },
    });
    const settled = promise.catch((error: unknown) => error);
    await vi.runAllTimersAsync();
    // Attempt 2 at 2000 ms; a third at 3000 ms would pass the 2500 ms counted from 0, not from 1000.
    expect(await settled).toMatchObject({ name: 'RateLimitError' });
    expect(attempted).toEqual([2]);
  });
});
