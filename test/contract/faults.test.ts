/**
 * The client under the server's fault injection and rate limit: retries never duplicate a create,
 * and pacing keeps a long run of creates under the limit instead of bouncing off it.
 */
import type { AttemptInfo } from '@vigil/client';
import { describe, expect, it } from 'vitest';
import { apiCheckBody, collect, startService } from './service.js';

const CREATES = 500;

function names(count: number, prefix: string): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix}-${String(index).padStart(3, '0')}`);
}

describe('creates under faults', () => {
  it(`ends ${CREATES} creates through a 429 storm, 503s, dropped connections and latency with exactly ${CREATES} checks`, { timeout: 120_000 }, async () => {
    const service = await startService({ faults: 'latency=20ms,error=0.1,429=0.3,drop=0.05,seed=11' });
    try {
      const attempts: AttemptInfo[] = [];
      const client = service.client({
        concurrency: 50,
        // A 30 % storm makes long losing streaks likely over ~800 attempts; the budget must outlast them.
        retry: { attempts: 30, baseDelayMs: 10, maxDelayMs: 200, maxTotalMs: 100_000 },
        onAttempt: (attempt) => attempts.push(attempt),
      });
      const wanted = names(CREATES, 'storm');
      const created = await Promise.all(wanted.map((name) => client.checks.createApi(apiCheckBody(name))));

      const stored = await collect(client.checks.listAll());
      expect(stored).toHaveLength(CREATES);
      expect(stored.map((check) => check.name).sort()).toEqual(wanted);
      expect(new Set(created.map((check) => check.id))).toEqual(new Set(stored.map((check) => check.id)));
      // The faults really happened: every kind was seen and retried through.
      const statuses = attempts.filter((attempt) => attempt.method === 'POST').map((attempt) => attempt.status ?? 'lost');
      expect(statuses).toContain(429);
      expect(statuses).toContain(503);
      expect(statuses).toContain('lost');
    } finally {
      await service.close();
    }
  });
});

describe('pacing against the rate limit', () => {
  const rateLimit = { requests: 100, windowSeconds: 1 };

  it(`meets no 429 in ${CREATES} creates when paced at the server's limit`, { timeout: 180_000 }, async () => {
    const service = await startService({ rateLimit });
    try {
      const statuses: Array<number | undefined> = [];
      const client = service.client({ pacing: rateLimit, concurrency: 10, onAttempt: (attempt) => statuses.push(attempt.status) });
      const startedAt = performance.now();
      await Promise.all(names(CREATES, 'paced').map((name) => client.checks.createApi(apiCheckBody(name))));
      const elapsedSeconds = (performance.now() - startedAt) / 1000;

      // The service reports its budget, and the client's estimate of it never exceeds the truth.
      expect(statuses.filter((status) => status === 429)).toEqual([]);
      expect(statuses).toHaveLength(CREATES);
      // The pacer really spread the calls: 500 calls at 100/s cannot finish in under ~5 s. (No upper
      // bound: on a shared 2-core box the service itself may be the slower party.)
      expect(elapsedSeconds).toBeGreaterThan(4);
    } finally {
      await service.close();
    }
  });

  it('spends a budget the service reports at once instead of spreading it over the window', { timeout: 180_000 }, async () => {
    const budget = { requests: 1000, windowSeconds: 60 };
    const service = await startService({ rateLimit: budget });
    try {
      const statuses: Array<number | undefined> = [];
      const client = service.client({ pacing: budget, concurrency: 10, onAttempt: (attempt) => statuses.push(attempt.status) });
      await Promise.all(names(200, 'budget').map((name) => client.checks.createApi(apiCheckBody(name))));
      // That nothing waits for the token bucket once the budget is known is proved on a fake clock
      // (service-budget.test.ts); here, that spending it at once meets no 429.
      expect(statuses.filter((status) => status === 429)).toEqual([]);
      expect(statuses).toHaveLength(200);
    } finally {
      await service.close();
    }
  });

  it('bounces off a limit without pacing, and still completes by honouring Retry-After', { timeout: 180_000 }, async () => {
    // A limit low enough that even a loaded machine serves faster than it.
    const service = await startService({ rateLimit: { requests: 10, windowSeconds: 1 } });
    try {
      const statuses: Array<number | undefined> = [];
      const client = service.client({ pacing: false, concurrency: 20, onAttempt: (attempt) => statuses.push(attempt.status) });
      const created = await Promise.all(names(40, 'unpaced').map((name) => client.checks.createApi(apiCheckBody(name))));
      expect(created).toHaveLength(40);
      expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
    } finally {
      await service.close();
    }
  });

  it("paces analytics by the service's separate analytics budget", { timeout: 180_000 }, async () => {
    const service = await startService({ rateLimit: { requests: 100, windowSeconds: 1, analyticsRequests: 5 } });
    try {
      const statuses: Array<number | undefined> = [];
      const client = service.client({
        pacing: { requests: 100, windowSeconds: 1 },
        analyticsPacing: { requests: 5, windowSeconds: 1 },
        onAttempt: (attempt) => statuses.push(attempt.status),
      });
      const check = await client.checks.createApi(apiCheckBody('analysed'));
      const reports = await Promise.all(Array.from({ length: 15 }, () => client.analytics.apiChecks(check.id, { metrics: ['availability'] })));
      expect(reports).toHaveLength(15);
      expect(statuses.filter((status) => status === 429)).toEqual([]);
    } finally {
      await service.close();
    }
  });
});
