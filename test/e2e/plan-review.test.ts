/**
 * What a reviewer reads before anything is applied: fromId references checked at plan time, a
 * markdown plan that fits a pull-request comment, saved plans (`vigil show`, `plan --destroy`),
 * and the rename hint.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { targetEnv, vigil } from '../support/cli.js';

let root: string;
let server: RunningServer;
let requestLog: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-review-'));
  requestLog = path.join(root, 'requests.jsonl');
  server = await startServer({ port: 0, dataDir: ':memory:', requestLog });
  await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop' });\n");
  await mkdir(path.join(root, 'monitors'));
});

afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

const run = (args: string[]) => vigil(args, { cwd: root, env: targetEnv(server.url) });

async function monitor(text: string): Promise<void> {
  await writeFile(path.join(root, 'monitors', 'a.monitor.ts'), text);
}

async function writes(): Promise<string[]> {
  const text = await readFile(requestLog, 'utf8').catch(() => '');
  const entries = text.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { method: string; path: string });
  return entries.filter((entry) => entry.method !== 'GET').map((entry) => `${entry.method} ${entry.path}`);
}

/** `count` API checks made in a loop; `request` is their request, as code (`i` is the index). */
function manyChecks(count: number, request = '{ url: `https://example.com/${i}` }'): string {
  return [
    "import { ApiCheck } from 'vigil/constructs';",
    `for (let i = 0; i < ${count}; i += 1) {`,
    `  new ApiCheck(\`check-\${i}\`, { name: \`Check \${i}\`, tags: ['prod'], request: ${request} });`,
    '}',
  ].join('\n');
}

describe('fromId references', () => {
  it('names every missing one at its construct before anything is applied', async () => {
    const channel = await fetch(`${server.url}/v1/alert-channels`, {
      method: 'POST',
      headers: { authorization: 'Bearer vigil-local', 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'EMAIL', config: { address: 'a@example.com' } }),
    });
    const existing = ((await channel.json()) as { id: number }).id;
    await monitor(
      [
        "import { AlertChannel, ApiCheck, CheckGroup, StatusPageService } from 'vigil/constructs';",
        `new CheckGroup('fine', { name: 'Fine', alertChannels: [AlertChannel.fromId(${existing})] });`,
        "new CheckGroup('broken', { name: 'Broken', alertChannels: [AlertChannel.fromId(424242)] });",
        "new ApiCheck('home', { name: 'Home', group: CheckGroup.fromId(999), request: { url: 'https://example.com/' },",
        "  triggerIncident: { service: StatusPageService.fromId('0b6f0b4e-9a53-4c4e-9d0e-5c1f0e9a0c11'), severity: 'MAJOR', name: 'Down', description: 'x', notifySubscribers: false } });",
      ].join('\n'),
    );
    await writeFile(requestLog, '');
    for (const command of [['plan'], ['apply', '--auto-approve']]) {
      const result = await run(command);
      expect(result.code).toBe(1);
      const errors = result.stderr.split('\n').filter((line) => line.includes('  error  '));
      expect(errors).toEqual([
        'monitors/a.monitor.ts:3:1  error  fromId(424242): no alert-channel with this id exists on the service  (check-group.broken.alertChannelSubscriptions[0].alertChannelId)',
        'monitors/a.monitor.ts:4:1  error  fromId(999): no check-group with this id exists on the service  (api-check.home.groupId)',
        'monitors/a.monitor.ts:4:1  error  fromId("0b6f0b4e-9a53-4c4e-9d0e-5c1f0e9a0c11"): no status-page-service with this id exists on the service  (api-check.home.triggerIncident.serviceId)',
      ]);
      expect(result.stderr).toContain('  hint: Correct the id, or declare the check-group as a construct and pass the object itself.');
    }
    expect(await writes()).toEqual([]);
  }, 120_000);

  it('reads each referenced kind with one list call, not one GET per reference', async () => {
    await monitor(
      [
        "import { AlertChannel, CheckGroup } from 'vigil/constructs';",
        'for (let i = 0; i < 30; i += 1) new CheckGroup(`g${i}`, { name: `G${i}`, alertChannels: [AlertChannel.fromId(1000 + i)] });',
      ].join('\n'),
    );
    await writeFile(requestLog, '');
    const result = await run(['plan']);
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n').filter((line) => line.includes('no alert-channel with this id'))).toHaveLength(30);
    const entries = (await readFile(requestLog, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { method: string; path: string });
    const calls = entries.map((entry) => `${entry.method} ${entry.path.split('?')[0]}`);
    expect(calls.filter((call) => call.startsWith('GET /v1/alert-channels'))).toEqual(['GET /v1/alert-channels']);
    expect(calls.filter((call) => !call.startsWith('GET /v1/accounts')).sort()).toEqual(['GET /v1/alert-channels', 'GET /v1/check-groups']);
  });
});

