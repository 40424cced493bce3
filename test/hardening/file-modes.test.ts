/**
 * The service's database holds secret variable values, so what holds it is private to the owner
 * `vigil server --data DIR` made DIR 0755 and vigil.db, -wal, -shm 0644, and the
 * embedded service's `.vigil/local/` likewise. Both are checked through the real CLI.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VIGIL_BIN, vigil } from '../support/cli.js';
import { send } from './harness.js';
import { SAMPLE_BODIES } from './samples.js';

const scratch: string[] = [];
const children = new Set<ChildProcess>();

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'vigil-modes-'));
  scratch.push(dir);
  return dir;
}

const modeOf = (target: string): string => (statSync(target).mode & 0o777).toString(8);

/** `vigil server --data dataDir`; resolves with its URL and everything it wrote to stderr so far. */
async function startCliServer(dataDir: string): Promise<{ url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [VIGIL_BIN, 'server', '--port', '0', '--data', dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  children.add(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`vigil server exited with ${code} before listening: ${out}${stderr}`)));
  });
  return { url, stderr: () => stderr };
}

/**
 * What the server said besides its start-up notices of the sandbox and of its runs in flight, one
 * each, whose words depend on the machine (its isolation, cores, memory and open-file limit).
 */
function besidesStartNotices(stderr: string): string {
  let rest = stderr;
  for (const notice of [/^vigil server: sandbox: .*\n/gm, /^vigil server: runs in flight: .*\n/gm]) {
    const found = rest.match(notice) ?? [];
    expect(found).toHaveLength(1);
    rest = rest.replace(found[0]!, '');
  }
  return rest;
}

describe('vigil server --data', () => {
  it('creates the directory 0700 and vigil.db, -wal and -shm 0600, and stores a secret there', async () => {
    const dataDir = path.join(await tempDir(), 'service-data');
    const server = await startCliServer(dataDir);
    const created = await send(server.url, 'POST', '/v1/checks/multistep?autoAssignAlerts=false', {
      apiKey: 'vigil-local',
      body: JSON.stringify(SAMPLE_BODIES['checks.createMultiStep']),
      headers: { 'content-type': 'application/json' },
    });
    expect(created.status).toBe(201);
    expect(modeOf(dataDir)).toBe('700');
    expect(['vigil.db', 'vigil.db-wal', 'vigil.db-shm'].map((file) => [file, modeOf(path.join(dataDir, file))])).toEqual([
      ['vigil.db', '600'],
      ['vigil.db-wal', '600'],
      ['vigil.db-shm', '600'],
    ]);
    expect(besidesStartNotices(server.stderr())).toBe('');
  });

  it('warns, without changing it, when an existing directory is readable by other users', async () => {
    const dataDir = path.join(await tempDir(), 'shared');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    const server = await startCliServer(dataDir);
    expect(besidesStartNotices(server.stderr())).toBe(
      `vigil server: warning: ${dataDir} is accessible to other users (mode 755), and the database in it holds secret values; run chmod 700 ${dataDir}\n`,
    );
    expect(modeOf(dataDir)).toBe('755');
    expect(modeOf(path.join(dataDir, 'vigil.db'))).toBe('600');
  });
});

describe('the embedded service', () => {
  it('keeps .vigil/local/ 0700 and its database 0600, also when an older vigil made the directory 0755', async () => {
    const root = await tempDir();
    await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'modes', logicalId: 'modes' });\n");
    await writeFile(
      path.join(root, 'secret.monitor.ts'),
      "import { MultiStepCheck } from 'vigil/constructs';\nnew MultiStepCheck('flow', { name: 'Flow', code: { content: 'export default async () => {}' }, environmentVariables: [{ key: 'TOKEN', value: 'hunter2', secret: true }] });\n",
    );
    const local = path.join(root, '.vigil', 'local');
    mkdirSync(local, { recursive: true });
    chmodSync(local, 0o755);
    const result = await vigil(['apply', '--local', '--auto-approve'], { cwd: root });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(modeOf(local)).toBe('700');
    for (const file of ['vigil.db', 'vigil.db-wal', 'vigil.db-shm']) {
      const target = path.join(local, file);
      // The WAL files may be gone once the service closed the database cleanly.
      if (file === 'vigil.db' || (statSync(target, { throwIfNoEntry: false }) !== undefined)) expect([file, modeOf(target)]).toEqual([file, '600']);
    }
  }, 60_000);
});
