/**
 * Every error class of the client, produced by the real service: each failure the service can
 * send (or the network can cause) arrives as the right `ApiError` subclass with status, method,
 * path, normalised data and a readable message.
 */
import {
  ApiError,
  ConflictError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  ValidationError,
} from '@vigil/client';
import { MAX_BODY_BYTES } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCheckBody, rejection, startService, type Service } from './service.js';

describe('errors from the service', () => {
  let service: Service;
  beforeAll(async () => {
    service = await startService({
      accounts: [
        { apiKey: 'vigil-local', accountId: 'local' },
        { apiKey: 'other-key', accountId: 'other' },
      ],
    });
  });
  afterAll(() => service.close());

  it('reports a broken rule as a ValidationError naming the field', async () => {
    const error = await rejection(service.client().checks.createApi(apiCheckBody('sub-minute', { frequency: 0, frequencyOffset: 5 })));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe(
      '[POST] "/v1/checks/api": 400 Bad Request — "frequencyOffset" must be 10, 20 or 30 when frequency is 0',
    );
    expect(error).toMatchObject({ status: 400, method: 'POST', path: '/v1/checks/api', keys: ['frequencyOffset'], source: 'payload', endpoint: 'checks.createApi' });
    expect((error as ValidationError).data).toMatchObject({ statusCode: 400, error: 'Bad Request', validation: { source: 'payload', keys: ['frequencyOffset'] } });
  });

  it('reports a bad query parameter as a ValidationError from the query', async () => {
    const error = await rejection(service.client().checks.list({ limit: 101 }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ status: 400, source: 'query', keys: ['limit'] });
  });

  it.each([
    ['a wrong key', { apiKey: 'nope' }, 'Bad Token'],
    ['an empty key', { apiKey: '' }, 'Missing authentication'],
  ])('reports %s as an UnauthorizedError', async (_name, overrides, message) => {
    const error = await rejection(service.client(overrides).accounts.list());
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as ApiError).message).toBe(`[GET] "/v1/accounts": 401 Unauthorized — ${message}`);
  });

  it('reports an account the key does not belong to as a ForbiddenError', async () => {
    const error = await rejection(service.client({ accountId: 'other' }).checks.list());
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).toMatchObject({ status: 403, path: '/v1/checks' });
  });

  it("reports another tenant's check as a NotFoundError, not a ForbiddenError", async () => {
    const theirs = await service.client({ apiKey: 'other-key' }).checks.createApi(apiCheckBody('theirs'));
    const error = await rejection(service.client().checks.get(theirs.id));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, method: 'GET', path: `/v1/checks/${theirs.id}` });
  });

  it('reports deleting a group that still holds checks as a ConflictError', async () => {
    const client = service.client();
    const group = await client.checkGroups.create({ name: 'busy group' });
    await client.checks.createApi(apiCheckBody('member', { groupId: group.id }));
    const error = await rejection(client.checkGroups.delete(group.id));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ status: 409, method: 'DELETE', path: `/v1/check-groups/${group.id}` });
  });

  it('reports a body over the size limit as a PayloadTooLargeError', async () => {
    const huge = apiCheckBody('huge', { localSetupScript: 'x'.repeat(MAX_BODY_BYTES + 1) });
    const error = await rejection(service.client().checks.createApi(huge));
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error).toMatchObject({ status: 413 });
  });

  it('reports a reused idempotency key on a different body as a plain ApiError (422 has no subclass)', async () => {
    const client = service.client();
    await client.checks.createApi(apiCheckBody('first use'), { idempotencyKey: 'reused-key' });
    const error = await rejection(client.checks.createApi(apiCheckBody('second use'), { idempotencyKey: 'reused-key' }));
    expect((error as ApiError).constructor).toBe(ApiError);
    expect((error as ApiError).message).toBe(
      '[POST] "/v1/checks/api": 422 Unprocessable Entity — Idempotency-Key "reused-key" was already used for a different request',
    );
  });

  it('reports an unknown route with the service message', async () => {
    const error = await rejection(service.client().transport.request({ method: 'GET', path: '/v1/nothing-here' }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as ApiError).message).toBe('[GET] "/v1/nothing-here": 404 Not Found — Route GET /v1/nothing-here not found');
  });
});

describe('errors from limits and faults', () => {
  it('reports a rate limit whose Retry-After exceeds the time budget as a RateLimitError', async () => {
    const service = await startService({ rateLimit: { requests: 1, windowSeconds: 60 } });
    try {
      const client = service.client();
      await client.accounts.list();
      const error = await rejection(client.accounts.list());
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ status: 429, attempts: 1 });
      expect((error as RateLimitError).retryAfterMs).toBeGreaterThan(50_000);
    } finally {
      await service.close();
    }
  });

  it('reports a service that keeps failing as a ServerError after every attempt', async () => {
    const service = await startService({ faults: 'error=1' });
    try {
      const error = await rejection(service.client().accounts.list());
      expect(error).toBeInstanceOf(ServerError);
      expect((error as ServerError).message).toBe('[GET] "/v1/accounts": 503 Service Unavailable — Service unavailable (injected fault)');
      expect(error).toMatchObject({ status: 503, attempts: 4 });
    } finally {
      await service.close();
    }
  });

  it('reports connections that keep dropping as a NetworkError after every attempt', async () => {
    const service = await startService({ faults: 'drop=1' });
    try {
      const error = await rejection(service.client().accounts.list());
      expect(error).toBeInstanceOf(NetworkError);
      expect(error).toMatchObject({ status: undefined, method: 'GET', path: '/v1/accounts', attempts: 4 });
    } finally {
      await service.close();
    }
  });

  it('reports a slow service as a TimeoutError', async () => {
    const service = await startService({ faults: 'latency=400ms' });
    try {
      const error = await rejection(service.client({ timeoutMs: 100, retry: { attempts: 2, baseDelayMs: 1 } }).accounts.list());
      expect(error).toBeInstanceOf(TimeoutError);
      expect((error as TimeoutError).message).toBe('[GET] "/v1/accounts": timed out after 100 ms');
      expect(error).toMatchObject({ attempts: 2 });
    } finally {
      await service.close();
    }
  });

  it('reports a service that is not listening as a NetworkError without retrying', async () => {
    const service = await startService();
    const client = service.client();
    await service.close();
    const error = await rejection(client.accounts.list());
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ code: 'ECONNREFUSED', attempts: 1 });
  });
});