describe('the markdown plan', () => {
  it('fits 300 new checks in 60,000 characters and says what it left out', async () => {
    await monitor(manyChecks(300));
    const result = await run(['plan', '--format', 'markdown', '--out', 'plan.json']);
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBeLessThanOrEqual(60_000);
    expect(result.stdout).toContain('| `api-check` | 300 |  |  |  |');
    expect(result.stdout).not.toContain('basicAuth');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^_Not shown: fields of new resources left at their defaults; \d+ of 300 resources \(to stay under 60,000 characters\)\. To see everything, run `vigil show plan\.json`\._$/,
    );
  }, 120_000);

  it('fits a plan updating 60 checks with long values', async () => {
    await monitor(manyChecks(60));
    expect((await run(['apply', '--auto-approve', '--parallelism', '20'])).code).toBe(0);
    const longer = `{ url: \`https://example.com/\${i}/${'x'.repeat(150)}\`, headers: Array.from({ length: 20 }, (_, h) => ({ key: \`x-h\${h}\`, value: '${'v'.repeat(80)}' })) }`;
    await monitor(manyChecks(60, longer));
    const result = await run(['plan', '--format', 'markdown']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('**Plan: 0 to add, 60 to change, 0 to destroy.**');
    expect(result.stdout.length).toBeLessThanOrEqual(60_000);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toMatch(/^_Not shown: \d+ of 60 resources \(to stay under 60,000 characters\)\. To see everything, run `vigil plan --out plan\.json` and `vigil show plan\.json`\._$/);
  }, 120_000);
});

describe('the text plan of new resources', () => {
  it('prints only what differs from the defaults, with aligned names', async () => {
    await monitor(
      "import { ApiCheck } from 'vigil/constructs';\nnew ApiCheck('home', { name: 'Home', request: { url: 'https://example.com/', basicAuth: { username: 'u', password: 'p' } }, maxResponseTime: 10000 });\n",
    );
    const result = await run(['plan']);
    expect(result.stdout).toContain(
      [
        '  + api-check.home',
        '      + maxResponseTime            = 10000',
        '      + name                       = "Home"',
        '      + request.basicAuth.password = (sensitive)',
        '      + request.basicAuth.username = "u"',
        '      + request.url                = "https://example.com/"',
        '',
      ].join('\n'),
    );
    expect(result.stdout).not.toContain('muted');
  });
});

