/**
 * Failed authentication is limited per client address and per presented key, and only ever for bad
 * keys: a stale key in one tenant's setup script used to get every client of the address, every
 * tenant, answered 429 for a minute. The attacks below run against a real server on port 0.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type ServiceApp } from '../app.js';
import { apiCheckBody, apiFor, OTHER_API_KEY, startTestServer, TEST_API_KEY, type Reply, type TestApi } from '../test-support.js';
import { AuthFailureLimiter, CredentialFailures, DEFAULT_AUTH_FAILURE_LIMIT, MAX_TRACKED_FAILURES } from './auth-failures.js';

const { failures: BUDGET, windowSeconds: WINDOW } = DEFAULT_AUTH_FAILURE_LIMIT;

let api: TestApi | undefined;
let service: ServiceApp | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
  service?.close();
  service = undefined;
});

/** Asserts the reply is the failure limit's 429 and returns its Retry-After, which the message repeats. */
function expectRefused(reply: Reply, from: 'from this address' | 'with this key'): number {
  expect(reply.status).toBe(429);
  const wait = Number(reply.headers.get('retry-after'));
  expect(Number.isInteger(wait)).toBe(true);
  expect(wait).toBeGreaterThanOrEqual(1);
  expect(wait).toBeLessThanOrEqual(WINDOW);
  expect(reply.body).toEqual({
    statusCode: 429,
    error: 'Too Many Requests',
    message: `Too many failed authentication attempts ${from}; retry in ${wait} s`,
  });
  return wait;
}

