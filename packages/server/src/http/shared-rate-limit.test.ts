/**
 * The rate limits of the API and of heartbeat pings are counted in the database: replicas on one
 * database (two apps on one SQLite file; two pools on one PostgreSQL database) share one limit per key.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type ServiceApp } from '../app.js';
import { enginesUnderTest, twoReplicas } from '../store/contract/engines.js';
import { SharedRateLimiter } from './rate-limit.js';

const KEY = 'replica-key';
const engines = enginesUnderTest();
let dir = '';
let files = 0;
const apps: ServiceApp[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-shared-limit-'));
});
afterEach(() => apps.splice(0).forEach((service) => service.close()));
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Two apps on one fresh SQLite file, as two `vigil server` processes on one data directory. */
function twoApps(requests: number): [ServiceApp, ServiceApp] {
  files += 1;
  const databaseFile = path.join(dir, `replicas-${files}.db`);
  const open = () => createApp({ databaseFile, accounts: [{ apiKey: KEY, accountId: 'acme' }], rateLimit: { requests, windowSeconds: 60 } });
  const pair: [ServiceApp, ServiceApp] = [open(), open()];
  apps.push(...pair);
  return pair;
}

const authorized = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

describe('the API rate limit across two apps on one SQLite file', () => {
  it('answers exactly one 429 to N+1 requests spread over both, with the same text and headers as one process', async () => {
    const [a, b] = twoApps(6);
    const replies = await Promise.all(Array.from({ length: 7 }, (_, i) => (i % 2 === 0 ? a : b).app.request('/v1/checks', { headers: authorized })));
    const refused = replies.filter((reply) => reply.status === 429);
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 429]);
    const [refusal] = refused;
    const reset = refusal!.headers.get('retry-after');
    expect(reset).toMatch(/^\d+$/);
    expect(await refusal!.json()).toMatchObject({ message: `Rate limit exceeded: 6 requests per window; retry in ${reset} s` });
    expect(refusal!.headers.get('x-ratelimit-limit')).toBe('6');
    expect(refusal!.headers.get('x-ratelimit-remaining')).toBe('0');
    const remaining = replies.filter((reply) => reply.status === 200).map((reply) => reply.headers.get('x-ratelimit-remaining'));
    expect(remaining.sort()).toEqual(['0', '1', '2', '3', '4', '5']);
  });

  it('counts the pings of one heartbeat on both apps against its one limit of 60 a minute', async () => {
    const [a, b] = twoApps(1000);
    const created = await a.app.request('/v1/checks/heartbeat?autoAssignAlerts=false', {
      method: 'POST',
      headers: authorized,
      body: JSON.stringify({ name: 'nightly backup', heartbeat: { period: 1, periodUnit: 'hours', grace: 0, graceUnit: 'seconds' } }),
    });
    expect(created.status).toBe(201);
    const { heartbeat } = (await created.json()) as { heartbeat: { pingToken: string } };
    const statuses: number[] = [];
    // In turn, not at once: each ping is a write, and 61 at once would only measure the group commit.
    for (let i = 0; i < 61; i += 1) statuses.push((await (i % 2 === 0 ? a : b).app.request(`/ping/${heartbeat.pingToken}`)).status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(60);
    expect(statuses.at(-1)).toBe(429);
    const refused = await b.app.request(`/ping/${heartbeat.pingToken}`);
    expect(((await refused.json()) as { message: string }).message).toMatch(/^Too many pings for this heartbeat; retry in \d+ s$/);
  });
});

describe.each(engines)('the shared limiter on two replicas on $name', (engine) => {
  it('refuses exactly one of N+1 requests taken at once over both replicas, and keeps buckets apart', async () => {
    const [a, b] = await twoReplicas(engine);
    const options = { requests: 10, windowSeconds: 60, analyticsRequests: 2 };
    const limiters = [new SharedRateLimiter(a.rateLimits, options), new SharedRateLimiter(b.rateLimits, options)];
    const now = Date.UTC(2026, 10, 1);
    const decisions = await Promise.all(Array.from({ length: 11 }, (_, i) => limiters[i % 2]!.take(KEY, 'default', now + i)));
    expect(decisions.filter((decision) => !decision.allowed)).toEqual([{ allowed: false, limit: 10, remaining: 0, resetSeconds: 60 }]);
    expect(await limiters[0]!.take(KEY, 'analytics', now)).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
    expect(await limiters[1]!.take(KEY, 'ping', now)).toMatchObject({ allowed: true, limit: 10, remaining: 9 });
  });
});
