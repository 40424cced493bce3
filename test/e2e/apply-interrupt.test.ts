/**
 * Ctrl-C (or a CI runner's SIGTERM) during an apply against a slow service (`--faults latency`): the calls in flight finish,
 * nothing new starts, and the summary is one line per kind and operation left undone, not one error
 * per resource; the next apply finishes the work.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@vigil/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startVigil, targetEnv, vigil } from '../support/cli.js';

let root: string;
let server: RunningServer;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-interrupt-'));
  server = await startServer({ port: 0, dataDir: ':memory:', faults: 'latency=250ms' });
  await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop' });\n");
  await mkdir(path.join(root, 'monitors'));
  await writeFile(
    path.join(root, 'monitors', 'a.monitor.ts'),
    [
      "import { ApiCheck, CheckGroup } from 'vigil/constructs';",
      'for (let g = 0; g < 3; g += 1) {',
      '  const group = new CheckGroup(`group-${g}`, { name: `Group ${g}` });',
      '  for (let c = 0; c < 4; c += 1) new ApiCheck(`check-${g}-${c}`, { name: `Check ${g}.${c}`, group, request: { url: `https://example.com/${g}/${c}` } });',
      '}',
    ].join('\n'),
  );
});

afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

describe('an interrupted apply', () => {
  it.each([
    ['SIGINT', 130, 'Interrupted: finishing'],
    ['SIGTERM', 143, 'Interrupted (SIGTERM): finishing'],
  ] as const)('stopped by %s, summarises what it did not start per kind, says how to finish, and the next apply does', async (signal, exitCode, notice) => {
    const env = targetEnv(server.url);
    const { child, done } = startVigil(['apply', '--auto-approve', '--parallelism', '1'], { cwd: root, env });
    let interrupted = false;
    child.stdout!.on('data', (chunk: Buffer | string) => {
      if (!interrupted && String(chunk).includes(': created (id ')) {
        interrupted = true;
        child.kill(signal);
      }
    });
    const result = await done;
    expect(result.code).toBe(exitCode);
    expect(result.stderr).toContain(`${notice} the calls in flight, starting no new ones…`);
    expect(existsSync(path.join(root, '.vigil', 'state.json.lock'))).toBe(false);
    const summary = result.stderr.slice(result.stderr.indexOf('Apply interrupted:')).trimEnd().split('\n');
    expect(summary[0]).toMatch(/^Apply interrupted: \d+ changes were not started:$/);
    expect(summary.slice(1)).toEqual([
      expect.stringMatching(/^ {2}api-check: 12 to create \(api-check\.check-0-0, api-check\.check-0-1 and 10 more\)$/),
      expect.stringMatching(/^ {2}check-group: [12] to create \(check-group\.group-[12](, check-group\.group-2)?\)$/),
    ]);
    expect(result.stderr).not.toContain('not started: the apply was interrupted');
    expect(result.stdout).toMatch(/Partial result\. Resources: [12] added, 0 changed, 0 destroyed\. State records exactly what was done; run vigil apply again to finish the work\.\n$/);

    const finished = await vigil(['apply', '--auto-approve', '--parallelism', '10'], { cwd: root, env });
    expect(finished.code).toBe(0);
    expect(finished.stdout).toMatch(/Apply complete! Resources: 1[34] added, 0 changed, 0 destroyed\./);
    const plan = await vigil(['plan', '--detailed-exitcode'], { cwd: root, env });
    expect(plan.stdout).toBe('No changes. Your monitoring matches the code.\n');
  }, 120_000);
});
