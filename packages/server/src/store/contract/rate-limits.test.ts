/** The rate-limit port, the same assertions on every engine (see engines.ts). */
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../http/rate-limit.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const NOW = Date.UTC(2026, 10, 1);

describe.each(engines)('rate-limit windows on $name', (engine) => {
  it('decides as the in-memory limiter does, request by request, whichever replica counts', async () => {
    const [a, b] = await twoReplicas(engine);
    const limiter = new RateLimiter({ requests: 3, windowSeconds: 10 });
    const steps: Array<[string, number]> = [['x', 0], ['x', 1000], ['y', 1500], ['x', 2500], ['x', 2600], ['x', 9999], ['x', 10_000], ['x', 10_001], ['y', 11_400], ['x', 19_999], ['x', 20_000]];
    for (const [index, [key, offset]] of steps.entries()) {
      const replica = index % 2 === 0 ? a : b;
      const decision = await replica.rateLimits.take({ key: `default\u0000${key}`, limit: 3, windowMs: 10_000, now: NOW + offset });
      expect({ step: index, ...decision }).toEqual({ step: index, ...limiter.take(key, 'default', NOW + offset) });
    }
  });

  it('refuses the N+1th request of a window across two replicas, and only for that key', async () => {
    const [a, b] = await twoReplicas(engine);
    const take = (replica: typeof a, key: string, offset: number) => replica.rateLimits.take({ key, limit: 4, windowMs: 60_000, now: NOW + offset });
    for (let i = 0; i < 4; i += 1) expect(await take(i % 2 === 0 ? a : b, 'key-1', i)).toMatchObject({ allowed: true, remaining: 3 - i });
    expect(await take(a, 'key-1', 10)).toEqual({ allowed: false, limit: 4, remaining: 0, resetSeconds: 60 });
    expect(await take(b, 'key-1', 30_500)).toEqual({ allowed: false, limit: 4, remaining: 0, resetSeconds: 30 });
    expect(await take(b, 'key-2', 10)).toMatchObject({ allowed: true, remaining: 3 });
    expect(await take(a, 'key-1', 60_000)).toEqual({ allowed: true, limit: 4, remaining: 3, resetSeconds: 60 });
  });

  it('allows exactly the limit when replicas count the same window at once', async () => {
    const [a, b] = await twoReplicas(engine);
    const decisions = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).rateLimits.take({ key: 'busy', limit: 15, windowMs: 60_000, now: NOW })),
    );
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(15);
    expect(decisions.filter((decision) => decision.allowed).map((decision) => decision.remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: 15 }, (_, i) => i));
  });

  it('refuses bad input with errors that name it', async () => {
    const [a] = await twoReplicas(engine);
    const request = { key: 'k', limit: 1, windowMs: 1000, now: NOW };
    await expect(a.rateLimits.take({ ...request, key: '' })).rejects.toThrow('key must be a string that is not empty, got ""');
    await expect(a.rateLimits.take({ ...request, limit: 0 })).rejects.toThrow('limit must be a whole number of at least 1, got 0');
    await expect(a.rateLimits.take({ ...request, windowMs: 2.5 })).rejects.toThrow('windowMs must be a whole number of at least 1, got 2.5');
    await expect(a.rateLimits.take({ ...request, now: -1 })).rejects.toThrow('now must be a whole number of milliseconds since the epoch, got -1');
    expect(await a.rateLimits.take(request)).toMatchObject({ allowed: true, remaining: 0 });
  });
});
