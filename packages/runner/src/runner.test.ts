import { describe, expect, it } from 'vitest';
import { createRunner } from './runner.js';
import type { Executor, FailureKind, RunContext, TryResult, WireCheck } from './types.js';

const context: RunContext = { location: 'eu-west-1', variables: [] };

/** An executor whose tries fail with the given kinds in order, then pass. */
function scripted(failures: FailureKind[]): Executor & { tries: number } {
  const executor = {
    checkType: 'API',
    tries: 0,
    async run(): Promise<TryResult> {
      const kind = failures[executor.tries];
      executor.tries += 1;
      const now = new Date().toISOString();
      return {
        hasFailures: kind !== undefined,
        hasErrors: false,
        isDegraded: false,
        overMaxResponseTime: kind === 'TIMEOUT',
        responseTime: 5,
        startedAt: now,
        stoppedAt: now,
        apiCheckResult: null,
        multiStepCheckResult: null,
        failure: kind === undefined ? null : { kind, message: `try ${executor.tries} failed (${kind})` },
      };
    },
  };
  return executor;
}

function setup(failures: FailureKind[]) {
  const executor = scripted(failures);
  const waits: number[] = [];
  const runner = createRunner({
    executors: [executor],
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  return { executor, waits, runner };
}

const check = (extra: Record<string, unknown>): WireCheck => ({ checkType: 'API', name: 'retried', id: 'chk_1', request: { url: 'http://127.0.0.1:1/' }, ...extra });
const strategy = (type: string, extra: Record<string, unknown> = {}) => ({ retryStrategy: { type, baseBackoffSeconds: 5, maxRetries: 3, maxDurationSeconds: 600, ...extra } });
const ALWAYS: FailureKind[] = ['ASSERTION', 'ASSERTION', 'ASSERTION', 'ASSERTION', 'ASSERTION'];

describe('retries', () => {
  it.each([
    ['FIXED', [5_000, 5_000, 5_000]],
    ['LINEAR', [5_000, 10_000, 15_000]],
    ['EXPONENTIAL', [5_000, 25_000, 125_000]],
    ['SINGLE_RETRY', [5_000]],
  ] as const)('%s spaces its retries %j, each failed try before the last an ATTEMPT', async (type, expectedWaits) => {
    const { runner, waits } = setup(ALWAYS);
    const outcome = await runner.run(check(strategy(type)), context);
    expect(waits).toEqual(expectedWaits);
    expect(outcome.attempts.map((result) => [result.resultType, result.attempts])).toEqual(expectedWaits.map((_, index) => ['ATTEMPT', index]));
    expect(outcome.final).toMatchObject({ resultType: 'FINAL', attempts: expectedWaits.length, hasFailures: true, name: 'retried', checkId: 'chk_1' });
    expect(new Set([...outcome.attempts, outcome.final].map((result) => result.sequenceId)).size).toBe(1);
  });

  it('ends at the first passing try', async () => {
    const { runner, executor } = setup(['NETWORK_ERROR']);
    const outcome = await runner.run(check(strategy('FIXED')), context);
    expect(executor.tries).toBe(2);
    expect(outcome.attempts).toHaveLength(1);
    expect(outcome.final).toMatchObject({ hasFailures: false, attempts: 1, error: null });
    expect(outcome.attempts[0]!.error).toBe('try 1 failed (NETWORK_ERROR)');
  });

  it('with onlyOn NETWORK_ERROR retries a network error but not a failed assertion', async () => {
    const network = setup(['NETWORK_ERROR', 'ASSERTION']);
    const outcome = await network.runner.run(check(strategy('FIXED', { onlyOn: ['NETWORK_ERROR'] })), context);
    expect(network.executor.tries).toBe(2);
    expect(outcome.final).toMatchObject({ attempts: 1, hasFailures: true, error: 'try 2 failed (ASSERTION)' });
  });

  it('starts no retry that would pass maxDurationSeconds', async () => {
    const { runner, executor } = setup(ALWAYS);
    await runner.run(check(strategy('LINEAR', { maxDurationSeconds: 12 })), context);
    // Waits 5 s (retry 1), then 10 s would end at 15 s > 12 s: two tries.
    expect(executor.tries).toBe(2);
  });

  it('doubleCheck means one immediate retry; a retryStrategy wins over it', async () => {
    const double = setup(ALWAYS);
    await double.runner.run(check({ doubleCheck: true }), context);
    expect([double.executor.tries, double.waits]).toEqual([2, [0]]);
    const both = setup(ALWAYS);
    await both.runner.run(check({ doubleCheck: true, ...strategy('FIXED', { maxRetries: 2 }) }), context);
    expect(both.executor.tries).toBe(3);
  });

  it('does not retry without a strategy or doubleCheck', async () => {
    const { runner, executor } = setup(ALWAYS);
    const outcome = await runner.run(check({ doubleCheck: false }), context);
    expect([executor.tries, outcome.attempts.length, outcome.final.attempts]).toEqual([1, 0, 0]);
  });

  it.each([
    [0, 1, []],
    [2, 3, [5_000, 5_000]],
  ] as const)('RunContext.retries %i overrides the count (%i tries), keeping the spacing', async (retries, tries, waits) => {
    const setupResult = setup(ALWAYS);
    await setupResult.runner.run(check(strategy('FIXED', { maxRetries: 5 })), { ...context, retries });
    expect(setupResult.executor.tries).toBe(tries);
    expect(setupResult.waits).toEqual(waits);
  });

  it('ends a cancelled run during a backoff wait with the last try as its FINAL result', async () => {
    const controller = new AbortController();
    const executor = scripted(ALWAYS);
    const runner = createRunner({
      executors: [executor],
      sleep: async () => {
        controller.abort();
      },
    });
    const outcome = await runner.run(check(strategy('FIXED')), { ...context, signal: controller.signal });
    expect(executor.tries).toBe(1);
    expect(outcome.attempts).toEqual([]);
    expect(outcome.final).toMatchObject({ resultType: 'FINAL', attempts: 0, hasFailures: true });
  });

  it('waits for real with the default sleep, and a cancel ends the wait at once', async () => {
    const controller = new AbortController();
    const runner = createRunner({ executors: [scripted(ALWAYS)] });
    setTimeout(() => controller.abort(), 50);
    // The backoff is twice the test's own timeout: only a cancel that ends the wait gets here.
    const outcome = await runner.run(check(strategy('FIXED', { baseBackoffSeconds: 60 })), { ...context, signal: controller.signal });
    expect(outcome.final.resultType).toBe('FINAL');
  });
});

describe('runner faults', () => {
  it('turns an executor that throws into a result with hasErrors, never a rejection', async () => {
    const runner = createRunner({
      executors: [{ checkType: 'API', run: async () => { throw new Error('kaboom'); } }],
    });
    const { final } = await runner.run(check({}), context);
    expect(final).toMatchObject({ hasFailures: true, hasErrors: true, resultType: 'FINAL' });
    expect(final.error).toMatch(/^this is a bug in vigil: the API executor threw: Error: kaboom/);
  });

  it('reports a checkType without an executor', async () => {
    const { final } = await createRunner().run({ checkType: 'HEARTBEAT', name: 'beat' }, context);
    expect(final).toMatchObject({ hasErrors: true, error: 'vigil cannot run HEARTBEAT checks (no executor for this checkType)' });
  });

  it('close is idempotent', async () => {
    const runner = createRunner();
    await runner.close();
    await expect(runner.close()).resolves.toBeUndefined();
  });
});
