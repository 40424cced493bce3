/**
 * Failed authentication is limited per client address (issue 15 item 6): before, the limiter ran
 * only after a key was accepted, so keys could be guessed at full speed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { apiFor, startTestServer, TEST_API_KEY, type TestApi } from '../test-support.js';
import { AuthFailureLimiter, DEFAULT_AUTH_FAILURE_LIMIT } from './auth-failures.js';

let api: TestApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('failed authentication from one address', () => {
  it(`answers 401 to the first ${DEFAULT_AUTH_FAILURE_LIMIT.failures} wrong keys, then 429 with Retry-After even for the right key`, async () => {
    api = await startTestServer();
    const guesser = apiFor(api.server, 'guess');
    for (let attempt = 0; attempt < DEFAULT_AUTH_FAILURE_LIMIT.failures; attempt++) {
      const reply = await guesser.get('/v1/checks');
      expect(reply.status).toBe(401);
    }
    const refused = await guesser.get('/v1/checks');
    expect(refused.status).toBe(429);
    // The wait is what is left of the window that the first failure opened.
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(DEFAULT_AUTH_FAILURE_LIMIT.windowSeconds - 10);
    expect(wait).toBeLessThanOrEqual(DEFAULT_AUTH_FAILURE_LIMIT.windowSeconds);
    expect(refused.body).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      message: `Too many failed authentication attempts from this address; retry in ${wait} s`,
    });
    // The key is not even looked at, so a right guess cannot be told from a wrong one.
    expect((await apiFor(api.server, TEST_API_KEY).get('/v1/checks')).status).toBe(429);
  });

  it('counts a missing Authorization header as a failure too', async () => {
    api = await startTestServer({ authFailureLimit: { failures: 2, windowSeconds: 60 } });
    expect((await api.get('/v1/checks', { headers: { authorization: null } })).status).toBe(401);
    expect((await api.get('/v1/checks', { headers: { authorization: null } })).status).toBe(401);
    expect((await api.get('/v1/checks')).status).toBe(429);
  });

  it('leaves callers with a valid key alone however many requests they send', async () => {
    api = await startTestServer({ authFailureLimit: { failures: 2, windowSeconds: 60 } });
    for (let i = 0; i < 10; i++) expect((await api.get('/v1/checks')).status).toBe(200);
  });

  it('is off with authFailureLimit: false', async () => {
    api = await startTestServer({ authFailureLimit: false });
    const guesser = apiFor(api.server, 'guess');
    for (let i = 0; i < DEFAULT_AUTH_FAILURE_LIMIT.failures + 5; i++) expect((await guesser.get('/v1/checks')).status).toBe(401);
  });
});

describe('probing account ids with a valid key', () => {
  it('is charged to the key\'s rate limit (a 403 was answered before the limiter ran)', async () => {
    api = await startTestServer({ rateLimit: { requests: 3, windowSeconds: 60 } });
    for (let i = 0; i < 3; i++) expect((await api.get('/v1/checks', { headers: { 'x-service-account': `probe-${i}` } })).status).toBe(403);
    const refused = await api.get('/v1/checks', { headers: { 'x-service-account': 'probe-4' } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).not.toBeNull();
  });
});

describe('AuthFailureLimiter', () => {
  it('lets an address try again once its window has passed, and keeps addresses apart', () => {
    const limiter = new AuthFailureLimiter({ failures: 2, windowSeconds: 10 });
    limiter.fail('10.0.0.1', 0);
    limiter.fail('10.0.0.1', 1000);
    expect(limiter.blockedFor('10.0.0.1', 1000)).toBe(9);
    expect(limiter.blockedFor('10.0.0.1', 9500)).toBe(1);
    expect(limiter.blockedFor('10.0.0.2', 1000)).toBeUndefined();
    expect(limiter.blockedFor('10.0.0.1', 10_000)).toBeUndefined();
  });
});
