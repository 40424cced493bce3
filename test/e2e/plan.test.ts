import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { planSchema } from '@vigil/engine';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetEnv, vigil } from '../support/cli.js';

let root: string;
let server: RunningServer;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-plan-'));
  server = await startServer({ port: 0, dataDir: ':memory:' });
  await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop' });\n");
  await mkdir(path.join(root, 'monitors'));
  await writeFile(
    path.join(root, 'monitors', 'a.monitor.ts'),
    [
      "import { ApiCheck, CheckGroup, MultiStepCheck } from 'vigil/constructs';",
      "const web = new CheckGroup('web', { name: 'Web' });",
      "new ApiCheck('home', { name: 'Home', group: web, request: { url: 'https://example.com/' } });",
      "new CheckGroup('other', { name: 'Other' });",
      "new MultiStepCheck('flow', { name: 'Flow', code: { content: 'run()' }, environmentVariables: [{ key: 'TOKEN', value: 'hunter2', secret: true }] });",
    ].join('\n'),
  );
});

afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

const run = (args: string[], env?: Record<string, string>) => vigil(args, { cwd: root, env: env ?? targetEnv(server.url) });

describe('vigil plan', () => {
  it('prints a text plan with a summary and exits 2 with --detailed-exitcode', async () => {
    const result = await run(['plan', '--detailed-exitcode']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('  # api-check.home will be created');
    expect(result.stdout).toContain('      + groupId     = (known after apply: check-group.web)');
    expect(result.stdout).toContain('      + environmentVariables[0].value  = (sensitive)');
    expect(result.stdout).toContain('Plan: 4 to add, 0 to change, 0 to destroy.');
    expect(result.stdout).not.toContain('hunter2');
  });

  it.each([
    [['plan', '--formt', 'json'], 2, "error: unknown option '--formt'"],
    [['plan', '--format', 'yaml'], 2, "error: option '--format <format>' argument 'yaml' is invalid. Allowed choices are text, markdown, json."],
    [['plan', '--detailed-exitcode', '--formt', 'json'], 1, "error: unknown option '--formt'"],
    [['apply', '--parallelism', '0'], 2, 'Error: --parallelism must be a whole number from 1 to 100, got "0"'],
    [['apply', '--lock-timeout', '30'], 2, 'Error: invalid --lock-timeout "30": use a duration like 0s, 500ms, 30s or 5m'],
    [['destroy', '--lock-timeout', 'soon'], 2, 'Error: invalid --lock-timeout "soon": use a duration like 0s, 500ms, 30s or 5m'],
  ])('refuses the usage error %j with exit %i before loading or planning anything', async (args, code, message) => {
    const result = await run(args);
    expect(result.stderr.split('\n')[0]).toBe(message);
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
  });

  it('prints the formatVersion 1 JSON document with --json, and nothing else on stdout', async () => {
    const result = await run(['plan', '--json']);
    expect(result.code).toBe(0);
    const plan = planSchema.parse(JSON.parse(result.stdout));
    expect(plan.summary).toEqual({ create: 4, update: 0, delete: 0, replace: 0, noop: 0 });
    expect(plan.changes.map((change) => change.address)).toEqual(['api-check.home', 'check-group.other', 'check-group.web', 'multistep-check.flow']);
    expect(plan.changes[0]!.dependsOn).toEqual(['check-group.web']);
    expect(result.stdout).not.toContain('hunter2');
  });

  it('prints collapsible markdown for a pull request', async () => {
    const result = await run(['plan', '--format', 'markdown']);
    expect(result.stdout).toContain('### Vigil plan for `shop`');
    expect(result.stdout).toContain('<summary><code>+ api-check.home</code> will be created</summary>');
  });

  it('limits the plan to --target and what it depends on', async () => {
    const result = await run(['plan', '--json', '--target', 'api-check.home']);
    const plan = planSchema.parse(JSON.parse(result.stdout));
    expect(plan.changes.map((change) => change.address)).toEqual(['api-check.home', 'check-group.web']);
  });

  it('names an unknown --target and exits 1', async () => {
    const result = await run(['plan', '--target', 'api-check.nope']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error  --target api-check.nope matches no resource in the code or the state  (api-check.nope)');
  });

  it('saves a plan without secret values', async () => {
    const result = await run(['plan', '--out', 'saved.json']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Saved the plan to saved.json; review it with: vigil show saved.json; apply exactly it with: vigil apply saved.json');
    const saved = await readFile(path.join(root, 'saved.json'), 'utf8');
    expect(saved).not.toContain('hunter2');
    expect(planSchema.safeParse(JSON.parse(saved)).success).toBe(true);
  });

  it('refuses the embedded local service under CI unless --local is given', async () => {
    const refused = await run(['plan'], {});
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('refusing to fall back to the embedded local service. Pass --local to use it on purpose.');
    const local = await run(['plan', '--local'], {});
    expect(local.code).toBe(0);
    expect(local.stdout.split('\n')[0]).toMatch(/^Using the embedded local service at http:\/\/127\.0\.0\.1:\d+ \(data in \.vigil\/local; set VIGIL_API_URL to target a real one\)$/);
  });

  it('refuses a state that belongs to another target', async () => {
    await mkdir(path.join(root, '.vigil'), { recursive: true });
    const applied = await run(['apply', '--auto-approve']);
    expect(applied.code).toBe(0);
    const other = await startServer({ port: 0, dataDir: ':memory:' });
    try {
      const result = await run(['plan'], targetEnv(other.url));
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`(${server.url} account local), but the configured target ${other.url} is another service`);
    } finally {
      await other.close();
    }
  });
});
