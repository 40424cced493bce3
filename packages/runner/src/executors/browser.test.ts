import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_BROWSER_FOUND } from '../multi-step/run-spec.js';
import { createRunner } from '../runner.js';
import type { Runner } from '../types.js';
import { browserExecutor } from './browser.js';

let server: http.Server;
let baseUrl: string;
let runner: Runner;
const seenUserAgents: string[] = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    if (request.url === '/hang') return; // never answers
    seenUserAgents.push(String(request.headers['user-agent']));
    response.setHeader('content-type', 'text/html');
    response.end('<html><head><title>Shop</title></head><body><h1>Welcome</h1></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  runner = createRunner({ executors: [browserExecutor], multiStepTimeoutMs: 60_000 });
});

afterAll(async () => {
  await runner.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const spec = (body: string) => `const { test, expect } = require('@playwright/test');
test('home', async ({ page }) => {
  await page.goto(process.env.BASE_URL + process.env.PAGE_PATH);
${body}
});
`;
const check = (script: string, extra: Record<string, unknown> = {}) => ({ checkType: 'BROWSER', name: 'home', script, retryStrategy: null, doubleCheck: false, ...extra });
const variables = (pathname = '/') => [
  { key: 'BASE_URL', value: baseUrl },
  { key: 'PAGE_PATH', value: pathname },
];

describe.concurrent('browser checks', { timeout: 120_000 }, () => {
  it('pass when the spec passes in Chromium, with the check\'s playwrightConfig.use applied and the page in pages', async () => {
    const script = spec("  await expect(page.locator('h1')).toHaveText('Welcome');\n  await expect(page).toHaveTitle('Shop');");
    const { final } = await runner.run(check(script, { playwrightConfig: { use: { userAgent: 'vigil-browser-test' } } }), {
      location: 'eu-west-1',
      variables: variables('/welcome'),
    });
    expect(final.error).toBeNull();
    expect(final.hasFailures).toBe(false);
    const result = final.browserCheckResult as { type: string; tests: Array<{ status: string }>; pages: Array<{ url: string }>; errors: string[] };
    expect(result.type).toBe('PLAYWRIGHT');
    expect(result.tests.map((test) => test.status)).toEqual(['passed']);
    expect(result.pages.map((page) => page.url)).toEqual([`${baseUrl}/welcome`]);
    expect(result.errors).toEqual([]);
    expect(final.multiStepCheckResult).toBeNull();
    expect(seenUserAgents).toContain('vigil-browser-test');
  });

  it('fail with the failed expectation at the spec\'s line', async () => {
    const script = spec("  await expect(page.locator('h1')).toHaveText('Goodbye', { timeout: 500 });");
    const { final } = await runner.run(check(script), { location: 'eu-west-1', variables: variables() });
    expect(final.hasFailures).toBe(true);
    expect(final.hasErrors).toBe(false);
    expect(final.error).toContain('toHaveText');
    expect(final.error).toContain('(at check script:4:');
  });

  it('time out when the page never answers within playwrightConfig.timeout', async () => {
    const script = spec('');
    const { final } = await runner.run(check(script, { playwrightConfig: { timeout: 2_000 } }), { location: 'eu-west-1', variables: variables('/hang') });
    expect(final.hasFailures).toBe(true);
    expect(final.error).toMatch(/^the spec did not finish within 60000 ms: Test timeout of 2000ms exceeded/);
  });
});

describe('a machine without a browser', () => {
  it('fails the run naming the three places it looked', async () => {
    const saved = { path: process.env.PATH, chromium: process.env.VIGIL_CHROMIUM_PATH, browsers: process.env.PLAYWRIGHT_BROWSERS_PATH };
    process.env.PATH = mkdtempSync(path.join(os.tmpdir(), 'vigil-empty-path-'));
    delete process.env.VIGIL_CHROMIUM_PATH;
    process.env.PLAYWRIGHT_BROWSERS_PATH = mkdtempSync(path.join(os.tmpdir(), 'vigil-no-browsers-'));
    try {
      const { final } = await runner.run(check('test("x", () => {})'), { location: 'eu-west-1', variables: [] });
      expect(final).toMatchObject({ hasFailures: true, hasErrors: true, error: NO_BROWSER_FOUND });
      expect(final.error).toBe(
        "no browser found: looked for VIGIL_CHROMIUM_PATH (not set), Playwright's own Chromium (none installed; `npx playwright install chromium`) and the system's `chromium` on PATH (not found; e.g. `apt-get install chromium`)",
      );
      process.env.VIGIL_CHROMIUM_PATH = '/nonexistent/chromium';
      const named = await runner.run(check('test("x", () => {})'), { location: 'eu-west-1', variables: [] });
      expect(named.final.error).toBe('no browser found: VIGIL_CHROMIUM_PATH is set to /nonexistent/chromium, which does not exist');
    } finally {
      process.env.PATH = saved.path;
      if (saved.chromium === undefined) delete process.env.VIGIL_CHROMIUM_PATH;
      else process.env.VIGIL_CHROMIUM_PATH = saved.chromium;
      if (saved.browsers === undefined) delete process.env.PLAYWRIGHT_BROWSERS_PATH;
      else process.env.PLAYWRIGHT_BROWSERS_PATH = saved.browsers;
    }
  });
});

describe('browser checks under the network policy', () => {
  it("send Chromium's traffic through the policy: an allowed page loads, a denied one fails saying the policy refused it", async () => {
    const denied = http.createServer((_request, response) => response.end('<h1>reached</h1>'));
    let deniedConnections = 0;
    denied.on('connection', () => (deniedConnections += 1));
    await new Promise<void>((resolve) => denied.listen(0, '127.0.0.2', resolve));
    const deniedUrl = `http://127.0.0.2:${(denied.address() as AddressInfo).port}/`;
    const guarded = createRunner({ executors: [browserExecutor], multiStepTimeoutMs: 60_000, denyNetworks: ['127.0.0.2/32'] });
    try {
      const script = `const { test, expect } = require('@playwright/test');
test('allowed, then denied', async ({ page }) => {
  await page.goto(process.env.BASE_URL + '/');
  await expect(page.locator('h1')).toHaveText('Welcome');
  await page.goto(process.env.DENIED_URL);
});
`;
      const { final } = await guarded.run(check(script), { location: 'eu-west-1', variables: [{ key: 'BASE_URL', value: baseUrl }, { key: 'DENIED_URL', value: deniedUrl }] });
      expect(final.hasFailures).toBe(true);
      expect(final.error).toContain("connection to 127.0.0.2 refused by the service's network policy (--deny-network 127.0.0.2/32)");
      expect(deniedConnections).toBe(0);
    } finally {
      await guarded.close();
      await new Promise((resolve) => denied.close(resolve));
    }
  }, 120_000);
});
