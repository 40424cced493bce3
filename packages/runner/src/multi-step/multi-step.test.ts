import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multiStepExecutor } from '../executors/multi-step.js';
import { createRunner } from '../runner.js';
import type { RunVariable, Runner } from '../types.js';
import type { MultiStepCheckResult } from './result.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** checks/flow.spec.ts of the fixture project, bundled by the engine's bundleScript (regenerate it when the bundle format changes). */
const flowSpec = readFileSync(path.join(here, '__fixtures__/project/flow.bundle.js'), 'utf8');

let server: http.Server;
let baseUrl: string;
let runner: Runner;

beforeAll(async () => {
  server = http.createServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ ok: true }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Must never reach a spec: the Playwright processes get the check's variables only.
  process.env.VIGIL_RUNNER_SECRET = 'runner-only';
  runner = createRunner({ executors: [multiStepExecutor], multiStepTimeoutMs: 60_000 });
});

afterAll(async () => {
  delete process.env.VIGIL_RUNNER_SECRET;
  await runner.close();
  await new Promise((resolve) => server.close(resolve));
});

const check = (script: string) => ({ checkType: 'MULTI_STEP', name: 'flow', script, retryStrategy: null, doubleCheck: false });
const variables = (expectOk: boolean): RunVariable[] => [
  { key: 'BASE_URL', value: baseUrl },
  { key: 'EXPECT_OK', value: String(expectOk) },
  { key: 'VIGIL_CHECK_TOKEN', value: 't' },
];

// Concurrent to keep the file short in wall time; the runner takes at most one Playwright run per
// core (at least two) at once, so a test may wait for its turn: hence the long per-test limit.
describe.concurrent('multi-step checks', { timeout: 120_000 }, () => {
  it('pass when the spec passes, recording steps, requests and console output, with only the check variables in process.env', async () => {
    const { final } = await runner.run(check(flowSpec), { location: 'eu-west-1', variables: variables(true) });
    expect(final.error).toBeNull();
    expect(final.hasFailures).toBe(false);
    const result = final.multiStepCheckResult as MultiStepCheckResult;
    expect(result.tests.map((test) => [test.title, test.status])).toEqual([['health flow', 'passed']]);
    expect(result.tests[0]?.steps.find((step) => step.category === 'test.step')).toMatchObject({ title: 'read health', location: 'checks/flow.spec.ts:4:3', error: null });
    expect(result.requests).toEqual([
      expect.objectContaining({ title: 'GET', method: 'GET', url: `${baseUrl}/health`, location: 'checks/flow.spec.ts:5:36', error: null }),
    ]);
    expect(result.jobLog.map((line) => line.msg)).toEqual(['health answered 200', 'visible variables BASE_URL,VIGIL_CHECK_TOKEN']);
    expect(result.errors).toEqual([]);
  });

  it('fail when an expect fails, with the failure at the spec file:line', async () => {
    const { final } = await runner.run(check(flowSpec), { location: 'eu-west-1', variables: variables(false) });
    expect(final.hasFailures).toBe(true);
    expect(final.hasErrors).toBe(false);
    const result = final.multiStepCheckResult as MultiStepCheckResult;
    expect(result.tests[0]?.status).toBe('failed');
    expect(result.tests[0]?.errors[0]?.location).toBe('checks/flow.spec.ts:8:21');
    expect(result.errors[0]).toMatch(/^Error: expect\(received\)\.toBe\(expected\).*Expected: false; Received: true \(at checks\/flow\.spec\.ts:8:21\)$/);
    expect(final.error).toBe(result.errors[0]);
  });

  it('fail at their timeout when the spec never finishes', async () => {
    const spec = "const { test } = require('@playwright/test');\ntest('waits forever', async () => {\n  await new Promise(() => {});\n});\n";
    const quick = createRunner({ executors: [multiStepExecutor], multiStepTimeoutMs: 1_500 });
    try {
      const { final } = await quick.run(check(spec), { location: 'eu-west-1', variables: [] });
      expect(final.hasFailures).toBe(true);
      expect(final.error).toMatch(/^the spec did not finish within 1500 ms/);
    } finally {
      await quick.close();
    }
  });

  it('end promptly when the run is cancelled', async () => {
    const spec = "const { test } = require('@playwright/test');\ntest('waits forever', async () => {\n  await new Promise(() => {});\n});\n";
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const { final } = await runner.run(check(spec), { location: 'eu-west-1', variables: [], signal: controller.signal });
    expect(final.hasFailures).toBe(true);
    expect(final.error).toBe('the run was cancelled before the spec finished');
  });

  it('that open a page without a browser fail with how to get one', async () => {
    const spec = "const { test } = require('@playwright/test');\ntest('opens a page', async ({ page }) => {\n  await page.goto('about:blank');\n});\n";
    const saved = process.env.VIGIL_CHROMIUM_PATH;
    process.env.VIGIL_CHROMIUM_PATH = path.join(here, 'no-such-chromium');
    try {
      const { final } = await runner.run(check(spec), { location: 'eu-west-1', variables: [] });
      expect(final.hasFailures).toBe(true);
      expect(final.error).toContain('no Chromium was found: set VIGIL_CHROMIUM_PATH');
      expect(final.error).toContain('npx playwright install chromium');
    } finally {
      if (saved === undefined) delete process.env.VIGIL_CHROMIUM_PATH;
      else process.env.VIGIL_CHROMIUM_PATH = saved;
    }
  });
});
