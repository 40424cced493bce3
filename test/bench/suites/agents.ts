/**
 * Runner agents, in two parts measured in one invocation:
 * - the Playwright path: a multi-step run's overhead (wall time minus the test time Playwright
 *   reports) with a warm Playwright worker against the same run cold; the same API-only spec
 *   (request fixture) against a loopback target;
 * - many API checks every minute spread over three `vigil agent` processes against the same checks
 *   run by the server's in-process runner (agents/spread.ts, where its size is set).
 * @vigil/runner is imported by path: the test workspace package does not depend on it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { median, repeat, timeMs, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';
import { measureSpread } from './agents/spread.js';
import { createRunner } from '../../../packages/runner/src/index.js';
import type { MultiStepCheckResult } from '../../../packages/runner/src/multi-step/result.js';
import type { Runner } from '../../../packages/runner/src/types.js';

const SPEC = [
  "const { test, expect } = require('@playwright/test');",
  "test('health', async ({ request }) => {",
  '  const response = await request.get(`${process.env.BASE_URL}/health`);',
  '  expect(response.status()).toBe(200);',
  '});',
].join('\n');
/** Warm runs per measurement: the median of these is one run's figure. */
const WARM_RUNS = 10;

async function startTarget(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function overhead(runner: Runner, url: string, tenant: string): Promise<number> {
  let result: MultiStepCheckResult | null = null;
  const wall = await timeMs(async () => {
    const { final } = await runner.run(
      { checkType: 'MULTI_STEP', name: 'bench', script: SPEC, doubleCheck: false, retryStrategy: null },
      { location: 'bench', variables: [{ key: 'BASE_URL', value: url }], tenant },
    );
    if (final.hasFailures) throw new Error(`bench multi-step run failed: ${final.error}`);
    result = final.multiStepCheckResult as MultiStepCheckResult;
  });
  return wall - ((result as MultiStepCheckResult | null)?.tests.reduce((sum, test) => sum + test.durationMs, 0) ?? 0);
}

export const suite: BenchSuite = {
  name: 'agents',
  async run(context) {
    // Part (a) first: its figures are measured with no service running.
    return [...(await measureWarmOverhead(context)), ...(await measureSpread(context))];
  },
};

async function measureWarmOverhead(context: BenchContext): Promise<BenchFigure[]> {
  const target = await startTarget();
  const cold = createRunner({ multiStepTimeoutMs: 120_000 });
  const warm = createRunner({ multiStepTimeoutMs: 120_000, playwrightWarmWorkers: 2 });
  try {
    const tenant = `${context.tmpDir}/tenant`;
    // The tenant's transform cache filled, for both sides alike; the warm worker started.
    await overhead(cold, target.url, tenant);
    const firstWarm = await overhead(warm, target.url, tenant);
    const coldRuns: number[] = [];
    const warmRuns = await repeat(context.runs, async () => {
      coldRuns.push(await overhead(cold, target.url, tenant));
      const each: number[] = [];
      for (let run = 0; run < WARM_RUNS; run++) each.push(await overhead(warm, target.url, tenant));
      return median(each);
    });
    context.log(`multi-step overhead warm ${median(warmRuns).toFixed(0)} ms vs cold ${median(coldRuns).toFixed(0)} ms (first run of a new warm worker ${firstWarm.toFixed(0)} ms)`);
    const note = `wall time of runner.run minus the test time Playwright reports; API-only spec (request fixture) against a loopback target; warm: median of ${WARM_RUNS} runs per measurement`;
    const figures: BenchFigure[] = [
      {
        id: 'agents.multi-step-warm',
        issue: 29,
        label: 'Multi-step run overhead, warm Playwright worker',
        unit: 'ms',
        better: 'lower',
        runs: warmRuns,
        baseline: { label: 'the same run cold (Playwright CLI per run)', runs: coldRuns },
        goal: { text: '≤ 500 ms', met: (ours) => ours <= 500 },
        note,
      },
    ];
    return figures;
  } finally {
    await Promise.all([cold.close(), warm.close()]);
    await target.close();
  }
}