describe('vigil show', () => {
  it('renders a saved plan as text (every field), markdown and JSON, offline', async () => {
    await monitor("import { CheckGroup } from 'vigil/constructs';\nnew CheckGroup('web', { name: 'Web' });\n");
    expect((await run(['plan', '--out', 'plan.json'])).code).toBe(0);
    await server.close();
    const text = await vigil(['show', 'plan.json'], { cwd: root });
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toBe(`Saved plan for project "shop" on ${server.url}, account local (state serial 0).`);
    expect(text.stdout).toContain('      + concurrency                                               = 3');
    expect(text.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
    const markdown = await vigil(['show', 'plan.json', '--format', 'markdown'], { cwd: root });
    expect(markdown.stdout).toContain('<summary><code>+ check-group.web</code> will be created</summary>');
    const json = await vigil(['show', 'plan.json', '--json'], { cwd: root });
    expect(json.stdout).toBe(await readFile(path.join(root, 'plan.json'), 'utf8'));
    server = await startServer({ port: 0, dataDir: ':memory:' });
  }, 120_000);

  it('prints a hand-edited plan without the control characters put into it', async () => {
    await monitor("import { CheckGroup } from 'vigil/constructs';\nnew CheckGroup('web', { name: 'Web' });\n");
    expect((await run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const saved = JSON.parse(await readFile(path.join(root, 'plan.json'), 'utf8')) as { project: string; changes: Array<{ address: string }> };
    saved.project = 'shop\u001b[2J';
    saved.changes[0]!.address = 'check-group.web\u001b]0;pwned\u0007';
    await writeFile(path.join(root, 'plan.json'), JSON.stringify(saved));
    const shown = await vigil(['show', 'plan.json'], { cwd: root });
    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(shown.stdout).toContain('Saved plan for project "shop?[2J"');
    expect(shown.stdout).toContain('  + check-group.web?]0;pwned?');
  }, 60_000);

  it('says so when the plan cannot be saved where --out points', async () => {
    await monitor("import { CheckGroup } from 'vigil/constructs';\nnew CheckGroup('web', { name: 'Web' });\n");
    const result = await run(['plan', '--out', 'missing-dir/plan.json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('Error: cannot save the plan to missing-dir/plan.json: its directory does not exist\n');
  }, 60_000);

  it.each([
    ['a missing file', undefined, 'Error: cannot read the saved plan plan.json: no such file'],
    ['a file that is not JSON', '{"formatVersion": 1,', 'Error: plan.json is not a saved plan: it is not JSON'],
    ['a state file', '{"version": 1, "lineage": "x", "serial": 1, "resources": {}}', 'Error: plan.json is a vigil state file, not a saved plan; make one with: vigil plan --out FILE'],
    ['a newer plan format', '{"formatVersion": 2, "changes": []}', 'Error: plan.json is a plan of formatVersion 2, and this vigil reads formatVersion 1; make it again with this version'],
    ['a damaged plan', '{"formatVersion": 1, "changes": [], "project": "shop"}', 'Error: plan.json is a damaged saved plan (formatVersion 1): target: Invalid input: expected object, received undefined; make one with: vigil plan --out FILE'],
    ['another JSON file', '{"name": "my-package"}', 'Error: plan.json is not a saved plan: a vigil plan is a JSON object with formatVersion and changes; make one with: vigil plan --out FILE'],
  ])('refuses %s with exit 1', async (_name, content, message) => {
    if (content !== undefined) await writeFile(path.join(root, 'plan.json'), content);
    const result = await vigil(['show', 'plan.json'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr.startsWith(message)).toBe(true);
    expect(result.stdout).toBe('');
  });
});

describe('a reviewable destroy plan', () => {
  it('is saved by plan --destroy --out and executed by apply FILE, unless it is stale', async () => {
    await monitor("import { ApiCheck, CheckGroup } from 'vigil/constructs';\nconst web = new CheckGroup('web', { name: 'Web' });\nnew ApiCheck('home', { name: 'Home', group: web, request: { url: 'https://example.com/' } });\n");
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    const planned = await run(['plan', '--destroy', '--out', 'destroy.json']);
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain('Plan: 0 to add, 0 to change, 2 to destroy.');
    expect(planned.stdout).toContain('Saved the destroy plan to destroy.json; review it with: vigil show destroy.json; apply exactly it with: vigil apply destroy.json');
    const serial = (JSON.parse(await readFile(path.join(root, 'destroy.json'), 'utf8')) as { state: { serial: number } }).state.serial;
    const shown = await run(['show', 'destroy.json']);
    expect(shown.stdout.split('\n')[0]).toBe(`Saved destroy plan for project "shop" on ${server.url}, account local (state serial ${serial}).`);

    await monitor("import { CheckGroup } from 'vigil/constructs';\nnew CheckGroup('web', { name: 'Web', tags: ['changed'] });\nnew CheckGroup('extra', { name: 'Extra' });\n");
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    const stale = await run(['apply', 'destroy.json']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(`Error: saved plan is stale: the state changed since it was made (serial ${serial} then, `);
    expect(stale.stderr).toContain('Run vigil plan --destroy --out destroy.json again and review it.');

    expect((await run(['plan', '--destroy', '--out', 'destroy.json'])).code).toBe(0);
    const destroyed = await run(['apply', 'destroy.json']);
    expect(destroyed.stderr).toBe('');
    expect(destroyed.code).toBe(0);
    expect(destroyed.stdout).toContain('Destroy complete! Resources: 2 destroyed.');
    const state = JSON.parse(await readFile(path.join(root, '.vigil/state.json'), 'utf8')) as { resources: object };
    expect(state.resources).toEqual({});
  }, 120_000);
});

describe('a saved plan made with --target', () => {
  it('is applied with its own targets, and refuses another --target', async () => {
    await monitor("import { CheckGroup } from 'vigil/constructs';\nnew CheckGroup('web', { name: 'Web' });\nnew CheckGroup('other', { name: 'Other' });\n");
    expect((await run(['plan', '--target', 'check-group.web', '--out', 'web.json'])).code).toBe(0);
    const shown = await run(['show', 'web.json']);
    expect(shown.stdout.split('\n')[0]).toBe(`Saved plan for project "shop" on ${server.url}, account local (state serial 0, limited to --target check-group.web).`);
    const refused = await run(['apply', 'web.json', '--target', 'check-group.other']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe('Error: --target cannot be combined with a saved plan: web.json is applied with the targets it was made with\n');
    const applied = await run(['apply', 'web.json']);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
  }, 120_000);
});

describe('a renamed logical id', () => {
  it('hints at the exact vigil state mv that keeps the remote resource', async () => {
    await monitor("import { ApiCheck } from 'vigil/constructs';\nnew ApiCheck('home', { name: 'Home', request: { url: 'https://example.com/' } });\n");
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    await monitor("import { ApiCheck } from 'vigil/constructs';\nnew ApiCheck('home-page', { name: 'Home', request: { url: 'https://example.com/' } });\n");
    const state = JSON.parse(await readFile(path.join(root, '.vigil/state.json'), 'utf8')) as { resources: Record<string, { remoteId: string }> };
    const id = state.resources['api-check.home']!.remoteId;
    const plan = await run(['plan']);
    expect(plan.stdout).toContain(
      [
        'Warning: api-check.home would be destroyed and api-check.home-page created, both named "Home": was the logical id renamed?',
        `  To keep the existing resource (id ${id}) under its new id, run: vigil state mv api-check.home api-check.home-page`,
      ].join('\n'),
    );
    expect((await run(['state', 'mv', 'api-check.home', 'api-check.home-page'])).code).toBe(0);
    const after = await run(['plan', '--detailed-exitcode']);
    expect(after.stdout).toBe('No changes. Your monitoring matches the code.\n');
    expect(after.code).toBe(0);
  }, 120_000);
});
