import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/cli.js';

const TSX_CLI = path.join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs');
const DEMO = path.join(REPO_ROOT, 'scripts/demo.ts');

let project: string;

beforeEach(async () => {
  // A copy, so the test never writes into examples/quickstart (the demo's own .vigil/ lives there).
  project = await mkdtemp(path.join(tmpdir(), 'vigil-demo-'));
  await cp(path.join(REPO_ROOT, 'examples/quickstart'), project, {
    recursive: true,
    filter: (source) => !/[\\/](node_modules|\.vigil)$/.test(source),
  });
});

afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

/** Runs `pnpm demo` as CI would (CI=true, no VIGIL_* target); resolves when the process has exited. */
function demo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', NO_COLOR: '1', VIGIL_API_URL: 'http://127.0.0.1:9' };
  const child = spawn(process.execPath, [TSX_CLI, DEMO, '--project', project], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('pnpm demo', () => {
  it('validates, plans, applies, plans no changes and lists what exists; a second run changes nothing', async () => {
    const first = await demo();
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const steps = first.stdout.match(/^\$ vigil .*$/gm);
    expect(steps).toEqual([
      '$ vigil validate',
      '$ vigil plan --local',
      '$ vigil apply --auto-approve --local',
      '$ vigil plan --local --detailed-exitcode',
      '$ vigil state list',
    ]);
    // The VIGIL_API_URL of the caller's shell is ignored: the demo is about the embedded service.
    expect(first.stdout).toContain('Using the embedded local service at http://127.0.0.1:');
    expect(first.stdout).toContain('Plan: 4 to add, 0 to change, 0 to destroy.');
    expect(first.stdout).toContain('Apply complete! Resources: 4 added, 0 changed, 0 destroyed.');
    expect(first.stdout).toContain('No changes.');
    expect(first.stdout).toMatch(/^api-check\.products-api\s+api-check\s+\S+$/m);
    expect(first.stdout).toMatch(/^maintenance-window\.weekly-deploy\s+maintenance-window\s+\S+$/m);

    const second = await demo();
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain('to add');
    // plan, apply and the final plan all find nothing to do.
    expect(second.stdout.match(/^No changes\. Your monitoring matches the code\.$/gm)).toHaveLength(3);
  }, 240_000);
});
