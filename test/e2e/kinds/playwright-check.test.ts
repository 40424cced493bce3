/**
 * PlaywrightCheck end to end through the real CLI against a `vigil server`: a suite declared in a
 * monitor file and one in the config's `checks.playwrightChecks` go through validate → plan → apply
 * → plan empty, and the server's scheduler runs one; both are imported into a fresh copy of the repository whose next plan is empty;
 * `vigil test` runs suites (API-only specs against a loopback HTTP server, so no browser is needed):
 * one passes, one fails at its spec file:line, one hangs until the suite's own test timeout. Bad
 * inputs are refused at the file:line that declares them.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetEnv, vigil, waitFor } from '../../support/cli.js';

let target: Server;
let base: string;
let workdir: string;
let onTargetHit: (() => void) | undefined;

beforeAll(async () => {
  target = createServer((request, response) => {
    if (request.url === '/hang') return; // answers never
    onTargetHit?.();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok' }));
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  workdir = await mkdtemp(path.join(tmpdir(), 'vigil-playwright-e2e-'));
});

afterAll(async () => {
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
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

const config = (logicalId: string, checks = '') =>
  `import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Shop', logicalId: '${logicalId}'${checks ? `, checks: { ${checks} }` : ''} });\n`;

/** The suite: a Playwright config, tagged API specs and a helper they import. */
const suiteFiles = (url: string): Record<string, string> => ({
  'e2e/playwright.config.ts': "import { defineConfig } from '@playwright/test';\n\nexport default defineConfig({ testDir: './tests', timeout: 3000, reporter: 'html' });\n",
  'e2e/lib/api.ts': `export const api = (path: string): string => \`${url}\${path}\`;\n`,
  'e2e/tests/pass.spec.ts': `import { test, expect } from '@playwright/test';
import { api } from '../lib/api';

test('health answers @pass', async ({ request }) => {
  const response = await request.get(api('/health'));
  expect(response.status()).toBe(200);
});
`,
  'e2e/tests/fail.spec.ts': `import { test, expect } from '@playwright/test';
import { api } from '../lib/api';

test('status is degraded @fail', async ({ request }) => {
  const body = await (await request.get(api('/health'))).json();
  expect(body.status).toBe('degraded');
});
`,
  'e2e/tests/hang.spec.ts': `import { test } from '@playwright/test';
import { api } from '../lib/api';

test('slow endpoint @hang', async ({ request }) => {
  await request.get(api('/hang'), { timeout: 0 });
});
`,
});

