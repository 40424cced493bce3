/**
 * A `checkMatch` that selects nothing used to make `validate` say `✔ 0 resources valid` and
 * `plan`/`apply` delete everything in state, protected resources included. Now validate warns about
 * the pattern, and plan and apply refuse an empty project while state manages resources, unless
 * `--allow-empty` says it is meant.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetEnv, vigil } from '../support/cli.js';

let root: string;
let server: RunningServer;

const config = (checks: string) =>
  `import { defineConfig } from 'vigil';\nexport default defineConfig({\n  projectName: 'shop',\n  logicalId: 'shop',\n  checks: ${checks},\n});\n`;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-empty-'));
  server = await startServer({ port: 0, dataDir: ':memory:' });
  await mkdir(path.join(root, 'checks'));
  await writeFile(
    path.join(root, 'checks', 'shop.monitor.ts'),
    [
      "import { ApiCheck, StatusPageService } from 'vigil/constructs';",
      "new ApiCheck('home', { name: 'Home', request: { url: 'https://example.com/' } });",
      "new StatusPageService('payments', { name: 'Payments', protect: true });",
      '',
    ].join('\n'),
  );
  await writeFile(path.join(root, 'vigil.config.ts'), config("{ checkMatch: 'checks/*.monitor.ts' }"));
  const applied = await run(['apply', '--auto-approve']);
  expect(applied.stdout).toContain('Apply complete! Resources: 2 added, 0 changed, 0 destroyed.');
  // The typo: the files end in .monitor.ts.
  await writeFile(path.join(root, 'vigil.config.ts'), config("{ checkMatch: 'checks/*.monitors.ts' }"));
}, 90_000);

afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

const run = (args: string[]) => vigil(args, { cwd: root, env: targetEnv(server.url) });

const WARNING = [
  `vigil.config.ts:2:16  warning  vigil.config: checks.checkMatch pattern "checks/*.monitors.ts" matches no file under ${'ROOT'}`,
  '  hint: Patterns are globs relative to the project root, e.g. "**/*.monitor.ts".',
];

const refusal = () =>
  [
    `Error: no file under ${root} matches checks.checkMatch ("checks/*.monitors.ts"), but state manages 2 resources: this plan would delete them all.`,
    'Fix checks.checkMatch in the config (vigil validate warns about patterns that match nothing),',
    'or pass --allow-empty if deleting everything is intended (vigil destroy does that on purpose).',
    '',
  ].join('\n');

describe('a project whose checkMatch selects no file', () => {
  it('validates with a warning naming the pattern and the project root', async () => {
    const result = await run(['validate']);
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout: [...WARNING.map((line) => line.replace('ROOT', root)), '✔ 0 resources valid, 1 warning', ''].join('\n'),
      stderr: '',
    });
  });

  it('is refused by plan, naming the patterns, the root and how many resources state manages', async () => {
    const result = await run(['plan']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe([...WARNING.map((line) => line.replace('ROOT', root)), refusal()].join('\n'));
  });

  it('is refused by apply, which deletes nothing', async () => {
    const result = await run(['apply', '--auto-approve']);
    expect(result.code).toBe(1);
    expect(result.stderr.endsWith(refusal())).toBe(true);
    const list = await run(['state', 'list']);
    expect(list.stdout).toContain('api-check.home');
    expect(list.stdout).toContain('status-page-service.payments');
  }, 90_000);

  it('is planned as deleting everything with --allow-empty', async () => {
    const result = await run(['plan', '--allow-empty', '--json']);
    const plan = JSON.parse(result.stdout) as { summary: Record<string, number> };
    expect(plan.summary).toMatchObject({ create: 0, delete: 2 });
  });
});

describe('checkMatch patterns', () => {
  it('hint at the Checkly default when files follow its naming', async () => {
    const project = await mkdtemp(path.join(tmpdir(), 'vigil-checkly-'));
    try {
      await mkdir(path.join(project, '__checks__'));
      await writeFile(path.join(project, '__checks__', 'home.check.ts'), "import { ApiCheck } from 'vigil/constructs';\nnew ApiCheck('home', { name: 'Home', request: { url: 'https://example.com/' } });\n");
      await writeFile(path.join(project, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop' });\n");
      const result = await vigil(['validate'], { cwd: project });
      expect(result.stdout).toBe(
        [
          `vigil.config.ts:2:16  warning  vigil.config: checks.checkMatch pattern "**/*.monitor.ts" matches no file under ${project}`,
          `  hint: 1 file matches the Checkly CLI's default "**/*.check.ts" (__checks__/home.check.ts); to load it, set checks: { checkMatch: '**/*.check.ts' }.`,
          '✔ 0 resources valid, 1 warning',
          '',
        ].join('\n'),
      );
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });

  it('may not reach outside the project root', async () => {
    const project = await mkdtemp(path.join(tmpdir(), 'vigil-outside-'));
    try {
      await mkdir(path.join(project, 'app'));
      await writeFile(path.join(project, 'shared.monitor.ts'), "import { ApiCheck } from 'vigil/constructs';\nnew ApiCheck('shared', { name: 'Shared', request: { url: 'https://example.com/' } });\n");
      await writeFile(path.join(project, 'app', 'vigil.config.ts'), config("{ checkMatch: ['../*.monitor.ts', '/etc/**'] }"));
      const result = await vigil(['validate'], { cwd: path.join(project, 'app') });
      const hint = "  hint: Patterns are relative to the project root (the config file's directory) and stay inside it; move the config file up to include more.";
      expect(result).toEqual({
        code: 1,
        signal: null,
        stdout: [
          `vigil.config.ts:2:16  error  vigil.config: checks.checkMatch pattern "../*.monitor.ts" reaches outside the project root ${path.join(project, 'app')}`,
          hint,
          `vigil.config.ts:2:16  error  vigil.config: checks.checkMatch pattern "/etc/**" reaches outside the project root ${path.join(project, 'app')}`,
          hint,
          '2 errors',
          '',
        ].join('\n'),
        stderr: '',
      });
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
