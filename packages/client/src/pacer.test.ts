import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConcurrencyLimiter, Pacer, TokenBucket, bucketShape } from './pacer.js';

describe('bucketShape', () => {
  it.each([
    [{ requests: 600, windowSeconds: 60 }, { burst: 6, intervalMs: 60_000 / 588 }],
    [{ requests: 50, windowSeconds: 1 }, { burst: 1, intervalMs: 1000 / 48 }],
    [{ requests: 10, windowSeconds: 1 }, { burst: 1, intervalMs: 1000 / 8 }],
    [{ requests: 5, windowSeconds: 1 }, { burst: 1, intervalMs: 1000 / 4 }],
    [{ requests: 1, windowSeconds: 5 }, { burst: 1, intervalMs: 5000 }],
  ])('shapes %j as %j', (pacing, want) => {
    expect(bucketShape(pacing)).toEqual(want);
  });

  it.each([
    [{ requests: 0, windowSeconds: 60 }],
    [{ requests: 10, windowSeconds: 0 }],
    [{ requests: Number.NaN, windowSeconds: 1 }],
  ])('refuses the budget %j', (pacing) => {
    expect(() => bucketShape(pacing)).toThrow(`pacing needs requests >= 1 and windowSeconds > 0, got ${pacing.requests}/${pacing.windowSeconds}`);
  });
});

describe('TokenBucket', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(0);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  async function sendTimes(bucket: TokenBucket, count: number): Promise<number[]> {
    const times: number[] = [];
    const all = Promise.all(Array.from({ length: count }, () => bucket.take().then(() => times.push(Date.now()))));
    await vi.runAllTimersAsync();
    await all;
    return times;
  }

  it('lets the burst through at once, then spaces calls by the interval', async () => {
    const times = await sendTimes(new TokenBucket({ burst: 3, intervalMs: 100 }), 6);
    expect(times).toEqual([0, 0, 0, 100, 200, 300]);
  });

  it.each([
    { requests: 600, windowSeconds: 60, atMost: 594 },
    { requests: 50, windowSeconds: 1, atMost: 49 },
    { requests: 7, windowSeconds: 2, atMost: 7 },
  ])('sends at most $atMost of $requests in any $windowSeconds s window, keeping 1 % for arrival skew', async ({ atMost, ...pacing }) => {
    const times = await sendTimes(new TokenBucket(bucketShape(pacing)), pacing.requests * 3);
    const windowMs = pacing.windowSeconds * 1000;
    // Times are sorted, so the busiest window starts at some send: slide its end forward.
    let busiest = 0;
    for (let first = 0, end = 0; first < times.length; first++) {
      while (end < times.length && times[end]! < times[first]! + windowMs) end++;
      busiest = Math.max(busiest, end - first);
    }
    expect(busiest).toBeLessThanOrEqual(atMost);
  });

  it('keeps 1,000 calls at 600/60 within 5 % of the 100 s the budget allows', async () => {
    const times = await sendTimes(new TokenBucket(bucketShape({ requests: 600, windowSeconds: 60 })), 1000);
    expect(times.at(-1)).toBeGreaterThan(95_000);
    expect(times.at(-1)).toBeLessThan(105_000);
  });

  it('refills while idle, up to the burst only', async () => {
    const bucket = new TokenBucket({ burst: 2, intervalMs: 100 });
    await sendTimes(bucket, 2);
    vi.setSystemTime(10_000);
    const later = await sendTimes(bucket, 3);
    expect(later).toEqual([10_000, 10_000, 10_100]);
  });
});

describe('ConcurrencyLimiter', () => {
  it('keeps at most `limit` tasks running and starts waiters in arrival order', async () => {
    const limiter = new ConcurrencyLimiter(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const releases: Array<() => void> = [];
    const tasks = [0, 1, 2, 3, 4].map((index) =>
      limiter.run(async () => {
        started.push(index);
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
        return index;
      }),
    );
    for (let released = 0; released < 5; released++) {
      await vi.waitFor(() => expect(releases.length).toBeGreaterThan(released));
      releases[released]!();
    }
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
  });

  it('frees the slot of a task that throws', async () => {
    const limiter = new ConcurrencyLimiter(1);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run(async () => 'next')).toBe('next');
  });

  it('refuses a limit below one', () => {
    expect(() => new ConcurrencyLimiter(0)).toThrow('concurrency must be >= 1, got 0');
  });
});

describe('Pacer', () => {
  it('sends without waiting when pacing is off', async () => {
    // Timers are frozen and setImmediate is real: one macrotask turn drains every promise chain, so
    // all calls are done by then only if none of them waited on a timer.
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'Date'] });
    try {
      const pacer = new Pacer({ pacing: false, concurrency: 100 });
      let done = 0;
      for (let call = 0; call < 1000; call++) void pacer.run('/v1/checks', async () => undefined).then(() => done++);
      await new Promise((resolve) => setImmediate(resolve));
      expect(done).toBe(1000);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  describe('with fake timers', () => {
    beforeEach(() => {
      vi.useFakeTimers();
      vi.setSystemTime(0);
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('paces analytics calls by their own budget, leaving other calls unaffected', async () => {
      const pacer = new Pacer({ pacing: { requests: 600, windowSeconds: 60 }, concurrency: 10 });
      const sent: Array<[string, number]> = [];
      const call = (path: string) => pacer.run(path, async () => void sent.push([path, Date.now()]));
      const all = Promise.all([
        ...Array.from({ length: 3 }, () => call('/v1/analytics/api-checks/1')),
        ...Array.from({ length: 3 }, () => call('/v1/checks')),
      ]);
      await vi.runAllTimersAsync();
      await all;
      // 30/60 s: a burst of 1, then one every 60 / 28 s; the general budget's burst of 6 covers the rest.
      const interval = 60_000 / 28;
      expect(sent.filter(([path]) => path === '/v1/checks').map(([, time]) => time)).toEqual([0, 0, 0]);
      expect(sent.filter(([path]) => path !== '/v1/checks').map(([, time]) => time)).toEqual([0, Math.ceil(interval), Math.ceil(2 * interval)]);
    });

    it('spaces calls that queued behind a slow one instead of releasing them in a clump', async () => {
      const pacer = new Pacer({ pacing: { requests: 10, windowSeconds: 1 }, concurrency: 1 });
      const sent: number[] = [];
      // The first call holds the only slot for 1 s (a slow service); the rest return at once.
      const all = Promise.all(
        [1000, 0, 0, 0].map((busyMs) =>
          pacer.run('/v1/checks', async () => {
            sent.push(Date.now());
            await new Promise((resolve) => setTimeout(resolve, busyMs));
          }),
        ),
      );
      await vi.runAllTimersAsync();
      await all;
      // 10/s with a burst of 1 and 1 in reserve: one call every 125 ms once the slot frees.
      expect(sent).toEqual([0, 1000, 1125, 1250]);
    });

    it('leaves analytics unpaced when pacing is off', async () => {
      const pacer = new Pacer({ pacing: false, concurrency: 10 });
      const sent: number[] = [];
      await Promise.all(Array.from({ length: 5 }, () => pacer.run('/v1/analytics/tcp-checks/1', async () => void sent.push(Date.now()))));
      expect(sent).toEqual([0, 0, 0, 0, 0]);
    });
  });
});