describe('PlaywrightCheck against vigil server', () => {
  let server: RunningServer;
  // The scheduler's clock: moved on once the checks exist, so their first runs are due at once, and
  // back as soon as a run reaches the target, so no second run starts before the server stops.
  let skewMs = 0;

  beforeAll(async () => {
    server = await startServer({ port: 0, dataDir: ':memory:', scheduler: { now: () => Date.now() + skewMs, tickMs: 200, refreshMs: 200 } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('validates, plans, applies, plans no changes; the scheduler runs the suite; imports into a fresh copy of the repository with an empty next plan', async () => {
    const root = await writeProject('lifecycle', {
      ...suiteFiles(base),
      'vigil.config.ts': config('shop', "playwrightConfigPath: 'e2e/playwright.config.ts', playwrightChecks: [{ logicalId: 'smoke', name: 'Smoke suite', pwTags: '@pass', frequency: 5, locations: ['eu-west-1'] }]"),
      'monitors/suite.monitor.ts': `import { PlaywrightCheck, Frequency } from 'vigil/constructs';

new PlaywrightCheck('api-suite', {
  name: 'API suite',
  // Only the smoke suite runs on the scheduler here, so no run is under way when the server stops.
  activated: false,
  playwrightConfigPath: '../e2e/playwright.config.ts',
  installCommand: 'npm ci',
  pwProjects: [],
  pwTags: ['@pass', '@fail'],
  frequency: Frequency.EVERY_10M,
  locations: ['eu-west-1'],
  environmentVariables: [{ key: 'REGION', value: 'eu' }],
});
`,
    });
    const env = targetEnv(server.url);
    const validated = await vigil(['validate'], { cwd: root, env });
    expect(validated.stderr).toBe('');
    expect(validated.code).toBe(0);
    const plan = await vigil(['plan'], { cwd: root, env });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('+ playwright-check.api-suite');
    expect(plan.stdout).toContain('+ playwright-check.smoke');
    const applied = await vigil(['apply', '--auto-approve'], { cwd: root, env });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const again = await vigil(['plan'], { cwd: root, env });
    expect(again.stdout).toContain('No changes.');

    const listed = (await (await fetch(`${server.url}/v1/checks?checkType=PLAYWRIGHT`, { headers: { authorization: 'Bearer vigil-local' } })).json()) as Array<Record<string, unknown>>;
    const suite = listed.find((check) => check.name === 'API suite');
    expect(suite).toMatchObject({ checkType: 'PLAYWRIGHT', playwrightConfigPath: 'e2e/playwright.config.ts', testCommand: 'npx playwright test', installCommand: 'npm ci', pwTags: ['@pass', '@fail'] });
    expect((suite!.codeBundle as Array<{ path: string }>).map((file) => file.path)).toEqual([
      'e2e/lib/api.ts',
      'e2e/playwright.config.ts',
      'e2e/tests/fail.spec.ts',
      'e2e/tests/hang.spec.ts',
      'e2e/tests/pass.spec.ts',
    ]);

    const smoke = listed.find((check) => check.name === 'Smoke suite');
    onTargetHit = () => {
      skewMs = 0;
    };
    skewMs = 11 * 60_000;
    const result = await waitFor('a result of the scheduled smoke suite', async () => {
      const response = await fetch(`${server.url}/v1/check-results/${String(smoke!.id)}?resultType=ALL`, { headers: { authorization: 'Bearer vigil-local' } });
      const results = (await response.json()) as Array<Record<string, unknown>>;
      return results[0];
    }, { intervalMs: 500 });
    expect(result).toMatchObject({ hasFailures: false, hasErrors: false, runLocation: 'eu-west-1' });
    expect(result.multiStepCheckResult).toMatchObject({ errors: [], tests: [expect.objectContaining({ title: 'health answers @pass', status: 'passed' })] });

    const copy = await writeProject('imported', { ...suiteFiles(base), 'vigil.config.ts': config('imported'), 'monitors/empty.monitor.ts': 'export {};\n' });
    const imported = await vigil(['import', 'playwright-check'], { cwd: copy, env });
    expect(imported.stderr).toBe('');
    expect(imported.stdout, imported.stdout).toContain('Adopted 2 resources:');
    const importedPlan = await vigil(['plan'], { cwd: copy, env });
    expect(importedPlan.stderr).toBe('');
    expect(importedPlan.stdout).toContain('No changes.');
  }, 240_000);
});

describe('vigil test of Playwright check suites', () => {
  it('runs each suite with the real Playwright test runner: a pass, a failure at its spec file:line, a hang stopped by the suite timeout', async () => {
    const root = await writeProject('testing', {
      ...suiteFiles(base),
      'vigil.config.ts': config(
        'testing',
        "playwrightConfigPath: 'e2e/playwright.config.ts', playwrightChecks: [{ logicalId: 'pass', name: 'Pass', pwTags: '@pass' }, { logicalId: 'fail', name: 'Fail', pwTags: '@fail' }, { logicalId: 'hang', name: 'Hang', pwTags: ['@hang'] }]",
      ),
      'monitors/empty.monitor.ts': 'export {};\n',
    });
    const result = await vigil(['test', '--reporter', 'json', '--retries', '0'], { cwd: root });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout) as { results: Array<{ logicalId: string; passed: boolean; error: string | null }>; summary: unknown };
    const byId = Object.fromEntries(document.results.map((item) => [item.logicalId, item]));
    expect(byId.pass).toMatchObject({ passed: true, error: null });
    expect(byId.fail).toMatchObject({ passed: false });
    expect(byId.fail!.error).toMatch(/^Error: expect\(received\)\.toBe\(expected\).*\(at e2e\/tests\/fail\.spec\.ts:6:23\)$/);
    expect(byId.hang).toMatchObject({ passed: false });
    expect(byId.hang!.error).toMatch(/^the suite did not finish within \d+ ms: Test timeout of 3000ms exceeded/);
    expect(document.summary).toMatchObject({ total: 3, passed: 1, failed: 2 });
  }, 180_000);

  it.each([
    [
      'a testCommand that is not Playwright\'s test runner',
      "new PlaywrightCheck('s', { name: 'S', playwrightConfigPath: '../e2e/playwright.config.ts', testCommand: 'npm test && curl x' });",
      'monitors/bad.monitor.ts:3:1',
      `"testCommand" must run Playwright's test runner, not "npm test && curl x"`,
    ],
    [
      'a missing Playwright config',
      "new PlaywrightCheck('s', { name: 'S', playwrightConfigPath: './nowhere.config.ts' });",
      'monitors/bad.monitor.ts:3:1',
      '"playwrightConfigPath" file not found:',
    ],
    [
      'a retryStrategy',
      "new PlaywrightCheck('s', { name: 'S', playwrightConfigPath: '../e2e/playwright.config.ts', retryStrategy: null } as never);",
      'monitors/bad.monitor.ts:3:1',
      '"retryStrategy" is not available in Playwright checks',
    ],
  ])('refuses %s at the file:line that declares it', async (what, line, location, message) => {
    const root = await writeProject(`bad-${what.replace(/\W+/g, '-')}`, {
      ...suiteFiles(base),
      'vigil.config.ts': config('bad'),
      'monitors/bad.monitor.ts': `import { PlaywrightCheck } from 'vigil/constructs';\n\n${line}\n`,
    });
    const result = await vigil(['validate'], { cwd: root });
    expect(result.code).not.toBe(0);
    expect(result.stdout).toContain(location);
    expect(result.stdout).toContain(message);
  }, 60_000);
});
