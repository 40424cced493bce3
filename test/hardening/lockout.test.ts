/**
 * One client must not lock out the others. Each attack is replayed against a real service on
 * loopback, where every client shares the address 127.0.0.1: bad keys, one tenant's stale key, and
 * unknown ping tokens used to get every other client (both tenants, the heartbeat jobs) answered 429.
 */
import { rm } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_AUTH_FAILURE_LIMIT } from '@vigil/server';
import { TENANTS, send, sendOk, startService, type Reply, type Service } from './harness.js';

let service: Service;

beforeEach(async () => {
  service = await startService();
});

afterEach(async () => {
  await service.server.close();
  await rm(service.dataDir, { recursive: true, force: true });
});

const listChecks = (apiKey: string): Promise<Reply> => send(service.server.url, 'GET', '/v1/checks', { apiKey });

describe('bad API keys from 127.0.0.1', () => {
  it(`refuse the sender after ${DEFAULT_AUTH_FAILURE_LIMIT.failures} with 429 and Retry-After, and no valid key of either tenant`, async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= DEFAULT_AUTH_FAILURE_LIMIT.failures; i++) statuses.push((await listChecks(`wrong-${i}`)).status);
    expect(statuses).toEqual([...Array<number>(DEFAULT_AUTH_FAILURE_LIMIT.failures).fill(401), 429]);

    const refused = await fetch(`${service.server.url}/v1/checks`, { headers: { authorization: 'Bearer wrong-again' } });
    const wait = refused.headers.get('retry-after');
    expect(wait).toMatch(/^[1-9]\d*$/);
    expect(await refused.json()).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      message: `Too many failed authentication attempts from this address; retry in ${wait} s`,
    });

    for (const tenant of TENANTS) expect((await listChecks(tenant.apiKey)).status).toBe(200);
  });

  it("one tenant's setup script retrying a stale key leaves the other tenant's 40 requests answered", async () => {
    const [stale, other] = [`${TENANTS[0].apiKey}-old`, TENANTS[1].apiKey];
    const answered: number[] = [];
    for (let i = 0; i < 40; i++) {
      await listChecks(stale);
      answered.push((await listChecks(other)).status);
    }
    expect(answered).toEqual(Array<number>(40).fill(200));
    expect((await listChecks(stale)).status).toBe(429);
  });
});

describe('unknown ping tokens from 127.0.0.1', () => {
  it('refuse the sender after 30, and never a valid ping', async () => {
    const created = await sendOk(service.server.url, TENANTS[0].apiKey, 'checks.createHeartbeat', {}, {
      name: 'nightly backup',
      heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await fetch(`${service.server.url}/ping/unknown-${i}`)).status);
    expect(statuses).toEqual([...Array<number>(30).fill(404), 429]);

    const valid = await fetch(`${service.server.url}/ping/${created.heartbeat.pingToken}`);
    expect(valid.status).toBe(200);
    expect(await valid.text()).toBe('OK\n');
  });
});
