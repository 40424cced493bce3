import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserExecutor } from '../executors/browser.js';
import { multiStepExecutor } from '../executors/multi-step.js';
import { createRunner } from '../runner.js';
import type { RunVariable, Runner, WireCheck } from '../types.js';
import { runSpec } from './run-spec.js';
import { WarmPlaywrightWorkers } from './warm-workers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const flowSpec = readFileSync(path.join(here, '__fixtures__/project/flow.bundle.js'), 'utf8');
const pageSpec = `const { test, expect } = require('@playwright/test');
test('home', async ({ page }) => {
  await page.goto(process.env.BASE_URL + '/page');
  await expect(page).toHaveTitle('Shop');
  console.log('title seen');
});
`;
const requestSpec = `const { test, expect } = require('@playwright/test');
test('health', async ({ request }) => {
  expect((await request.get(process.env.BASE_URL + '/health')).status()).toBe(200);
});
`;

let server: http.Server;
let baseUrl: string;
let cold: Runner;
let warmRunner: Runner;
let workers: WarmPlaywrightWorkers;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    if (request.url === '/page') {
      response.setHeader('content-type', 'text/html');
      response.end('<html><head><title>Shop</title></head><body><h1>Welcome</h1></body></html>');
      return;
    }
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ ok: true }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cold = createRunner({ executors: [multiStepExecutor, browserExecutor], multiStepTimeoutMs: 60_000 });
  warmRunner = createRunner({ executors: [multiStepExecutor, browserExecutor], multiStepTimeoutMs: 60_000, playwrightWarmWorkers: 2 });
  workers = new WarmPlaywrightWorkers(3);
});

afterAll(async () => {
  workers.close();
  await Promise.all([cold.close(), warmRunner.close()]);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const variables = (): RunVariable[] => [
  { key: 'BASE_URL', value: baseUrl },
  { key: 'EXPECT_OK', value: 'true' },
  { key: 'VIGIL_CHECK_TOKEN', value: 't' },
];

/** A result with what differs between any two runs (times, durations, result ids) taken out. */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !/^(id|startTime|endTime|durationMs|time|responseTime|startedAt|stoppedAt|sequenceId|created_at)$/.test(key))
      .map(([key, item]) => [key, comparable(item)]),
  );
}

/** The steps (and requests) of a browser's launch, which only a worker's first run has. */
function withoutBrowserLaunch(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => !isBrowserLaunch(item)).map(withoutBrowserLaunch);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutBrowserLaunch(item)]));
}

function isBrowserLaunch(item: unknown): boolean {
  const title = typeof item === 'object' && item !== null ? (item as { title?: unknown }).title : undefined;
  return title === 'Launch browser' || title === 'Fixture "browser"';
}

const specRun = (code: string, tenant: string, timeoutMs = 60_000) =>
  runSpec({ code, env: { BASE_URL: baseUrl }, timeoutMs, signal: new AbortController().signal, tenant, warm: workers });

describe('warm Playwright workers', { timeout: 400_000 }, () => {
  it('give the same multi-step and browser results as cold runs', async () => {
    const checks: WireCheck[] = [
      { checkType: 'MULTI_STEP', name: 'flow', script: flowSpec, retryStrategy: null, doubleCheck: false },
      { checkType: 'BROWSER', name: 'page', script: pageSpec, retryStrategy: null, doubleCheck: false },
    ];
    for (const check of checks) {
      const context = { location: 'eu-west-1', variables: variables(), tenant: 'acme' };
      const coldRun = await cold.run(check, context);
      const firstWarm = await warmRunner.run(check, context);
      const secondWarm = await warmRunner.run(check, context);
      expect(coldRun.final.error).toBeNull();
      expect(comparable(firstWarm.final)).toEqual(comparable(coldRun.final));
      // The one difference: the browser is already running, so the run has no step launching it.
      expect(comparable(secondWarm.final)).toEqual(withoutBrowserLaunch(comparable(coldRun.final)));
    }
  });

  it('serve a tenant’s second run from the same worker process, and never another tenant’s', async () => {
    const first = await specRun(requestSpec, 'tenant-a');
    const second = await specRun(requestSpec, 'tenant-a');
    const other = await specRun(requestSpec, 'tenant-b');
    expect(first.report?.status).toBe('passed');
    expect(second.report?.status).toBe('passed');
    expect(other.report?.status).toBe('passed');
    expect(second.worker?.pid).toBe(first.worker?.pid);
    expect(second.worker?.runs).toBe((first.worker?.runs ?? 0) + 1);
    expect(other.worker?.pid).not.toBe(first.worker?.pid);
  });

  it('replace a worker whose run crashed it', async () => {
    const before = await specRun(requestSpec, 'tenant-crash');
    const crashed = await specRun("const { test } = require('@playwright/test');\ntest('dies', async () => { process.kill(process.pid, 'SIGKILL'); });\n", 'tenant-crash');
    const after = await specRun(requestSpec, 'tenant-crash');
    expect(crashed.worker?.pid).toBe(before.worker?.pid);
    expect(crashed.report?.status).toBe('failed');
    expect(crashed.report?.errors.map((error) => error.message)).toEqual(['Error: worker process exited unexpectedly (code=null, signal=SIGKILL)']);
    expect(after.report?.status).toBe('passed');
    expect(after.worker?.pid).not.toBe(before.worker?.pid);
  });

  it('kill and replace a worker whose run passed its deadline', async () => {
    // One timeout for all three: it is part of the generated config, and so of the worker's key.
    const before = await specRun(requestSpec, 'tenant-hang', 5_000);
    const hung = await specRun("const { test } = require('@playwright/test');\ntest('spins', () => { for (;;) {} });\n", 'tenant-hang', 5_000);
    const after = await specRun(requestSpec, 'tenant-hang', 5_000);
    // The crash above left a replacement starting in the background; it counts against the pool's
    // size, so this tenant's first run still found room for a warm worker (it used to go cold).
    expect(before.worker).toBeDefined();
    expect(workers.size).toBeLessThanOrEqual(workers.max);
    expect(hung.worker?.pid).toBe(before.worker?.pid);
    expect(hung.timedOut).toBe(true);
    expect(hung.report).toBeNull();
    expect(after.report?.status).toBe('passed');
    expect(after.worker?.pid).not.toBe(before.worker?.pid);
  });
});
