/**
 * BrowserCheck end to end through the real CLI: validate → plan → apply → plan empty against a
 * `vigil server` (its scheduler then runs the check in Chromium), a browser check created by hand
 * imported into a fresh project whose next plan is empty, and `vigil test` of a project whose
 * specs come from `checks.browserChecks.testMatch` against a loopback page: one passes, one fails
 * at its file:line, one hangs and times out. Chromium must be installed (.ci/run installs Debian's):
 * without it the runs fail saying where no browser was found.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetEnv, vigil, waitFor } from '../../support/cli.js';

let page: Server;
let base: string;
let onPageHit: (() => void) | undefined;
let workdir: string;

beforeAll(async () => {
  page = createServer((request, response) => {
    if (request.url === '/hang') return; // answers never
    onPageHit?.();
    response.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Shop</title></head><body><h1>Welcome</h1></body></html>');
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
  workdir = await mkdtemp(path.join(tmpdir(), 'vigil-browser-e2e-'));
});

afterAll(async () => {
  page.closeAllConnections();
  await new Promise((resolve) => page.close(resolve));
  await rm(workdir, { recursive: true, force: true });
});

async function writeProject(name: string, files: Record<string, string>): Promise<string> {
  const root = path.join(workdir, name);
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), content);
  }
  return root;
}

const config = (checks = '') =>
  `import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Shop', logicalId: 'shop'${checks ? `, checks: { ${checks} }` : ''} });\n`;

const HOME_SPEC = (url: string) => `import { test, expect } from '@playwright/test';

test('home shows the welcome', async ({ page }) => {
  await page.goto('${url}');
  await expect(page.locator('h1')).toHaveText('Welcome');
});
`;

describe('BrowserCheck against vigil server', () => {
  let server: RunningServer;
  // The scheduler's clock: moved a minute on once the check exists, so its first run is due at once,
  // and back as soon as that run reaches the page, so no second run starts before the server stops.
  let skewMs = 0;

  beforeAll(async () => {
    server = await startServer({ port: 0, dataDir: ':memory:', scheduler: { now: () => Date.now() + skewMs, tickMs: 200, refreshMs: 200 } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('imports a browser check created by hand into a fresh project whose next plan is empty', async () => {
    const created = await fetch(`${server.url}/v1/checks/browser?autoAssignAlerts=false`, {
      method: 'POST',
      headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Checkout',
        frequency: 30,
        activated: false,
        script: "const { test } = require('@playwright/test');\ntest('checkout', async ({ page }) => {});\n",
        sslCheckDomain: 'pay.example.com',
        playwrightConfig: { use: { locale: 'de-DE' } },
        environmentVariables: [{ key: 'USER', value: 'jo' }],
      }),
    });
    expect(created.status).toBe(201);
    const root = await writeProject('imported', { 'vigil.config.ts': config().replace("logicalId: 'shop'", "logicalId: 'imported'"), 'monitors/empty.monitor.ts': 'export {};\n' });
    const env = targetEnv(server.url);
    const imported = await vigil(['import', 'browser-check'], { cwd: root, env });
    expect(imported.stderr).toBe('');
    expect(imported.stdout, imported.stdout).toContain('Adopted 1 resource:');
    expect(imported.stdout).toContain('  browser-check.');
    const plan = await vigil(['plan'], { cwd: root, env });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('No changes.');
  }, 120_000);

  it('validates, plans, applies, then plans no changes; the scheduler runs it in Chromium', async () => {
    const root = await writeProject('lifecycle', {
      'vigil.config.ts': config(),
      'checks/home.spec.ts': HOME_SPEC(`${base}/`),
      'checks/home.monitor.ts': `import { BrowserCheck, Frequency } from 'vigil/constructs';

new BrowserCheck('home', {
  name: 'Home page',
  frequency: Frequency.EVERY_1M,
  locations: ['eu-west-1'],
  sslCheckDomain: 'shop.example.com',
  playwrightConfig: { use: { viewport: { width: 1280, height: 720 } }, timeout: 20000 },
  code: { entrypoint: './home.spec.ts' },
});
`,
    });
    const env = targetEnv(server.url);
    const validated = await vigil(['validate'], { cwd: root, env });
    expect(validated.stderr).toBe('');
    expect(validated.code).toBe(0);
    const plan = await vigil(['plan'], { cwd: root, env });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('+ browser-check.home');
    const applied = await vigil(['apply', '--auto-approve'], { cwd: root, env });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const again = await vigil(['plan'], { cwd: root, env });
    expect(again.stdout).toContain('No changes.');

    const listed = (await (await fetch(`${server.url}/v1/checks?checkType=BROWSER`, { headers: { authorization: 'Bearer vigil-local' } })).json()) as Array<Record<string, unknown>>;
    const checks = listed.filter((check) => check.name === 'Home page');
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ checkType: 'BROWSER', name: 'Home page', scriptPath: 'checks/home.spec.ts', sslCheckDomain: 'shop.example.com', frequency: 1 });
    onPageHit = () => {
      skewMs = 0;
    };
    skewMs = 61_000;
    const result = await waitFor('a result of the scheduled browser check', async () => {
      const response = await fetch(`${server.url}/v1/check-results/${String(checks[0]!.id)}?resultType=ALL`, { headers: { authorization: 'Bearer vigil-local' } });
      const results = (await response.json()) as Array<Record<string, unknown>>;
      return results[0];
    }, { intervalMs: 500 });
    expect(result).toMatchObject({ hasFailures: false, hasErrors: false, runLocation: 'eu-west-1' });
    expect(result.browserCheckResult).toMatchObject({ type: 'PLAYWRIGHT', errors: [] });
  }, 180_000);
});

describe('vigil test of browser checks', () => {
  it('runs the testMatch specs and a BrowserCheck in Chromium: a pass, a failure at its file:line, a page that hangs until the timeout', async () => {
    const root = await writeProject('testing', {
      'vigil.config.ts': config("browserChecks: { testMatch: 'specs/*.spec.ts' }"),
      'specs/home.spec.ts': HOME_SPEC(`${base}/`),
      'specs/cart.spec.ts': `import { test, expect } from '@playwright/test';

test('cart is empty', async ({ page }) => {
  await page.goto('${base}/cart');
  await expect(page.locator('h1')).toHaveText('Your cart', { timeout: 1000 });
});
`,
      'slow/slow.spec.ts': `import { test } from '@playwright/test';

test('slow page', async ({ page }) => {
  await page.goto('${base}/hang');
});
`,
      'slow/slow.monitor.ts': `import { BrowserCheck, RetryStrategyBuilder } from 'vigil/constructs';

new BrowserCheck('slow', {
  name: 'Slow page',
  retryStrategy: RetryStrategyBuilder.noRetries(),
  playwrightConfig: { timeout: 3000 },
  code: { entrypoint: './slow.spec.ts' },
});
`,
    });
    const result = await vigil(['test', '--reporter', 'json', '--retries', '0'], { cwd: root });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout) as { results: Array<{ logicalId: string; name: string; passed: boolean; error: string | null }>; summary: unknown };
    const byId = Object.fromEntries(document.results.map((item) => [item.logicalId, item]));
    expect(Object.keys(byId).sort()).toEqual(['slow', 'specs/cart.spec.ts', 'specs/home.spec.ts']);
    expect(byId['specs/home.spec.ts']).toMatchObject({ name: 'home.spec.ts', passed: true, error: null });
    expect(byId['specs/cart.spec.ts']).toMatchObject({ name: 'cart.spec.ts', passed: false });
    expect(byId['specs/cart.spec.ts']!.error).toMatch(/toHaveText/);
    expect(byId['specs/cart.spec.ts']!.error).toContain('(at specs/cart.spec.ts:5:');
    expect(byId.slow).toMatchObject({ passed: false });
    expect(byId.slow!.error).toMatch(/^the spec did not finish within \d+ ms: Test timeout of 3000ms exceeded/);
    expect(document.summary).toMatchObject({ total: 3, passed: 1, failed: 2 });
  }, 180_000);
});

describe('BrowserCheck bad inputs', () => {
  it('are errors at the file:line of the construct, each with its exact message', async () => {
    const root = await writeProject('bad', {
      'vigil.config.ts': config(),
      'checks/home.monitor.ts': `import { BrowserCheck, Frequency } from 'vigil/constructs';

new BrowserCheck('home', { name: 'Home', frequency: Frequency.EVERY_10S, code: { entrypoint: './missing.spec.ts' } });
new BrowserCheck('both', { name: 'Both', sslCheckDomain: 42 as never, code: { content: 'x', entrypoint: './a.spec.ts' } as never });
`,
    });
    const result = await vigil(['validate'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toBe(
      [
        'checks/home.monitor.ts:3:1  error  "code.entrypoint" file not found: checks/missing.spec.ts  (browser-check.home.code.entrypoint)',
        '  hint: Entrypoints are resolved relative to the file being loaded (the monitor or check file), as in Checkly.',
        'checks/home.monitor.ts:3:1  error  "frequency" must be one of [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440]  (browser-check.home.frequency)',
        '  hint: Use a Frequency builder, e.g. `frequency: Frequency.EVERY_5M`.',
        'checks/home.monitor.ts:4:1  error  "code" must have exactly one of "entrypoint" (a file to bundle) or "content" (the code itself)  (browser-check.both.code)',
        "  hint: For example `code: { entrypoint: './login.spec.ts' }`.",
        'checks/home.monitor.ts:4:1  error  "sslCheckDomain" must be a string  (browser-check.both.sslCheckDomain)',
        '4 errors',
        '',
      ].join('\n'),
    );
  }, 60_000);
});
