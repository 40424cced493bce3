import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VIGIL_BIN, targetEnv, vigil } from '../support/cli.js';

let root: string;
let server: RunningServer;
let requestLog: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-apply-'));
  requestLog = path.join(root, 'requests.jsonl');
  server = await startServer({ port: 0, dataDir: ':memory:', requestLog });
  await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop' });\n");
  await mkdir(path.join(root, 'monitors'));
});

afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

async function monitors(files: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(root, 'monitors', name), text);
}

const run = (args: string[], env: Record<string, string> = {}) => vigil(args, { cwd: root, env: targetEnv(server.url, env) });

/**
 * Runs `vigil apply` on a pseudo-terminal (util-linux `script`), calls `meanwhile` once the
 * confirmation prompt shows, then answers "yes": the plan is made, then the world changes.
 */
function applyOnTerminal(meanwhile: () => Promise<void>): Promise<{ code: number | null; output: string }> {
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(VIGIL_BIN)} apply`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: root, env: { ...process.env, ...targetEnv(server.url), CI: '', NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let answered = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    if (!answered && output.includes('Enter a value (yes/no):')) {
      answered = true;
      void meanwhile().then(() => child.stdin.write('yes\r'));
    }
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

async function writes(): Promise<Array<{ method: string; path: string }>> {
  const lines = (await readFile(requestLog, 'utf8')).trim().split('\n');
  return lines.map((line) => JSON.parse(line) as { method: string; path: string }).filter((entry) => entry.method !== 'GET');
}

const SHOP = {
  'shared.ts': [
    "import { CheckGroup, EmailAlertChannel, StatusPageService } from 'vigil/constructs';",
    "export const oncall = new EmailAlertChannel('oncall', { address: 'oncall@example.com' });",
    "export const payments = new StatusPageService('payments', { name: 'Payments' });",
    "export const web = new CheckGroup('web', { name: 'Web', alertChannels: [oncall] });",
  ].join('\n'),
  'web.monitor.ts': [
    "import { ApiCheck, AssertionBuilder } from 'vigil/constructs';",
    "import { oncall, payments, web } from './shared';",
    "new ApiCheck('home', { name: 'Home', group: web, request: { url: 'https://example.com/' } });",
    "new ApiCheck('pay', { name: 'Pay', group: web, alertChannels: [oncall],",
    "  triggerIncident: { service: payments, severity: 'MAJOR', name: 'Payments down', description: 'x', notifySubscribers: false },",
    "  request: { url: 'https://example.com/pay', assertions: [AssertionBuilder.statusCode().equals(200)] } });",
  ].join('\n'),
};

describe('vigil apply', () => {
  it('creates what it references first, then plans no changes', async () => {
    await monitors(SHOP);
    const applied = await run(['apply', '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Resources: 5 added, 0 changed, 0 destroyed.');

    const order = (await writes()).map((entry) => `${entry.method} ${entry.path}`);
    const firstCheck = order.findIndex((line) => line.startsWith('POST /v1/checks'));
    expect(order.slice(0, firstCheck).sort()).toEqual(['POST /v1/alert-channels', 'POST /v1/status-pages/services', 'POST /v2/check-groups'].sort());
    expect(order.slice(firstCheck)).toEqual(['POST /v1/checks/api', 'POST /v1/checks/api']);

    const plan = await run(['plan', '--detailed-exitcode']);
    expect(plan.stdout).toBe('No changes. Your monitoring matches the code.\n');
    expect(plan.code).toBe(0);
  }, 60_000);

  it('deletes checks before the group that holds them', async () => {
    await monitors(SHOP);
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    await writeFile(requestLog, '');
    await rm(path.join(root, 'monitors', 'web.monitor.ts'));
    await writeFile(path.join(root, 'monitors', 'shared.ts'), "export {};\n");
    const applied = await run(['apply', '--auto-approve', '--allow-empty']);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Resources: 0 added, 0 changed, 5 destroyed.');
    const deletes = (await writes()).map((entry) => entry.path.split('/').slice(0, -1).join('/'));
    const lastCheck = deletes.lastIndexOf('/v1/checks');
    expect(deletes.indexOf('/v1/check-groups')).toBeGreaterThan(lastCheck);
    expect(deletes.indexOf('/v1/status-pages/services')).toBeGreaterThan(lastCheck);
  }, 60_000);

  it('moves a check to a new group before deleting the old group', async () => {
    await monitors({
      'a.monitor.ts': [
        "import { ApiCheck, CheckGroup } from 'vigil/constructs';",
        "const old = new CheckGroup('old', { name: 'Old' });",
        "new ApiCheck('home', { name: 'Home', group: old, request: { url: 'https://example.com/' } });",
      ].join('\n'),
    });
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    await writeFile(requestLog, '');
    await monitors({
      'a.monitor.ts': [
        "import { ApiCheck, CheckGroup } from 'vigil/constructs';",
        "const next = new CheckGroup('next', { name: 'Next' });",
        "new ApiCheck('home', { name: 'Home', group: next, request: { url: 'https://example.com/' } });",
      ].join('\n'),
    });
    const applied = await run(['apply', '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('Apply complete! Resources: 1 added, 1 changed, 1 destroyed.');
    const order = (await writes()).map((entry) => `${entry.method} ${entry.path.split('/').slice(0, 3).join('/')}`);
    expect(order).toEqual(['POST /v2/check-groups', 'PUT /v1/checks', 'DELETE /v1/check-groups']);
  }, 60_000);

  it('applies everything independent of a resource the service rejects and reports the root cause once', async () => {
    // Plan checks fromId references, so the channel exists when the plan is made; it is deleted by
    // hand while the confirmation prompt waits, and the service then refuses the group that uses it.
    const response = await fetch(`${server.url}/v1/alert-channels`, {
      method: 'POST',
      headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'EMAIL', config: { address: 'gone@example.com' } }),
    });
    const channelId = ((await response.json()) as { id: number }).id;
    await monitors({
      'a.monitor.ts': [
        "import { AlertChannel, ApiCheck, CheckGroup } from 'vigil/constructs';",
        `const broken = new CheckGroup('broken', { name: 'Broken', alertChannels: [AlertChannel.fromId(${channelId})] });`,
        "const fine = new CheckGroup('fine', { name: 'Fine' });",
        "new ApiCheck('inside-broken', { name: 'A', group: broken, request: { url: 'https://example.com/a' } });",
        "new ApiCheck('inside-fine', { name: 'B', group: fine, request: { url: 'https://example.com/b' } });",
      ].join('\n'),
    });
    const applied = await applyOnTerminal(async () => {
      await fetch(`${server.url}/v1/alert-channels/${channelId}`, { method: 'DELETE', headers: { authorization: 'Bearer vigil-local' } });
    });
    expect(applied.code).toBe(1);
    expect(applied.output).toContain('Apply failed with 1 error:');
    expect(applied.output).toContain('check-group.broken (create): [POST] "/v2/check-groups": 400 Bad Request');
    expect(applied.output.match(new RegExp(`references alert channel ${channelId}`, 'g'))).toHaveLength(1);
    expect(applied.output).toContain('Skipped because something they depend on failed: api-check.inside-broken');
    expect(applied.output).toContain('Resources: 2 added, 0 changed, 0 destroyed.');
    const plan = await run(['plan']);
    expect(plan.stdout).toContain('# check-group.broken will be created');
    expect(plan.stdout).toContain('# api-check.inside-broken will be created');
    expect(plan.stdout).not.toContain('inside-fine');
    expect(plan.stderr).toContain(`error  fromId(${channelId}): no alert-channel with this id exists on the service  (check-group.broken.alertChannelSubscriptions[0].alertChannelId)`);
    expect(plan.code).toBe(1);
  }, 120_000);

  it('refuses to apply under CI without --auto-approve', async () => {
    await monitors(SHOP);
    const applied = await run(['apply']);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain('Error: refusing to apply without confirmation: CI=true.');
    expect((await writes()).length).toBe(0);
  }, 60_000);

  it('applies a saved plan only while it is still what would be done', async () => {
    await monitors(SHOP);
    expect((await run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const saved = await readFile(path.join(root, 'plan.json'), 'utf8');
    expect(saved).not.toContain('oncall@example.com'.replace('oncall', 'secret'));
    await monitors({ 'extra.monitor.ts': "import { CheckGroup } from 'vigil/constructs';\nnew CheckGroup('extra', { name: 'Extra' });\n" });
    const stale = await run(['apply', 'plan.json']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('Error: saved plan is stale: check-group.extra would now be planned differently.');
    await rm(path.join(root, 'monitors', 'extra.monitor.ts'));
    const applied = await run(['apply', 'plan.json']);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Resources: 5 added, 0 changed, 0 destroyed.');
  }, 60_000);

  it('destroys everything in reverse dependency order', async () => {
    await monitors(SHOP);
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    const destroyed = await run(['destroy', '--auto-approve']);
    expect(destroyed.code).toBe(0);
    expect(destroyed.stdout).toContain('Destroy complete! Resources: 5 destroyed.');
    const state = JSON.parse(await readFile(path.join(root, '.vigil/state.json'), 'utf8')) as { resources: object; journal: unknown[] };
    expect(state.resources).toEqual({});
    expect(state.journal).toEqual([]);
  }, 60_000);

  it('refuses to destroy a protected resource and names it', async () => {
    await monitors({ 'a.monitor.ts': "import { CheckGroup } from 'vigil/constructs';\nnew CheckGroup('prod', { name: 'Prod', protect: true });\n" });
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    const destroyed = await run(['destroy', '--auto-approve']);
    expect(destroyed.code).toBe(1);
    expect(destroyed.stderr).toContain('check-group.prod is protected, but this plan would delete it');
    await writeFile(path.join(root, 'monitors', 'a.monitor.ts'), 'export {};\n');
    const removed = await run(['apply', '--auto-approve', '--allow-empty']);
    expect(removed.code).toBe(1);
    expect(removed.stderr).toContain('check-group.prod is protected, but this plan would delete it');
  }, 60_000);

  it('names the checks that keep a group from being deleted (409)', async () => {
    await monitors({ 'a.monitor.ts': "import { CheckGroup } from 'vigil/constructs';\nnew CheckGroup('web', { name: 'Web' });\n" });
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    const state = JSON.parse(await readFile(path.join(root, '.vigil/state.json'), 'utf8')) as { resources: Record<string, { remoteId: number }> };
    const groupId = state.resources['check-group.web']!.remoteId;
    const created = await fetch(`${server.url}/v1/checks/api?autoAssignAlerts=false`, {
      method: 'POST',
      headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Made by hand', groupId, request: { url: 'https://example.com/hand' } }),
    });
    const handMade = (await created.json()) as { id: string };
    await writeFile(path.join(root, 'monitors', 'a.monitor.ts'), 'export {};\n');
    const applied = await run(['apply', '--auto-approve', '--allow-empty']);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain(`check-group.web (delete): [DELETE] "/v1/check-groups/${groupId}": 409 Conflict`);
    expect(applied.stderr).toContain(`still holds checks: ${handMade.id}`);
  }, 60_000);
});
