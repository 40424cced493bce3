/**
 * The confirmation prompt on a real pseudo-terminal (util-linux `script` allocates it), and two
 * applies contending for one state.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VIGIL_BIN, startVigil, targetEnv, vigil } from '../support/cli.js';

let root: string;
let server: RunningServer;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-prompt-'));
  await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'p', logicalId: 'p' });\n");
  await mkdir(path.join(root, 'monitors'));
  await writeFile(path.join(root, 'monitors', 'a.monitor.ts'), "import { CheckGroup } from 'vigil/constructs';\nnew CheckGroup('web', { name: 'Web' });\n");
});

afterEach(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

async function groupCount(): Promise<number> {
  const response = await fetch(`${server.url}/v1/check-groups`, { headers: { authorization: 'Bearer vigil-local' } });
  return ((await response.json()) as unknown[]).length;
}

/** Runs `vigil apply` on a pseudo-terminal and types `keys` once the prompt shows. */
function applyOnTerminal(keys: string): Promise<{ code: number | null; output: string }> {
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(VIGIL_BIN)} apply`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: root,
    env: { ...process.env, ...targetEnv(server.url), CI: '', NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let typed = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    if (!typed && output.includes('Enter a value (yes/no):')) {
      typed = true;
      child.stdin.write(keys);
    }
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

describe('the apply prompt', () => {
  it('applies after "yes"', async () => {
    server = await startServer({ port: 0, dataDir: ':memory:' });
    const { code, output } = await applyOnTerminal('yes\r');
    expect(output).toContain('Do you want to apply these changes? Only "yes" will be accepted.');
    expect(output).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
    expect(code).toBe(0);
    expect(await groupCount()).toBe(1);
  });

  it('changes nothing after any other answer, and exits 1', async () => {
    server = await startServer({ port: 0, dataDir: ':memory:' });
    const { code, output } = await applyOnTerminal('y\r');
    expect(output).toContain('Apply cancelled.');
    expect(code).toBe(1);
    expect(await groupCount()).toBe(0);
  });

  it('changes nothing on Ctrl-C and exits 130', async () => {
    server = await startServer({ port: 0, dataDir: ':memory:' });
    const { code, output } = await applyOnTerminal('\u0003');
    expect(output).toContain('Apply cancelled.');
    expect(code).toBe(130);
    expect(await groupCount()).toBe(0);
  });

  it('is refused when standard input is not a terminal', async () => {
    server = await startServer({ port: 0, dataDir: ':memory:' });
    const result = await vigil(['apply'], { cwd: root, env: { ...targetEnv(server.url), CI: '' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: refusing to apply without confirmation: standard input is not a terminal.');
  });
});

describe('two applies on one state', () => {
  it('makes the second wait for the lock, then fail naming the owner', async () => {
    server = await startServer({ port: 0, dataDir: ':memory:', faults: 'latency=8000ms' });
    const env = targetEnv(server.url);
    const first = startVigil(['apply', '--auto-approve'], { cwd: root, env });
    // Wait until the first holds the lock (its lock file exists), then start the second.
    const lockFile = path.join(root, '.vigil', 'state.json.lock');
    const { access } = await import('node:fs/promises');
    for (let tries = 0; tries < 600; tries += 1) {
      if (await access(lockFile).then(() => true, () => false)) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const second = await vigil(['apply', '--auto-approve', '--lock-timeout', '1s'], { cwd: root, env });
    expect(second.stderr).toMatch(/state \.vigil\/state\.json is locked by pid \d+ on .+ \(user .+, "vigil apply", since .+\)/);
    expect(second.code).toBe(1);
    const firstResult = await first.done;
    expect(firstResult.stderr).toBe("");
    expect(firstResult.stdout).toContain("Apply complete! Resources: 1 added");
    expect(firstResult.code).toBe(0);
    expect(await groupCount()).toBe(1);
  }, 120_000);
});
