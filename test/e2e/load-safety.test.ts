/**
 * Loading a project never hangs, never ends early and never leaves its temporary bundles in the
 * user's repository: a top-level await that can never settle, or one that takes longer than
 * --load-timeout, ends the command with exit 1 naming the file; a file calling process.exit is an
 * error at its line; SIGINT/SIGTERM during the load and a killed earlier load leave no
 * `.vigil/tmp/load-*` behind.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startVigil, vigil } from '../support/cli.js';

const CONFIG = "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop' });\n";
const CHECK = "import { ApiCheck } from 'vigil/constructs';\nnew ApiCheck('home', { name: 'Home', request: { url: 'https://example.com/' } });\n";

const roots: string[] = [];

/** A project with `files` (paths relative to its root) besides its config. */
async function project(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'vigil-load-safety-'));
  roots.push(root);
  for (const [file, contents] of Object.entries({ 'vigil.config.ts': CONFIG, ...files })) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), contents);
  }
  return root;
}

afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const loadDirectories = async (root: string) => (await readdir(path.join(root, '.vigil', 'tmp')).catch(() => [])).filter((name) => name.startsWith('load-'));

describe('loading a project whose top-level await does not settle', () => {
  it('ends at once with exit 1 naming the file when nothing could ever settle it (it used to exit 13 printing nothing)', async () => {
    const root = await project({
      'checks/a.monitor.ts': CHECK,
      'checks/stuck.monitor.ts': "import { ApiCheck } from 'vigil/constructs';\nawait new Promise(() => {});\nnew ApiCheck('never', { name: 'Never', request: { url: 'https://example.com/' } });\n",
      'checks/z.monitor.ts': 'export {};\n',
    });
    const result = await vigil(['validate'], { cwd: root });
    expect(result).toEqual({
      code: 1,
      signal: null,
      stdout: [
        'error  checks/stuck.monitor.ts can never finish loading: a top-level await in it (or in a file it imports) waits for a promise that nothing will settle; 1 more file was not loaded',
        '  hint: Every promise awaited at the top level of a monitor or config file must resolve or reject.',
        '1 error',
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(existsSync(path.join(root, '.vigil', 'tmp'))).toBe(false);
  });

  it('stops waiting after --load-timeout with exit 1 naming the file, even though its timer would keep the process alive for an hour', async () => {
    const root = await project({
      'checks/a.monitor.ts': CHECK,
      'checks/slow.monitor.ts': 'await new Promise((resolve) => setTimeout(resolve, 3_600_000));\n',
    });
    const result = await vigil(['plan', '--local', '--load-timeout', '1s'], { cwd: root });
    expect(result).toEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr: [
        'error  checks/slow.monitor.ts did not finish loading within 1s: a top-level await in it (or in a file it imports) is still waiting',
        '  hint: Make the awaited work finish sooner, or allow more time with --load-timeout (e.g. --load-timeout 2m).',
        'Error: the project did not finish loading (see above)',
        '',
      ].join('\n'),
    });
    expect(await loadDirectories(root)).toEqual([]);
  });

  it('names the config file when the config is what waits', async () => {
    const root = await project({ 'vigil.config.ts': `await new Promise((resolve) => setTimeout(resolve, 3_600_000));\n${CONFIG}` });
    const result = await vigil(['synth', '--load-timeout', '500ms'], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')[0]).toBe(
      'error  vigil.config.ts did not finish loading within 500ms: a top-level await in it (or in a file it imports) is still waiting',
    );
  });

  it.each([['0s'], ['soon']])('refuses --load-timeout %s as a usage error before loading anything', async (value) => {
    const root = await project({ 'checks/a.monitor.ts': CHECK });
    const result = await vigil(['validate', '--load-timeout', value], { cwd: root });
    expect(result).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: `Error: invalid --load-timeout "${value}": use a duration above zero like 500ms, 30s or 2m\n`,
    });
  });
});

describe('loading a project whose file calls process.exit', () => {
  it('fails at that line instead of ending vigil with the exit code the file chose (it used to exit 0 printing nothing)', async () => {
    const root = await project({ 'checks/a.monitor.ts': CHECK, 'checks/guard.monitor.ts': "if (!process.env['SHOP_URL']) process.exit(0);\n" });
    const result = await vigil(['validate'], { cwd: root });
    expect(result).toEqual({
      code: 1,
      signal: null,
      stdout: 'checks/guard.monitor.ts:1:39  error  process.exit(0) was called while vigil loaded the project; monitor and config files must not end the process\n1 error\n',
      stderr: '',
    });
  });
});

describe('the temporary bundles of a load', () => {
  it.each([['SIGINT' as const], ['SIGTERM' as const]])('are removed when %s interrupts the load', async (signal) => {
    const root = await project({
      'checks/a.monitor.ts': CHECK,
      'checks/wait.monitor.ts': [
        "import { writeFileSync } from 'node:fs';",
        "import path from 'node:path';",
        "writeFileSync(path.join(import.meta.dirname, '..', 'started'), '');",
        'await new Promise((resolve) => setTimeout(resolve, 3_600_000));',
        '',
      ].join('\n'),
    });
    const { child, done } = startVigil(['validate'], { cwd: root });
    await waitFor(() => existsSync(path.join(root, 'started')), 'the monitor file to start');
    expect(await loadDirectories(root)).toHaveLength(1);
    child.kill(signal);
    const result = await done;
    expect(result.signal).toBe(signal);
    expect(existsSync(path.join(root, '.vigil', 'tmp'))).toBe(false);
  });

  it('of a load that was killed outright are removed by the next load', async () => {
    const root = await project({ 'checks/a.monitor.ts': CHECK });
    const gone = spawn(process.execPath, ['-e', '']);
    const pid = gone.pid!;
    await new Promise((resolve) => gone.on('close', resolve));
    const abandoned = path.join(root, '.vigil', 'tmp', `load-${pid}-0badc0de`, 'monitors');
    await mkdir(abandoned, { recursive: true });
    await writeFile(path.join(abandoned, 'group-X.mjs'), 'export {};\n');
    const result = await vigil(['validate'], { cwd: root });
    expect(result.stdout).toBe('✔ 1 resource valid\n');
    expect(existsSync(path.join(root, '.vigil', 'tmp'))).toBe(false);
  });
});