describe('bad keys from one address', () => {
  it(`answers 401 to the first ${BUDGET} wrong keys, then 429 with Retry-After to the sender of wrong keys`, async () => {
    api = await startTestServer();
    for (let attempt = 0; attempt < BUDGET; attempt++) {
      const reply = await apiFor(api.server, `guess-${attempt}`).get('/v1/checks');
      expect(reply.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Bad Token' });
    }
    expectRefused(await apiFor(api.server, 'guess-next').get('/v1/checks'), 'from this address');
    expectRefused(await apiFor(api.server, 'guess-0').get('/v1/checks'), 'from this address');
  });

  it(`still serves a valid key from the same address after ${BUDGET + 1} bad ones`, async () => {
    api = await startTestServer();
    for (let attempt = 0; attempt <= BUDGET; attempt++) await apiFor(api.server, `guess-${attempt}`).get('/v1/checks');
    expectRefused(await apiFor(api.server, 'guess-more').get('/v1/checks'), 'from this address');
    expect((await api.get('/v1/checks')).status).toBe(200);
    expect((await api.post('/v1/checks/api?autoAssignAlerts=false', apiCheckBody())).status).toBe(201);
    // The valid key's success lifts nothing for the bad ones.
    expectRefused(await apiFor(api.server, 'guess-after').get('/v1/checks'), 'from this address');
  });

  it("never refuses another tenant's key while one tenant's script retries a stale key", async () => {
    api = await startTestServer();
    const stale = apiFor(api.server, 'revoked-key');
    const tenantB = apiFor(api.server, OTHER_API_KEY);
    const staleStatuses: number[] = [];
    for (let round = 0; round < 40; round++) {
      staleStatuses.push((await stale.get('/v1/checks')).status);
      expect((await tenantB.get('/v1/checks')).status).toBe(200);
    }
    expect(staleStatuses).toEqual([...Array<number>(BUDGET).fill(401), ...Array<number>(40 - BUDGET).fill(429)]);
  });

  it("leaves a valid key's own rate limit in force", async () => {
    api = await startTestServer({ rateLimit: { requests: 3, windowSeconds: 60 } });
    for (let attempt = 0; attempt <= BUDGET; attempt++) await apiFor(api.server, `guess-${attempt}`).get('/v1/checks');
    for (let i = 0; i < 3; i++) {
      const reply = await api.get('/v1/checks');
      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-ratelimit-remaining')).toBe(String(2 - i));
    }
    const limited = await api.get('/v1/checks');
    expect(limited.status).toBe(429);
    const wait = Number(limited.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(limited.body).toEqual({ statusCode: 429, error: 'Too Many Requests', message: `Rate limit exceeded: 3 requests per window; retry in ${wait} s` });
    // The other tenant's key has a budget of its own.
    expect((await apiFor(api.server, OTHER_API_KEY).get('/v1/checks')).status).toBe(200);
  });

  it('counts a missing Authorization header against the address', async () => {
    api = await startTestServer({ authFailureLimit: { failures: 2, windowSeconds: 60 } });
    const noHeader = { headers: { authorization: null } };
    expect((await api.get('/v1/checks', noHeader)).body).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Missing authentication' });
    expect((await api.get('/v1/checks', noHeader)).status).toBe(401);
    expect((await api.get('/v1/checks', noHeader)).status).toBe(429);
    expect((await api.get('/v1/checks')).status).toBe(200);
  });

  it('leaves callers with a valid key alone however many requests they send', async () => {
    api = await startTestServer({ authFailureLimit: { failures: 2, windowSeconds: 60 } });
    for (let i = 0; i < 10; i++) expect((await api.get('/v1/checks')).status).toBe(200);
  });

  it('is off with authFailureLimit: false', async () => {
    api = await startTestServer({ authFailureLimit: false });
    const guesser = apiFor(api.server, 'guess');
    for (let i = 0; i < BUDGET + 5; i++) expect((await guesser.get('/v1/checks')).status).toBe(401);
  });
});

describe('one bad key from many addresses', () => {
  /** The app itself with the peer address a socket would give, as the server hands it over. */
  async function from(address: string, key: string): Promise<{ status: number; headers: Headers; body: unknown }> {
    const incoming = { socket: { remoteAddress: address }, rawHeaders: ['Authorization', `Bearer ${key}`] };
    const response = await service!.app.request('/v1/checks', {}, { incoming } as never);
    return { status: response.status, headers: response.headers, body: await response.json() };
  }

  it('is refused once the key has used its budget, whatever address sends it; good keys there are not', async () => {
    service = createApp({ accounts: [{ apiKey: TEST_API_KEY, accountId: 'acme' }], authFailureLimit: { failures: 4, windowSeconds: 60 } });
    for (const address of ['10.0.0.1', '10.0.0.1', '10.0.0.2', '10.0.0.2']) expect((await from(address, 'leaked')).status).toBe(401);
    const refused = await from('10.0.0.3', 'leaked');
    expect(refused.status).toBe(429);
    const wait = refused.headers.get('retry-after');
    expect(refused.body).toEqual({ statusCode: 429, error: 'Too Many Requests', message: `Too many failed authentication attempts with this key; retry in ${wait} s` });
    // The address is not charged for a key that others spent: another bad key from it is answered.
    expect((await from('10.0.0.3', 'typo')).status).toBe(401);
    expect((await from('10.0.0.3', TEST_API_KEY)).status).toBe(200);
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

describe('CredentialFailures', () => {
  it('names the address when both budgets are spent, and charges no key for a missing one', () => {
    const failures = new CredentialFailures({ failures: 2, windowSeconds: 10 });
    failures.fail('10.0.0.1', 'k', 0);
    failures.fail('10.0.0.1', 'k', 0);
    expect(failures.refusal('10.0.0.1', 'k', 0)).toEqual({ by: 'address', seconds: 10 });
    expect(failures.refusal('10.0.0.2', 'k', 0)).toEqual({ by: 'credential', seconds: 10 });
    failures.fail('10.0.0.3', undefined, 0);
    failures.fail('10.0.0.3', undefined, 0);
    expect(failures.refusal('10.0.0.3', undefined, 0)).toEqual({ by: 'address', seconds: 10 });
    expect(failures.refusal('10.0.0.4', 'other', 0)).toBeUndefined();
  });

  it(`holds at most ${MAX_TRACKED_FAILURES} addresses and keys however many an attacker invents, keys as fixed-size digests`, () => {
    const failures = new CredentialFailures({ failures: 2, windowSeconds: 60 });
    const longKey = 'x'.repeat(8000);
    for (let i = 0; i < MAX_TRACKED_FAILURES * 2; i++) failures.fail(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, `${longKey}${i}`, 0);
    expect(failures.size).toEqual({ addresses: MAX_TRACKED_FAILURES, credentials: MAX_TRACKED_FAILURES });
    // The most recent are the ones kept: an attacker still failing keeps its count.
    const last = MAX_TRACKED_FAILURES * 2 - 1;
    failures.fail(`10.${last >> 16}.${(last >> 8) & 255}.${last & 255}`, 'another', 0);
    expect(failures.refusal(`10.${last >> 16}.${(last >> 8) & 255}.${last & 255}`, 'third', 0)).toEqual({ by: 'address', seconds: 60 });
  });
});
