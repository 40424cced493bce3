import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MultiStepCheckResult } from '../multi-step/result.js';
import { createRunner } from '../runner.js';
import type { Runner } from '../types.js';
import { playwrightExecutor } from './playwright.js';

let server: http.Server;
let baseUrl: string;
let runner: Runner;
let denied: http.Server;
let deniedUrl: string;
let deniedConnections = 0;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    // /hang never answers: the suite's own request waits until the run's deadline.
    if (request.url === '/hang') return;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ ok: true }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  runner = createRunner({ executors: [playwrightExecutor], multiStepTimeoutMs: 30_000 });
  // 127.0.0.2 is loopback too: a target the policy of these tests denies.
  denied = http.createServer((_request, response) => response.end('reached'));
  denied.on('connection', () => (deniedConnections += 1));
  await new Promise<void>((resolve) => denied.listen(0, '127.0.0.2', resolve));
  deniedUrl = `http://127.0.0.2:${(denied.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await runner.close();
  await new Promise((resolve) => server.close(resolve));
  await new Promise((resolve) => denied.close(resolve));
});

const CONFIG = "import { defineConfig } from '@playwright/test';\nexport default defineConfig({ testDir: './tests', reporter: 'html', webServer: { command: 'exit 1' } });\n";
const HELPER = 'export const health = (base: string): string => `${base}/health`;\n';
const spec = (body: string) =>
  [
    "import { test, expect } from '@playwright/test';",
    "import { health } from '../lib/urls';",
    "test('health @smoke', async ({ request }) => {",
    `  ${body}`,
    '});',
    "test('other', async () => {});",
    '',
  ].join('\n');

const suite = (specBody: string, extra: Record<string, unknown> = {}) => ({
  checkType: 'PLAYWRIGHT',
  name: 'suite',
  playwrightConfigPath: 'e2e/playwright.config.ts',
  codeBundle: [
    { path: 'e2e/playwright.config.ts', content: CONFIG },
    { path: 'e2e/tests/health.spec.ts', content: spec(specBody) },
    { path: 'e2e/lib/urls.ts', content: HELPER },
  ],
  ...extra,
});

const variables = () => [{ key: 'BASE_URL', value: baseUrl }];

describe.concurrent('Playwright check suites', { timeout: 120_000 }, () => {
  it('pass when every selected test passes; pwTags select tests; the installCommand is noted, not run', async () => {
    const body = "const response = await request.get(health(process.env.BASE_URL!)); expect(response.status()).toBe(200);";
    const { final } = await runner.run(suite(body, { pwTags: ['@smoke'], installCommand: 'npm ci' }), { location: 'eu-west-1', variables: variables() });
    expect(final.error).toBeNull();
    const result = final.multiStepCheckResult as MultiStepCheckResult;
    expect(result.tests.map((test) => [test.title, test.status])).toEqual([['health @smoke', 'passed']]);
    expect(result.requests[0]).toMatchObject({ method: 'GET', url: `${baseUrl}/health`, location: 'e2e/tests/health.spec.ts:4:34' });
    expect(result.jobLog[0]?.msg).toBe('installCommand "npm ci" was not run: vigil runs suites with its own @playwright/test');
  });

  it('fail with the expect failure at the spec file:line', async () => {
    const body = 'expect(1).toBe(2);';
    const { final } = await runner.run(suite(body), { location: 'eu-west-1', variables: variables() });
    expect(final.hasFailures).toBe(true);
    expect(final.error).toMatch(/^Error: expect\(received\)\.toBe\(expected\).*\(at e2e\/tests\/health\.spec\.ts:4:13\)$/);
  });

  it('stop a suite that hangs at the run deadline', async () => {
    const hanging = createRunner({ executors: [playwrightExecutor], multiStepTimeoutMs: 3_000 });
    try {
      const body = "await request.get(`${process.env.BASE_URL}/hang`, { timeout: 0 });";
      const { final } = await hanging.run(suite(body), { location: 'eu-west-1', variables: variables() });
      expect(final.hasFailures).toBe(true);
      expect(final.error).toMatch(/^the suite did not finish within 3000 ms/);
    } finally {
      await hanging.close();
    }
  });

  it("run a spec that opens a page in the Chromium the runner finds (VIGIL_CHROMIUM_PATH, Playwright's own, the system's)", async () => {
    const check = suite("await page.goto(process.env.BASE_URL!); await expect(page.locator('body')).toContainText('ok');");
    const files = check.codeBundle.map((file) => (file.path.endsWith('.spec.ts') ? { ...file, content: file.content.replace('async ({ request })', 'async ({ page })') } : file));
    const { final } = await runner.run({ ...check, codeBundle: files }, { location: 'eu-west-1', variables: variables() });
    expect(final.error).toBeNull();
    expect((final.multiStepCheckResult as MultiStepCheckResult).tests.map((test) => test.status)).toEqual(['passed', 'passed']);
  });

  it('run TypeScript suites under a network policy: a denied address fails the suite at once, and the run ends', async () => {
    const guarded = createRunner({ executors: [playwrightExecutor], multiStepTimeoutMs: 30_000, denyNetworks: ['127.0.0.1/32'] });
    try {
      const body = 'await request.get(health(process.env.BASE_URL!));';
      const { final } = await guarded.run(suite(body), { location: 'eu-west-1', variables: variables() });
      expect(final.error).toContain("connection to 127.0.0.1 refused by the service's network policy (--deny-network 127.0.0.1/32)");
      // Ended by the denial, not by the 30 s spec timeout.
      expect(final.error).not.toContain('did not finish within');
    } finally {
      await guarded.close();
    }
  });

  // The suite's own proxy (dead) and a Chromium switch that would turn any proxy off: both replaced.
  const HOSTILE_CONFIG =
    "import { defineConfig } from '@playwright/test';\nexport default defineConfig({ testDir: './tests', use: { proxy: { server: 'http://127.0.0.1:9' }, launchOptions: { args: ['--no-proxy-server'] } } });\n";
  const pageSuite = (variable: string) => {
    const check = suite(`await page.goto(process.env.${variable}!); await expect(page.locator('body')).toContainText('ok');`, { pwTags: ['@smoke'] });
    const files = check.codeBundle.map((file) =>
      file.path.endsWith('.spec.ts') ? { ...file, content: file.content.replace('async ({ request })', 'async ({ page })') }
      : file.path.endsWith('.config.ts') ? { ...file, content: HOSTILE_CONFIG }
      : file,
    );
    return { ...check, codeBundle: files };
  };

  it.each([
    ['loads a page of an allowed address', 'BASE_URL', null],
    ['fails a page of a denied address with the policy\'s error, without connecting', 'DENIED_URL', 'refused'],
  ] as const)('under a network policy, send pages through the policy proxy, whatever proxy the suite sets: %s', async (_what, variable, outcome) => {
    const guarded = createRunner({ executors: [playwrightExecutor], multiStepTimeoutMs: 30_000, denyNetworks: ['127.0.0.2/32'] });
    try {
      const { final } = await guarded.run(pageSuite(variable), { location: 'eu-west-1', variables: [...variables(), { key: 'DENIED_URL', value: deniedUrl }] });
      if (outcome === null) {
        expect(final.error).toBeNull();
      } else {
        expect(final.error).toBe(
          `connection to 127.0.0.2 refused by the service's network policy (--deny-network 127.0.0.2/32) — Error: page.goto: net::ERR_EMPTY_RESPONSE at ${deniedUrl} — ` +
            `Call log:; - navigating to "${deniedUrl}", waiting until "load" (at e2e/tests/health.spec.ts:4:14)`,
        );
        expect(deniedConnections).toBe(0);
      }
    } finally {
      await guarded.close();
    }
  });

  it.each([
    ['a shell command', { testCommand: 'npx playwright test; rm -rf /' }, 'testCommand "npx playwright test; rm -rf /" does not run Playwright\'s test runner (e.g. "npx playwright test"), so vigil does not run it'],
    ['another program', { testCommand: 'npm test' }, 'testCommand "npm test" does not run Playwright\'s test runner (e.g. "npx playwright test"), so vigil does not run it'],
    ['a path leaving the bundle', { codeBundle: [{ path: '../x.ts', content: '' }] }, 'the Playwright check has no valid code bundle: must be a relative POSIX path inside the project (no "..", no leading "/")'],
    ['a bundle without its config', { playwrightConfigPath: 'other.config.ts' }, "the Playwright check's bundle has no other.config.ts"],
  ])('refuse %s without running anything', async (_what, change, message) => {
    const { final } = await runner.run(suite('', change), { location: 'eu-west-1', variables: [] });
    expect(final.error).toBe(message);
  });
});
