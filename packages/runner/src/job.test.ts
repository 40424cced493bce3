import { RUN_WIRE_VERSION, RunReport, type RunJob } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { runJob } from './job.js';
import { createRunner } from './runner.js';
import { interpolate, variableLookup } from './variables.js';
import type { Executor, ExecutorContext, TryResult, WireCheck } from './types.js';

/** Records what it was asked to run, and fails once so the report has an ATTEMPT and a FINAL. */
function recording(): Executor & { seen: Array<{ check: WireCheck; url: string | undefined }> } {
  const seen: Array<{ check: WireCheck; url: string | undefined }> = [];
  return {
    checkType: 'API',
    seen,
    async run(check: WireCheck, context: ExecutorContext): Promise<TryResult> {
      const request = check.request as { url: string };
      seen.push({ check, url: interpolate(request.url, variableLookup(context.variables)) });
      const now = new Date().toISOString();
      const failing = seen.length === 1;
      return {
        hasFailures: failing,
        hasErrors: false,
        isDegraded: false,
        overMaxResponseTime: false,
        responseTime: 3,
        startedAt: now,
        stoppedAt: now,
        apiCheckResult: null,
        multiStepCheckResult: null,
        failure: failing ? { kind: 'ASSERTION', message: 'first try fails' } : null,
      };
    },
  } as Executor & { seen: typeof seen };
}

const job = (overrides: Partial<RunJob> = {}): RunJob => ({
  wireVersion: RUN_WIRE_VERSION,
  key: 'chk_1@1700000000500@eu-west-1',
  accountId: 'acc_1',
  checkId: 'chk_1',
  location: 'eu-west-1',
  dueMs: 1_700_000_000_500,
  check: { checkType: 'API', name: 'Orders', request: { url: '{{GROUP_BASE_URL}}/orders', assertions: [] }, retryStrategy: { type: 'FIXED', baseBackoffSeconds: 0, maxRetries: 1 } },
  group: { apiCheckDefaults: { url: 'http://127.0.0.1:9', headers: [{ key: 'X-Team', value: 'shop' }] } },
  ...overrides,
});

describe('runJob', () => {
  it("applies the group's defaults and returns a report every try of which carries the run's id and check", async () => {
    const executor = recording();
    const runner = createRunner({ executors: [executor], sleep: async () => undefined });
    try {
      const report = await runJob(runner, job(), new AbortController().signal);
      expect(executor.seen[0]!.url).toBe('http://127.0.0.1:9/orders');
      expect((executor.seen[0]!.check.request as { headers: unknown }).headers).toEqual([{ key: 'X-Team', value: 'shop' }]);
      expect(report.key).toBe('chk_1@1700000000500@eu-west-1');
      expect([...report.attempts, report.final].map((result) => [result.resultType, result.checkId, result.checkRunId, result.runLocation])).toEqual([
        ['ATTEMPT', 'chk_1', 1_700_000_000, 'eu-west-1'],
        ['FINAL', 'chk_1', 1_700_000_000, 'eu-west-1'],
      ]);
      // What crosses a process boundary is exactly the wire schema.
      expect(RunReport.safeParse(JSON.parse(JSON.stringify(report))).success).toBe(true);
    } finally {
      await runner.close();
    }
  });

  it('runs a check without a group as it is', async () => {
    const executor = recording();
    const runner = createRunner({ executors: [executor], sleep: async () => undefined });
    try {
      await runJob(runner, job({ group: null, check: { checkType: 'API', name: 'Plain', request: { url: 'http://127.0.0.1:9/plain' } } }), new AbortController().signal);
      expect(executor.seen.map((entry) => entry.url)).toEqual(['http://127.0.0.1:9/plain']);
    } finally {
      await runner.close();
    }
  });
});
