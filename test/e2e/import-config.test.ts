/**
 * `vigil import` in a project that already has opinions: check defaults in its config, and alert
 * channels it manages in its own files. The next plan is empty, and stays right when a managed
 * channel is re-created.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { targetEnv, vigil } from '../support/cli.js';

let root: string;
let server: RunningServer;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-import-config-'));
  server = await startServer({ port: 0, dataDir: ':memory:' });
  await mkdir(path.join(root, 'monitors'));
  await writeFile(path.join(root, 'monitors', 'empty.monitor.ts'), 'export {};\n');
});

afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

async function call(method: string, route: string, body?: unknown): Promise<{ id: number | string }> {
  const response = await fetch(`${server.url}${route}`, {
    method,
    headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${route}: ${response.status} ${text}`);
  return text === '' ? { id: '' } : (JSON.parse(text) as { id: number | string });
}

const run = (args: string[]) => vigil(args, { cwd: root, env: targetEnv(server.url) });

async function generated(): Promise<Record<string, string>> {
  const directory = path.join(root, 'imported');
  const files: Record<string, string> = {};
  for (const name of (await readdir(directory)).sort()) files[name] = await readFile(path.join(directory, name), 'utf8');
  return files;
}

describe('vigil import with check defaults in the config', () => {
  it('writes what differs from the defaults, and the next plan has no changes', async () => {
    await writeFile(
      path.join(root, 'vigil.config.ts'),
      [
        "import { defineConfig } from 'vigil';",
        "import { AlertEscalationBuilder, RetryStrategyBuilder } from 'vigil/constructs';",
        'export default defineConfig({',
        "  projectName: 'shop',",
        "  logicalId: 'shop',",
        '  checks: {',
        '    frequency: 5,',
        "    locations: ['eu-central-1'],",
        "    tags: ['team'],",
        '    muted: true,',
        '    shouldFail: true,',
        '    runParallel: true,',
        '    retryStrategy: RetryStrategyBuilder.linearStrategy({ maxRetries: 2 }),',
        '    alertEscalationPolicy: AlertEscalationBuilder.runBasedEscalation(2),',
        "    environmentVariables: [{ key: 'BASE', value: 'https://shop.example.com' }],",
        '  },',
        '});',
      ].join('\n'),
    );
    const query = '?autoAssignAlerts=false';
    // One as a colleague would click it (the service's defaults), one exactly as the config's defaults would make it.
    // doubleCheck: false — a check left to retry once the deprecated way cannot be written under an inherited strategy (import warns).
    await call('POST', `/v1/checks/api${query}`, { name: 'Plain', doubleCheck: false, request: { url: 'https://example.com/' } });
    await call('POST', `/v1/checks/api${query}`, {
      name: 'Like the config',
      frequency: 5,
      locations: ['eu-central-1'],
      tags: ['team'],
      muted: true,
      shouldFail: true,
      runParallel: true,
      retryStrategy: { type: 'LINEAR', baseBackoffSeconds: 60, maxRetries: 2, maxDurationSeconds: 600, sameRegion: true },
      useGlobalAlertSettings: false,
      alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 2 } },
      environmentVariables: [{ key: 'BASE', value: 'https://shop.example.com' }],
      request: { url: 'https://example.com/same' },
    });
    await call('POST', `/v1/checks/multistep${query}`, { name: 'Flow', doubleCheck: false, script: 'await run();' });
    await call('POST', `/v1/checks/multistep${query}`, {
      name: 'Flow like the config',
      doubleCheck: false,
      script: 'await run();',
      environmentVariables: [{ key: 'BASE', value: 'https://shop.example.com' }],
    });

    const imported = await run(['import']);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    const code = (await generated())['checks.monitor.ts']!;
    // The plain check spells out every default the config would otherwise give it…
    expect(code).toContain("new ApiCheck('plain', {");
    // …and the one made like the config's defaults leaves them all to the config.
    expect(code).toContain("new ApiCheck('like-the-config', { name: 'Like the config', request: { url: 'https://example.com/same' } });\n");
    expect(code.split("new ApiCheck('plain', {")[1]!.split('});')[0]).toContain('  shouldFail: false,\n');
    expect(code).toContain("new MultiStepCheck('flow', {");
    expect(code.split("new MultiStepCheck('flow', {")[1]!.split('});')[0]).toContain('  shouldFail: false,\n');
    expect(code.split("new MultiStepCheck('flow', {")[1]!.split('});')[0]).toContain('  environmentVariables: [],\n');
    expect(code.split("new MultiStepCheck('flow-like-the-config', {")[1]!.split('});')[0]).not.toContain('environmentVariables');

    const plan = await run(['plan', '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  }, 120_000);
});

describe('vigil import of a check subscribed to an alert channel the project manages', () => {
  it('refers to the channel by the variable the project exports, which follows it when it is re-created', async () => {
    await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop' });\n");
    await writeFile(
      path.join(root, 'monitors', 'alerts.monitor.ts'),
      [
        "import { EmailAlertChannel, SlackAlertChannel } from 'vigil/constructs';",
        '',
        "export const oncall = new EmailAlertChannel('oncall', { address: 'oncall@example.com' });",
        "const ops = new SlackAlertChannel('ops', { url: 'https://hooks.slack.com/services/ops' });",
        'void ops;',
      ].join('\n'),
    );
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    const state = JSON.parse(await readFile(path.join(root, '.vigil', 'state.json'), 'utf8')) as { resources: Record<string, { remoteId: number }> };
    const oncallId = state.resources['alert-channel.oncall']!.remoteId;
    const opsId = state.resources['alert-channel.ops']!.remoteId;
    await call('POST', '/v1/checks/api?autoAssignAlerts=false', {
      name: 'Home',
      alertChannelSubscriptions: [{ alertChannelId: oncallId }, { alertChannelId: opsId }],
      request: { url: 'https://example.com/' },
    });

    const imported = await run(['import', 'api-check']);
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toContain(
      `    warning: Home refers to alert-channel.ops, which monitors/alerts.monitor.ts:4 declares without exporting it, by its id; export that construct and use its variable instead, so the reference follows it when it is re-created`,
    );
    const code = (await generated())['checks.monitor.ts']!;
    expect(code).toContain("import { oncall } from '../monitors/alerts.monitor.js';\n");
    expect(code).toContain(`alertChannels: [oncall, AlertChannel.fromId(${String(opsId)})],`);
    expect((await run(['plan', '--detailed-exitcode'])).code).toBe(0);

    // Deleted by hand: the next apply creates the channel again, and the check follows the variable to it.
    await call('DELETE', `/v1/alert-channels/${String(oncallId)}`);
    const plan = await run(['plan']);
    expect(plan.stdout).toContain('  # alert-channel.oncall will be created (deleted outside vigil)');
    // The service dropped the subscription with the channel; the check subscribes to the new one.
    expect(plan.stdout).toContain('      + alertChannelSubscriptions[0] = {"alertChannelId":"(known after apply: alert-channel.oncall)","activated":true}\n');
    const applied = await run(['apply', '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect((await run(['plan', '--detailed-exitcode'])).code).toBe(0);
  }, 120_000);
});
