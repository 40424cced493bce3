/**
 * What a group without an escalation policy, noRetries() and singleRetry()
 * store on the service, and that the plan after applying them is empty.
 */
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetEnv, vigil } from '../support/cli.js';

let root: string;
let server: RunningServer;

const MONITORS = [
  "import { ApiCheck, CheckGroupV2, RetryStrategyBuilder } from 'vigil/constructs';",
  "const own = new CheckGroupV2('own', { name: 'Own policies' });",
  "const quiet = new CheckGroupV2('quiet', { name: 'Quiet', retryStrategy: RetryStrategyBuilder.noRetries() });",
  "new ApiCheck('never', { name: 'Never', group: own, retryStrategy: RetryStrategyBuilder.noRetries(), request: { url: 'https://example.com/' } });",
  "new ApiCheck('once', { name: 'Once', groupId: own.ref(), retryStrategy: RetryStrategyBuilder.singleRetry({ onlyOn: 'NETWORK_ERROR' }), request: { url: 'https://example.com/1' } });",
  "new ApiCheck('inherits', { name: 'Inherits', group: quiet, request: { url: 'https://example.com/2' } });",
].join('\n');

async function remote(pathname: string): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${server.url}${pathname}`, { headers: { authorization: 'Bearer vigil-local' } });
  return (await response.json()) as Record<string, unknown>[];
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-retries-'));
  server = await startServer({ port: 0, dataDir: ':memory:' });
  await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop' });\n");
  await mkdir(path.join(root, 'monitors'));
  await writeFile(path.join(root, 'monitors', 'retries.monitor.ts'), MONITORS);
}, 60_000);

afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

const run = (args: string[]) => vigil(args, { cwd: root, env: targetEnv(server.url) });

describe('retries and alerting as Checkly means them', () => {
  it('applies them as the service understands them, then plans no changes', async () => {
    const applied = await run(['apply', '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);

    const groups = Object.fromEntries((await remote('/v1/check-groups?limit=100')).map((group) => [group.name, group]));
    // Omitted policy: each check keeps its own (null), not the account's (true).
    expect(groups['Own policies']).toMatchObject({ useGlobalAlertSettings: null, retryStrategy: 'FALLBACK' });
    expect(groups['Quiet']).toMatchObject({ useGlobalAlertSettings: null, retryStrategy: null });

    const checks = Object.fromEntries((await remote('/v1/checks?limit=100')).map((check) => [check.name, check]));
    expect(checks['Never']).toMatchObject({ retryStrategy: null, doubleCheck: false });
    expect(checks['Once']).toMatchObject({ doubleCheck: true });
    expect(checks['Once']!.retryStrategy).toEqual({ type: 'SINGLE_RETRY', baseBackoffSeconds: 60, sameRegion: true, onlyOn: ['NETWORK_ERROR'] });
    // As in Checkly, the group's strategy is the group's own (the service applies it to the check at
    // run time: runner/src/group-defaults.ts); it is not copied into the check.
    expect(checks['Inherits']).toMatchObject({ doubleCheck: true });
    expect(checks['Inherits']!.retryStrategy ?? null).toBeNull();

    const plan = await run(['plan', '--detailed-exitcode']);
    expect(plan.stdout).toBe('No changes. Your monitoring matches the code.\n');
    expect(plan.code).toBe(0);
  }, 120_000);

  it('is refused by the service when a SINGLE_RETRY carries maxRetries, as the real service does', async () => {
    const response = await fetch(`${server.url}/v1/checks/api?autoAssignAlerts=false`, {
      method: 'POST',
      headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x', request: { url: 'https://example.com/' }, retryStrategy: { type: 'SINGLE_RETRY', maxRetries: 1, maxDurationSeconds: 600 } }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      message: '"retryStrategy.maxRetries" is not allowed. "retryStrategy.maxDurationSeconds" is not allowed',
      validation: { source: 'payload', keys: ['retryStrategy.maxRetries', 'retryStrategy.maxDurationSeconds'] },
    });
  });

  it('imports them back as the same builder calls, so the plan after import has no changes', async () => {
    const create = async (route: string, body: unknown) => {
      const response = await fetch(`${server.url}${route}`, {
        method: 'POST',
        headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(201);
    };
    await create('/v2/check-groups?autoAssignAlerts=false', { name: 'Account policy', useGlobalAlertSettings: true, runParallel: false });
    await create('/v1/checks/api?autoAssignAlerts=false', { name: 'Raw never', retryStrategy: null, doubleCheck: false, request: { url: 'https://example.com/3' } });
    await create('/v1/checks/api?autoAssignAlerts=false', { name: 'Raw once', retryStrategy: { type: 'SINGLE_RETRY', baseBackoffSeconds: 0 }, request: { url: 'https://example.com/4' } });

    const imported = await run(['import']);
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toContain('Adopted 3 resources:');
    const directory = path.join(root, 'imported');
    const code = (await Promise.all((await readdir(directory)).map((name) => readFile(path.join(directory, name), 'utf8')))).join('\n');
    expect(code).toContain("alertEscalationPolicy: 'global'");
    expect(code).toContain('runParallel: false');
    expect(code).toContain('retryStrategy: RetryStrategyBuilder.noRetries()');
    expect(code).toContain('retryStrategy: RetryStrategyBuilder.singleRetry({ baseBackoffSeconds: 0 })');
    expect(code).not.toContain('doubleCheck');

    const plan = await run(['plan', '--detailed-exitcode']);
    expect(plan.stdout).toBe('No changes. Your monitoring matches the code.\n');
    expect(plan.code).toBe(0);
  }, 180_000);
});
