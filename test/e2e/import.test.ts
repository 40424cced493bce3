import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServer, type RunningServer } from '@vigil/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, targetEnv, vigil } from '../support/cli.js';

let root: string;
let server: RunningServer;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-import-'));
  server = await startServer({ port: 0, dataDir: ':memory:' });
  await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop' });\n");
  // A project before its first import: a monitor file that declares nothing (a checkMatch that
  // matches no file at all draws a warning, which is not what these tests are about).
  await mkdir(path.join(root, 'monitors'));
  await writeFile(path.join(root, 'monitors', 'empty.monitor.ts'), 'export {};\n');
});

afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

/** Creates a resource the way a colleague clicking in the UI would: raw HTTP, no vigil involved. */
async function create(route: string, body: unknown): Promise<{ id: number | string }> {
  const response = await fetch(`${server.url}${route}`, {
    method: 'POST',
    headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { id: number | string };
  if (!response.ok) throw new Error(`${route}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

const SECRETS = { HOOK_WEBHOOK_SECRET: 'hook-secret', PAGER_SERVICE_KEY: 'pd-key', GENIE_API_KEY: 'og-key', HOME_2_BASIC_AUTH_PASSWORD: 'pw', CHECKOUT_TOKEN: 'tok', PAYMENTS_BASIC_AUTH_PASSWORD: 'gpw', PAYMENTS_GROUP_TOKEN: 'gtok' };

const run = (args: string[], env: Record<string, string> = {}) => vigil(args, { cwd: root, env: targetEnv(server.url, env) });

/** Every kind, with the props that need builders, references and secrets. */
async function seedMixedAccount(): Promise<void> {
  const oncall = await create('/v1/alert-channels', { type: 'EMAIL', config: { address: 'oncall@example.com' } });
  const hook = await create('/v1/alert-channels', { type: 'WEBHOOK', config: { name: 'Hook', url: 'https://hooks.example.com/x', webhookSecret: 'hook-secret' }, sendDegraded: true });
  await create('/v1/alert-channels', { type: 'SLACK', config: { url: 'https://hooks.slack.com/services/x', channel: '#ops' } });
  await create('/v1/alert-channels', { type: 'SMS', config: { name: 'Phone', number: '+15550100' } });
  await create('/v1/alert-channels', { type: 'CALL', config: { name: 'Call', number: '+15550101' }, sendRecovery: false });
  await create('/v1/alert-channels', { type: 'PAGERDUTY', config: { serviceKey: 'pd-key', serviceName: 'Pager' } });
  await create('/v1/alert-channels', { type: 'OPSGENIE', config: { name: 'Genie', apiKey: 'og-key', region: 'EU', priority: 'P2' }, sslExpiry: true, sslExpiryThreshold: 14 });
  const service = await create('/v1/status-pages/services', { name: 'Payments' });
  const group = await create('/v2/check-groups', {
    name: 'Payments',
    tags: ['pay'],
    locations: ['eu-west-1'],
    concurrency: 5,
    apiCheckDefaults: { url: 'https://pay.example.com', basicAuth: { username: 'svc', password: 'gpw' }, assertions: [{ source: 'STATUS_CODE', comparison: 'LESS_THAN', target: '500' }] },
    environmentVariables: [{ key: 'GROUP_TOKEN', value: 'gtok', secret: true }, { key: 'REGION', value: 'eu', locked: true }],
    alertChannelSubscriptions: [{ alertChannelId: oncall.id, activated: true }],
    useGlobalAlertSettings: false,
    alertSettings: { escalationType: 'TIME_BASED', timeBasedEscalation: { minutesFailingThreshold: 10 }, reminders: { amount: 2, interval: 10 } },
    retryStrategy: { type: 'FIXED', baseBackoffSeconds: 30 },
  });
  const query = '?autoAssignAlerts=false';
  await create(`/v1/checks/api${query}`, { name: 'Home', frequency: 5, tags: ['web'], request: { url: 'https://example.com/', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }, { source: 'JSON_BODY', property: '$.ok', comparison: 'EQUALS', target: 'true' }] } });
  await create(`/v1/checks/api${query}`, { name: 'Home', frequency: 0, frequencyOffset: 20, request: { url: 'https://example.com/2', method: 'POST', headers: [{ key: 'X-Env', value: 'prod' }], basicAuth: { username: 'u', password: 'pw' } } });
  await create(`/v1/checks/api${query}`, {
    name: 'Pay',
    groupId: group.id,
    groupOrder: 1,
    locations: ['eu-west-1', 'us-east-1'],
    muted: true,
    useGlobalAlertSettings: false,
    alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 2 } },
    // What RetryStrategyBuilder.noRetries() sends: without doubleCheck: false the service retries once.
    retryStrategy: null,
    doubleCheck: false,
    alertChannelSubscriptions: [{ alertChannelId: hook.id, activated: true }],
    triggerIncident: { serviceId: service.id, severity: 'MAJOR', name: 'Payments down', notifySubscribers: true },
    degradedResponseTime: 3000,
    request: { url: 'https://example.com/pay', assertions: [{ source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '800' }] },
  });
  // The group's own locations and retry strategy, set on the check too: a group passes its checks
  // neither, so the code must write them or the next plan would reset them.
  await create(`/v1/checks/api${query}`, {
    name: 'Refunds',
    groupId: group.id,
    locations: ['eu-west-1'],
    retryStrategy: { type: 'FIXED', baseBackoffSeconds: 30 },
    request: { url: 'https://example.com/refunds' },
  });
  await create(`/v1/checks/multistep${query}`, {
    name: 'Checkout',
    frequency: 15,
    retryStrategy: { type: 'EXPONENTIAL', maxRetries: 4 },
    script: "import { test } from '@playwright/test';\ntest('buys', async () => {});\n",
    environmentVariables: [{ key: 'TOKEN', value: 'tok', secret: true }, { key: 'PLAIN', value: 'x' }],
  });
  await create('/v1/maintenance-windows', { name: 'Weekly deploy', startsAt: '2026-01-01T00:00:00.000Z', endsAt: '2026-01-01T02:00:00.000Z', repeatUnit: 'WEEK', repeatInterval: 1, tags: ['pay'] });
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

async function generated(directory = path.join(root, 'imported')): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of (await readdir(directory)).sort()) files[name] = (await readFile(path.join(directory, name), 'utf8')).replace(UUID, '<uuid>');
  return files;
}

/** One resource of each kind, created by hand, each with some non-default props. */
const ONE_OF_EACH_KIND: ReadonlyArray<readonly [string, string, unknown]> = [
  ['api-check', '/v1/checks/api?autoAssignAlerts=false', { name: 'Status', frequency: 1, shouldFail: true, request: { url: 'https://example.com/status', followRedirects: false } }],
  ['multistep-check', '/v1/checks/multistep?autoAssignAlerts=false', { name: 'Flow', frequency: 30, runtimeId: '2024.09', script: 'await run();' }],
  ['browser-check', '/v1/checks/browser?autoAssignAlerts=false', { name: 'Storefront', frequency: 5, script: "test('home', async ({ page }) => {});", sslCheckDomain: 'shop.example.com', playwrightConfig: { timeout: 5000 } }],
  ['check-group', '/v2/check-groups?autoAssignAlerts=false', { name: 'Edge', muted: true, runParallel: true, locations: ['us-east-1'] }],
  ['alert-channel', '/v1/alert-channels', { type: 'SLACK', config: { url: 'https://hooks.slack.com/services/y' }, sendDegraded: true }],
  ['maintenance-window', '/v1/maintenance-windows', { name: 'Nightly', startsAt: '2026-02-01T01:00:00.000Z', endsAt: '2026-02-01T01:30:00.000Z', repeatUnit: 'DAY' }],
  ['status-page-service', '/v1/status-pages/services', { name: 'Search' }],
];

describe('vigil import of each kind', () => {
  it.each(ONE_OF_EACH_KIND)('adopts one %s and the next plan has no changes', async (kind, route, body) => {
    await create(route, body);
    const imported = await run(['import']);
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toContain('Adopted 1 resource:');
    expect(imported.stdout).toContain(`  ${kind}.`);
    const plan = await run(['plan']);
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('No changes.');
  }, 120_000);
});

describe('vigil import', () => {
  it('adopts a mixed account created by hand as idiomatic code, and the next plan has no changes', async () => {
    await seedMixedAccount();
    const imported = await run(['import'], SECRETS);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('Adopted 15 resources:');
    expect(imported.stdout).toContain('  CHECKOUT_TOKEN  (multistep-check.checkout environmentVariables[0].value; the service does not return it; use the real value)');

    const files = await generated();
    expect(Object.keys(files)).toEqual(['alert-channels.monitor.ts', 'checks.monitor.ts', 'maintenance-windows.monitor.ts', 'payments.monitor.ts', 'status-page-services.monitor.ts']);
    for (const [name, text] of Object.entries(files)) await expect(text).toMatchFileSnapshot(`__snapshots__/import/${name}`);

    const plan = await run(['plan', '--detailed-exitcode'], SECRETS);
    // The check was given its own escalation inside a group that sets one: the code keeps what the
    // service holds, and validation says the group's is the one that applies.
    expect(plan.stderr).toBe(
      'imported/payments.monitor.ts:27:1  warning  is not used: the check\'s group "Payments" applies its own alertEscalationPolicy to every check in it  (api-check.pay.alertEscalationPolicy)\n' +
        "  hint: remove it here, or remove the group's alertEscalationPolicy so that each check keeps its own\n",
    );
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  }, 120_000);

  it('writes files that pass tsc --noEmit with the package constructs entry mapped to the CLI entry', async () => {
    await seedMixedAccount();
    expect((await run(['import'], SECRETS)).code).toBe(0);
    await writeFile(
      path.join(root, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true, noEmit: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', noUncheckedIndexedAccess: true,
          verbatimModuleSyntax: true, skipLibCheck: true, types: ['node'], typeRoots: [path.join(REPO_ROOT, 'node_modules/@types')],
          baseUrl: '.', paths: { '@vigil-mon/cli/constructs': [path.join(REPO_ROOT, 'packages/cli/src/constructs.ts')] },
        },
        include: ['imported/*.ts'],
      }),
    );
    const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    const result = await promisify(execFile)(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { cwd: root }).then(
      () => ({ code: 0, output: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
    );
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  }, 120_000);

  it('adopts nothing new when run again', async () => {
    await seedMixedAccount();
    expect((await run(['import'], SECRETS)).code).toBe(0);
    const before = await generated();
    const again = await run(['import'], SECRETS);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Nothing to import: every resource on the service is already managed by this project.');
    expect(await generated()).toEqual(before);
  }, 120_000);

  it('says so when a filter matches nothing, and writes nothing', async () => {
    await create('/v1/status-pages/services', { name: 'Payments' });
    const result = await run(['import', 'api-check', '--name', '^Pay']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Nothing to import: no unmanaged resource matches api-check --name ^Pay.');
    await expect(readdir(path.join(root, 'imported'))).rejects.toThrow(/ENOENT/);
  });

  it.each([
    [['bogus'], 'Error: unknown kind "bogus" in filter "bogus"; kinds are alert-channel, api-check, browser-check, check-group, dashboard, dns-monitor, grpc-monitor, heartbeat-monitor, icmp-monitor, maintenance-window, multistep-check, playwright-check, private-location, ssl-monitor, status-page, status-page-service, tcp-monitor, traceroute-monitor, url-monitor'],
    [['api-check.'], 'Error: filter "api-check." has no remote id after the dot; write api-check or api-check.<id>'],
    [['--name', '('], 'Error: --name "(" is not a valid regular expression: Invalid regular expression: /(/: Unterminated group'],
  ])('rejects the bad input %j with exit code 2', async (args, message) => {
    const result = await run(['import', ...args]);
    expect(result.stderr.trim()).toBe(message);
    expect(result.code).toBe(2);
  });

  it('imports only what the filters select: one resource by id, a kind, a tag', async () => {
    const service = await create('/v1/status-pages/services', { name: 'Payments' });
    await create('/v1/status-pages/services', { name: 'Search' });
    await create('/v1/maintenance-windows', { name: 'Tagged', startsAt: '2026-01-01T00:00:00.000Z', endsAt: '2026-01-01T02:00:00.000Z', repeatUnit: 'DAY', tags: ['ops'] });
    await create('/v1/maintenance-windows', { name: 'Untagged', startsAt: '2026-01-01T00:00:00.000Z', endsAt: '2026-01-01T02:00:00.000Z', repeatUnit: 'DAY' });

    const one = await run(['import', `status-page-service.${String(service.id)}`]);
    expect(one.stdout).toContain('Adopted 1 resource:');
    expect(one.stdout).toContain('  status-page-service.payments ← ');
    const tagged = await run(['import', '--tag', 'ops']);
    expect(tagged.stdout).toContain('Adopted 1 resource:');
    expect(tagged.stdout).toContain('  maintenance-window.tagged ← ');
    const rest = await run(['import', 'status-page-service']);
    expect(rest.stdout).toContain('  status-page-service.search ← ');
    expect(Object.keys(await generated())).toEqual(['maintenance-windows.monitor.ts', 'status-page-services-2.monitor.ts', 'status-page-services.monitor.ts']);
    expect((await run(['plan'])).stdout).toContain('No changes.');
  }, 120_000);

  it('gives name collisions distinct logical ids, also distinct from the ones in the project', async () => {
    await writeFile(path.join(root, 'monitors/home.monitor.ts'), "import { ApiCheck } from 'vigil/constructs';\nnew ApiCheck('home', { name: 'Home (ours)', request: { url: 'https://example.com/ours' } });\n");
    for (const url of ['https://example.com/a', 'https://example.com/b']) await create('/v1/checks/api?autoAssignAlerts=false', { name: 'Home', request: { url } });
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);

    const result = await run(['import']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/api-check\.home-2 ← api-check \S+ "Home"/);
    expect(result.stdout).toMatch(/api-check\.home-3 ← api-check \S+ "Home"/);
    expect((await run(['plan'])).stdout).toContain('No changes.');
  }, 120_000);

  it('refers with fromId to a group the project already manages and to an alert channel it does not import', async () => {
    const oncall = await create('/v1/alert-channels', { type: 'EMAIL', config: { address: 'oncall@example.com' } });
    const group = await create('/v2/check-groups', { name: 'Web' });
    await create('/v1/checks/api?autoAssignAlerts=false', { name: 'Home', groupId: group.id, alertChannelSubscriptions: [{ alertChannelId: oncall.id }], request: { url: 'https://example.com/' } });

    expect((await run(['import', 'check-group'])).code).toBe(0);
    expect((await run(['import', 'api-check'])).code).toBe(0);
    const checks = (await generated())['checks.monitor.ts'];
    expect(checks).toContain(`group: CheckGroup.fromId(${String(group.id)}),`);
    expect(checks).toContain(`alertChannels: [AlertChannel.fromId(${String(oncall.id)})],`);
    expect((await run(['plan'])).stdout).toContain('No changes.');
  }, 120_000);

  it('records applied state that tells a later change made outside vigil as drift', async () => {
    const check = await create('/v1/checks/api?autoAssignAlerts=false', { name: 'Home', frequency: 5, request: { url: 'https://example.com/' } });
    expect((await run(['import'])).code).toBe(0);
    const changed = await fetch(`${server.url}/v1/checks/api/${String(check.id)}?autoAssignAlerts=false`, {
      method: 'PUT',
      headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
      body: JSON.stringify({ frequency: 30 }),
    });
    expect(changed.status).toBe(200);
    const plan = JSON.parse((await run(['plan', '--json'])).stdout) as { changes: Array<{ address: string; action: string; reason: string; drift: unknown[] }> };
    expect(plan.changes).toEqual([expect.objectContaining({ address: 'api-check.home', action: 'update', reason: 'drift', drift: [{ path: 'frequency', before: 30, after: 5 }] })]);
  }, 120_000);

  it('prints the files and resources on --dry-run and writes neither files nor state', async () => {
    await create('/v1/status-pages/services', { name: 'Payments' });
    const result = await run(['import', '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`--- ${path.join('imported', 'status-page-services.monitor.ts')} (would be written)`);
    expect(result.stdout).toContain("export const paymentsService = new StatusPageService('payments', { name: 'Payments' });");
    expect(result.stdout).toContain('Would adopt 1 resource:');
    expect(result.stdout).toContain('Dry run: nothing was written.');
    await expect(readdir(path.join(root, 'imported'))).rejects.toThrow(/ENOENT/);
    await expect(readFile(path.join(root, '.vigil/state.json'))).rejects.toThrow(/ENOENT/);
  });

  it('records a secret the service hides as unknown when its variable is unset, so the next plan offers to set it', async () => {
    await create('/v1/checks/multistep?autoAssignAlerts=false', { name: 'Checkout', script: 'run()', environmentVariables: [{ key: 'TOKEN', value: 'tok', secret: true }] });
    expect((await run(['import'])).code).toBe(0);
    const plan = await run(['plan'], { CHECKOUT_TOKEN: 'tok' });
    expect(plan.stdout).toContain('~ environmentVariables[0].value = null → (sensitive)');
    expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
  });

  it('refuses an --out directory the project would not load, writing nothing', async () => {
    await create('/v1/status-pages/services', { name: 'Payments' });
    const result = await run(['import', '--out', path.join(root, '..', `${path.basename(root)}-elsewhere`)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is outside the project root');
    await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop', checks: { checkMatch: 'monitors/**/*.monitor.ts' } });\n");
    const unmatched = await run(['import']);
    expect(unmatched.stderr.trim()).toBe(
      "Error: the project's checks.checkMatch does not load imported/status-page-services.monitor.ts, so the next plan would delete what import adopts. Add 'imported/*.monitor.ts' to checks.checkMatch in vigil.config.ts (or choose another --out), then run import again. Nothing was written.",
    );
    await expect(readFile(path.join(root, '.vigil/state.json'))).rejects.toThrow(/ENOENT/);
  });
});

describe('vigil import of resources with hostile names', () => {
  it('writes the name into code as inert text, prints it escaped, and the project loads with the exact name', async () => {
    const name = "evil\nrequire('fs').writeFileSync('pwned.txt','x');//\u001b[2J\u2028";
    await create('/v1/status-pages/services', { name });
    const imported = await run(['import']);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect(imported.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u2028]/);
    expect(imported.stdout).toContain(`"evil\\nrequire('fs').writeFileSync('pwned.txt','x');//\\u001b[2J\\u2028" (status-page-services.monitor.ts)`);

    const synth = await run(['synth', '--json']);
    expect(synth.stderr).toBe('');
    await expect(readdir(root)).resolves.not.toContain('pwned.txt');
    expect(synth.stdout).toContain(JSON.stringify(name).slice(1, -1));
    const plan = await run(['plan', '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  }, 120_000);
});

describe('vigil import when the files cannot be written', () => {
  it('says which path failed and why, exit 1, and leaves state untouched', async () => {
    await create('/v1/status-pages/services', { name: 'Payments' });
    await writeFile(path.join(root, 'imported'), 'a file where the directory goes\n');
    const imported = await run(['import']);
    expect(imported.stderr).toBe('Error: cannot write into imported: it is a file, not a directory. Choose another --out; nothing was written.\n');
    expect(imported.code).toBe(1);
    await expect(readFile(path.join(root, '.vigil', 'state.json'), 'utf8')).rejects.toThrow(/ENOENT/);
  }, 120_000);
});
