import { describe, expect, it } from 'vitest';
import { RateLimiter, parseRateLimit } from './rate-limit.js';

describe('parseRateLimit', () => {
  it('reads N/S', () => {
    expect(parseRateLimit('600/60')).toEqual({ requests: 600, windowSeconds: 60 });
    expect(parseRateLimit(' 5 / 1 ')).toEqual({ requests: 5, windowSeconds: 1 });
  });

  it.each(['600', '0/60', '10/0', 'ten/60', '10/60/2', '-1/60'])('refuses "%s"', (spec) => {
    expect(() => parseRateLimit(spec)).toThrow(`invalid rate limit "${spec}": expected REQUESTS/SECONDS with both at least 1, e.g. 600/60`);
  });
});

describe('RateLimiter', () => {
  it('allows N requests per window per key, then refuses until the window ends', () => {
    const limiter = new RateLimiter({ requests: 2, windowSeconds: 10 });
    expect(limiter.take('a', 'default', 0)).toMatchObject({ allowed: true, remaining: 1 });
    expect(limiter.take('a', 'default', 1000)).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.take('a', 'default', 2500)).toEqual({ allowed: false, limit: 2, remaining: 0, resetSeconds: 8 });
    expect(limiter.take('b', 'default', 2500)).toMatchObject({ allowed: true });
    expect(limiter.take('a', 'default', 10_000)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('counts analytics in their own, smaller bucket (30 unless configured)', () => {
    const limiter = new RateLimiter({ requests: 100, windowSeconds: 60 });
    for (let i = 0; i < 30; i += 1) expect(limiter.take('a', 'analytics', 0).allowed).toBe(true);
    expect(limiter.take('a', 'analytics', 0).allowed).toBe(false);
    expect(limiter.take('a', 'default', 0).allowed).toBe(true);
    const custom = new RateLimiter({ requests: 100, windowSeconds: 60, analyticsRequests: 1 });
    expect(custom.take('a', 'analytics', 0).allowed).toBe(true);
    expect(custom.take('a', 'analytics', 0).allowed).toBe(false);
  });
});
