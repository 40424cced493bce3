/**
 * Scripts in the check runner: what a setup script adds to an API check run with the
 * warm pool (goal ≤ 20 ms), beside the same run without a script measured in the same invocation;
 * and a multi-step run's overhead over the spec's own test time, cold (an empty Playwright transform
 * cache, as after a deploy) and warm (the cache filled by earlier runs).
 *
 * The target is a loopback HTTP server in this process; the scripts and Playwright run in child
 * processes, as they always do. @vigil/runner is imported by path: the test workspace package does
 * not depend on it.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { median, repeat, timeMs, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';
import { createRunner } from '../../../packages/runner/src/index.js';
import type { MultiStepCheckResult } from '../../../packages/runner/src/multi-step/result.js';

const SCRIPT_RUNS = 200;
const BLOCK = 20;
const MULTI_STEP_WARM_RUNS = 3;

const SETUP = "request.headers['x-signature'] = require('node:crypto').createHash('sha256').update(request.url).digest('hex');";
const SPEC = [
  "const { test, expect } = require('@playwright/test');",
  "test('health', async ({ request }) => {",
  '  const response = await request.get(`${process.env.BASE_URL}/health`);',
  '  expect(response.status()).toBe(200);',
  '});',
].join('\n');

async function startTarget(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function apiCheck(url: string, setup: string | null) {
  return {
    checkType: 'API',
    name: 'bench',
    request: { method: 'GET', url: `${url}/health`, headers: [], queryParameters: [], assertions: [], body: '', bodyType: 'NONE' },
    localSetupScript: setup,
    doubleCheck: false,
    retryStrategy: null,
  };
}

async function setupOverhead(context: BenchContext, url: string): Promise<BenchFigure> {
  const runner = createRunner({ scriptPoolSize: 2 });
  try {
    const plain = apiCheck(url, null);
    const scripted = apiCheck(url, SETUP);
    const runContext = { location: 'bench', variables: [{ key: 'TOKEN', value: 't' }] };
    const runBlock = async (check: ReturnType<typeof apiCheck>, count: number) => {
      for (let run = 0; run < count; run++) {
        const { final } = await runner.run(check, runContext);
        if (final.hasFailures) throw new Error(`bench run failed: ${final.error}`);
      }
    };
    // Warm the pool, the JIT and the target before measuring.
    await runBlock(scripted, BLOCK);
    await runBlock(plain, BLOCK);
    const baseline: number[] = [];
    const ours = await repeat(context.runs, async () => {
      let plainMs = 0;
      let scriptedMs = 0;
      // Alternating blocks, so a change in the shared machine's load hits both sides alike.
      for (let block = 0; block < SCRIPT_RUNS / BLOCK; block++) {
        plainMs += await timeMs(() => runBlock(plain, BLOCK));
        scriptedMs += await timeMs(() => runBlock(scripted, BLOCK));
      }
      baseline.push(plainMs / SCRIPT_RUNS);
      return scriptedMs / SCRIPT_RUNS;
    });
    const overhead = median(ours) - median(baseline);
    context.log(`API run with setup script ${median(ours).toFixed(2)} ms vs without ${median(baseline).toFixed(2)} ms (+${overhead.toFixed(2)} ms)`);
    return {
      id: 'runner-scripts.setup-overhead',
      issue: 17,
      label: 'API check run with a setup script (warm pool)',
      unit: 'ms',
      better: 'lower',
      runs: ours,
      baseline: { label: 'the same run without a script', runs: baseline },
      goal: { text: '≤ 20 ms over the run without a script', met: (oursMedian, baselineMedian) => baselineMedian !== undefined && oursMedian - baselineMedian <= 20 },
      note: `${SCRIPT_RUNS} sequential runs per measurement in alternating blocks of ${BLOCK}; loopback target; the script signs the URL with node:crypto`,
    };
  } finally {
    await runner.close();
  }
}

/**
 * CPU milliseconds of this process's finished children (Linux: cutime + cstime of /proc/self/stat,
 * which include their own waited-for children): on a loaded machine far steadier than wall time.
 */
function childrenCpuMs(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    // Fields 16 and 17 of the whole line; the split above starts at field 3.
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

interface MultiStepMeasure {
  /** Wall time of one multi-step run minus the time Playwright reports for the test itself. */
  overheadMs: number;
  /** CPU time of the Playwright processes of the run. */
  cpuMs: number;
}

/** `cacheKey` names the tenant whose Playwright transform cache the run uses: a new one is cold. */
async function multiStepOverhead(url: string, cacheKey: string): Promise<MultiStepMeasure> {
  const cpuBefore = childrenCpuMs();
  const runner = createRunner({ multiStepTimeoutMs: 60_000 });
  try {
    let result: MultiStepCheckResult | null = null;
    const wall = await timeMs(async () => {
      const { final } = await runner.run(
        { checkType: 'MULTI_STEP', name: 'bench', script: SPEC, doubleCheck: false, retryStrategy: null },
        // The runner keeps Playwright's transform cache per tenant: a tenant never seen before is cold.
        { location: 'bench', variables: [{ key: 'BASE_URL', value: url }], tenant: cacheKey },
      );
      if (final.hasFailures) throw new Error(`bench multi-step run failed: ${final.error}`);
      result = final.multiStepCheckResult as MultiStepCheckResult;
    });
    const testMs = (result as MultiStepCheckResult | null)?.tests.reduce((sum, test) => sum + test.durationMs, 0) ?? 0;
    return { overheadMs: wall - testMs, cpuMs: childrenCpuMs() - cpuBefore };
  } finally {
    await runner.close();
  }
}

async function multiStepFigures(context: BenchContext, url: string): Promise<BenchFigure[]> {
  const cold = await repeat(context.runs, async (run) => (await multiStepOverhead(url, `${context.tmpDir}/cold-${run}`)).overheadMs);
  const warmCache = `${context.tmpDir}/warm`;
  await multiStepOverhead(url, warmCache);
  const warmCpu: number[] = [];
  const warm = await repeat(Math.max(context.runs, MULTI_STEP_WARM_RUNS), async () => {
    const measure = await multiStepOverhead(url, warmCache);
    warmCpu.push(measure.cpuMs);
    return measure.overheadMs;
  });
  context.log(`multi-step overhead cold ${median(cold).toFixed(0)} ms, warm ${median(warm).toFixed(0)} ms (CPU of its processes ${median(warmCpu).toFixed(0)} ms)`);
  const note = 'wall time of runner.run minus the test time Playwright reports; API-only spec (request fixture) against a loopback target, no browser';
  return [
    { id: 'runner-scripts.multi-step-cold', issue: 17, label: 'Multi-step run overhead, cold (empty Playwright transform cache)', unit: 'ms', better: 'lower', runs: cold, note },
    { id: 'runner-scripts.multi-step-warm', issue: 17, label: 'Multi-step run overhead, warm', unit: 'ms', better: 'lower', runs: warm, note },
    {
      id: 'runner-scripts.multi-step-cpu',
      issue: 17,
      label: 'CPU of a warm multi-step run (Playwright CLI + its worker)',
      unit: 'ms',
      better: 'lower',
      runs: warmCpu,
      note: 'user + system time of the child processes, whole run including the test',
    },
  ];
}

export const suite: BenchSuite = {
  name: 'runner-scripts',
  issue: 17,
  async run(context) {
    const target = await startTarget();
    try {
      return [await setupOverhead(context, target.url), ...(await multiStepFigures(context, target.url))];
    } finally {
      await target.close();
    }
  },
};
