import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, vigil } from '../support/cli.js';

/**
 * CI plans and applies every example against the embedded local service, in a copy: tests never
 * write into the repository's examples (their `.vigil/` belongs to whoever runs `pnpm demo`).
 */
const EXAMPLES = [
  { name: 'quickstart', resources: 4 },
  { name: 'advanced', resources: 15 },
] as const;

const copies: string[] = [];

async function copyExample(name: string): Promise<string> {
  const target = await mkdtemp(path.join(tmpdir(), `vigil-example-${name}-`));
  copies.push(target);
  await cp(path.join(REPO_ROOT, 'examples', name), target, {
    recursive: true,
    filter: (source) => !/[\\/](node_modules|\.vigil)$/.test(source),
  });
  return target;
}

afterEach(async () => {
  await Promise.all(copies.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe.each(EXAMPLES)('examples/$name', ({ name, resources }) => {
  it('plans, applies, and then plans no changes against the embedded service', async () => {
    const cwd = await copyExample(name);
    const run = (args: string[]) => vigil(args, { cwd });

    const validated = await run(['validate']);
    expect(validated.code).toBe(0);
    expect(validated.stdout).toContain(`✔ ${resources} resources valid`);

    const planned = await run(['plan', '--local']);
    expect(planned.stderr).toBe('');
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain(`Plan: ${resources} to add, 0 to change, 0 to destroy.`);

    const applied = await run(['apply', '--auto-approve', '--local']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(`Apply complete! Resources: ${resources} added, 0 changed, 0 destroyed.`);

    const replanned = await run(['plan', '--local', '--detailed-exitcode']);
    expect(replanned.stdout).toContain('No changes.');
    expect(replanned.code).toBe(0);
  }, 90_000);
});

describe.each(EXAMPLES)('examples/$name source', ({ name }) => {
  it('type-checks with its own tsconfig (what an editor shows the user)', async () => {
    const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    const result = await promisify(execFile)(process.execPath, [tsc, '-p', path.join(REPO_ROOT, 'examples', name, 'tsconfig.json')]).catch(
      (error: { stdout: string; code: number }) => error,
    );
    expect(result.stdout).toBe('');
  }, 90_000);
});

describe('examples/advanced', () => {
  it('keeps the demo secrets from the environment out of state and plans', async () => {
    const cwd = await copyExample('advanced');
    const env = { PAYMENTS_API_TOKEN: 'token-from-ci-secret', PAGERDUTY_SERVICE_KEY: 'pd-key-from-ci-secret' };
    const applied = await vigil(['apply', '--auto-approve', '--local'], { cwd, env });
    expect(applied.code).toBe(0);

    const state = await readFile(path.join(cwd, '.vigil', 'state.json'), 'utf8');
    expect(state).not.toContain('token-from-ci-secret');
    expect(state).not.toContain('pd-key-from-ci-secret');
    expect(applied.stdout).not.toContain('token-from-ci-secret');

    // Without the variables the demo fallbacks apply: the plan shows a change to secrets it cannot print.
    const planned = await vigil(['plan', '--local', '--detailed-exitcode'], { cwd });
    expect(planned.code).toBe(2);
    expect(planned.stdout).toContain('environmentVariables[0].value = (sensitive) → (sensitive)');
    expect(planned.stdout).not.toContain('demo-payments-token');
  }, 90_000);

  it('keeps the embedded service\'s announcement off stdout for --format markdown and --json', async () => {
    const cwd = await copyExample('advanced');
    const markdown = await vigil(['plan', '--local', '--format', 'markdown'], { cwd });
    expect(markdown.code).toBe(0);
    expect(markdown.stdout.startsWith('### Vigil plan for ')).toBe(true);
    expect(markdown.stderr).toMatch(/^Using the embedded local service at http:\/\/127\.0\.0\.1:\d+ /);
    const json = await vigil(['plan', '--local', '--json'], { cwd });
    expect(JSON.parse(json.stdout)).toMatchObject({ formatVersion: 1 });
    expect(json.stderr).toMatch(/^Using the embedded local service at /);
  }, 90_000);

  it('refuses to destroy the protected production checks', async () => {
    const cwd = await copyExample('advanced');
    expect((await vigil(['apply', '--auto-approve', '--local'], { cwd })).code).toBe(0);

    const destroyed = await vigil(['destroy', '--auto-approve', '--local'], { cwd });

    expect(destroyed.code).toBe(1);
    expect(destroyed.stderr).toContain('error  api-check.payments-health is protected, but this plan would delete it');
    expect(destroyed.stderr).toContain('error  alert-channel.pagerduty-production is protected, but this plan would delete it');
    expect(destroyed.stderr).toContain('nothing was destroyed');
    const listed = await vigil(['state', 'list'], { cwd });
    expect(listed.stdout).toContain('api-check.payments-health');
  }, 90_000);
});
