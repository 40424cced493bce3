import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer } from '@vigil/server';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT, VIGIL_BIN, vigil } from '../support/cli.js';
import { startTerraformStateServer } from '../support/terraform-http-state-server.js';

const WORKFLOW = path.join(REPO_ROOT, 'examples/ci/vigil.yml');

interface Step {
  readonly run?: string;
  readonly uses?: string;
}
interface Job {
  readonly if?: string;
  readonly defaults?: { readonly run?: { readonly 'working-directory'?: string } };
  readonly steps: readonly Step[];
}
interface Workflow {
  readonly on: Record<string, unknown>;
  readonly defaults?: { readonly run?: { readonly 'working-directory'?: string } };
  readonly jobs: Record<string, Job>;
}

/** Every `vigil <subcommand> <flags>` a shell script runs, e.g. `npx vigil plan --format markdown`. */
function vigilInvocations(script: string): Array<{ subcommand: string; flags: string[] }> {
  const invocations: Array<{ subcommand: string; flags: string[] }> = [];
  for (const match of script.matchAll(/(?:^|[\s;&|(])(?:npx\s+)?vigil\s+([a-z]+)([^\n;&|>]*)/g)) {
    const flags = [...(match[2] ?? '').matchAll(/(?:^|\s)(--[a-z][a-z-]*)/g)].map((flag) => flag[1]!);
    invocations.push({ subcommand: match[1]!, flags });
  }
  return invocations;
}

async function loadWorkflow(): Promise<Workflow> {
  return parse(await readFile(WORKFLOW, 'utf8')) as Workflow;
}

function scriptsOf(job: Job): string {
  return job.steps.map((step) => step.run ?? '').join('\n');
}

describe('the CI recipe (examples/ci/vigil.yml)', () => {
  it('is a GitHub Actions workflow triggered by pull requests and pushes to main', async () => {
    const workflow = await loadWorkflow();
    expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push']);
    expect(workflow.on['push']).toMatchObject({ branches: ['main'] });
  });

  it('plans as Markdown on pull requests and posts the plan as a comment', async () => {
    const { jobs } = await loadWorkflow();
    const plan = jobs['plan']!;
    expect(plan.if).toBe("github.event_name == 'pull_request'");
    expect(vigilInvocations(scriptsOf(plan))).toContainEqual({ subcommand: 'plan', flags: ['--format', '--detailed-exitcode'] });
    expect(scriptsOf(plan)).toContain('--format markdown');
    const poster = plan.steps.find((step) => step.uses?.startsWith('actions/github-script@'));
    expect(JSON.stringify(poster)).toContain('createComment');
  });

  it('applies with --auto-approve on main only', async () => {
    const { jobs } = await loadWorkflow();
    const apply = jobs['apply']!;
    expect(apply.if).toContain("github.ref == 'refs/heads/main'");
    expect(vigilInvocations(scriptsOf(apply))).toContainEqual({ subcommand: 'apply', flags: ['--auto-approve', '--lock-timeout'] });
  });

  it('keeps state off the repository: the apply job writes nothing to it, and a fork only validates and tests', async () => {
    const { jobs } = await loadWorkflow();
    expect(JSON.stringify(jobs['apply'])).not.toMatch(/git (add|commit|push)/);
    expect((jobs['apply'] as Job & { permissions?: Record<string, string> }).permissions).toEqual({ contents: 'read' });
    const plan = jobs['plan']!.steps as ReadonlyArray<Step & { id?: string; if?: string }>;
    const sameRepository = 'github.event.pull_request.head.repo.full_name == github.repository';
    expect(plan.filter((step) => step.run?.includes('vigil plan') || step.uses?.startsWith('actions/github-script@')).map((step) => step.if)).toEqual([sameRepository, sameRepository]);
  });

  it('runs only vigil subcommands and flags that the CLI has', async () => {
    const { jobs } = await loadWorkflow();
    const invocations = Object.values(jobs).flatMap((job) => vigilInvocations(scriptsOf(job)));
    expect(invocations.map((invocation) => invocation.subcommand).sort()).toEqual(['apply', 'plan', 'test', 'validate']);

    const topLevel = await vigil(['--help'], { cwd: REPO_ROOT });
    for (const { subcommand, flags } of invocations) {
      expect(topLevel.stdout).toMatch(new RegExp(`^  ${subcommand}\\b`, 'm'));
      const help = await vigil([subcommand, '--help'], { cwd: REPO_ROOT });
      expect(help.code).toBe(0);
      for (const flag of flags) expect(help.stdout, `vigil ${subcommand} ${flag}`).toMatch(new RegExp(`^\\s+(-\\w, )?${flag}\\b`, 'm'));
    }
  }, 60_000);

  it('finds invocations the way a shell runs them', () => {
    expect(vigilInvocations('set +e\nnpx vigil plan --format markdown --detailed-exitcode > plan.md\ncode=$?')).toEqual([
      { subcommand: 'plan', flags: ['--format', '--detailed-exitcode'] },
    ]);
    expect(vigilInvocations('vigil validate && vigil apply --auto-approve')).toEqual([
      { subcommand: 'validate', flags: [] },
      { subcommand: 'apply', flags: ['--auto-approve'] },
    ]);
  });
});

/**
 * Runs a job's `vigil` steps as the runner would (bash, in the workflow's working directory, with
 * GITHUB_OUTPUT), `npx vigil` being the CLI of this checkout. Steps without vigil (checkout, npm ci,
 * git) are the CI system's business and are not run.
 */
async function runVigilSteps(job: Job, options: { checkout: string; env: Record<string, string> }): Promise<{ code: number | null; output: string }> {
  const githubOutput = path.join(options.checkout, 'github-output.txt');
  await writeFile(githubOutput, '');
  for (const step of job.steps) {
    if (step.run === undefined || !/\bvigil\s/.test(step.run)) continue;
    const script = step.run.replaceAll('npx vigil ', `node ${JSON.stringify(VIGIL_BIN)} `);
    const child = spawn('bash', ['-e', '-c', script], {
      cwd: path.join(options.checkout, 'monitoring'),
      env: { ...process.env, CI: 'true', NO_COLOR: '1', GITHUB_OUTPUT: githubOutput, ...options.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (code !== 0) return { code, output: stderr };
  }
  return { code: 0, output: await readFile(githubOutput, 'utf8') };
}

/** What the quickstart's checks expect of the shop: a home page, and a products list whose first item has an id. */
async function startStorefront(): Promise<{ url: string; products: string; close(): Promise<void> }> {
  const state = { products: '[{"id":1}]' };
  const server = createServer((request, response) => {
    if (request.url?.startsWith('/api/products')) response.writeHead(200, { 'content-type': 'application/json' }).end(state.products);
    else if (request.url === '/') response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>shop</h1>');
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

describe('the CI recipe, run against a service', () => {
  it('plans on a pull request (changes: exit code 2 recorded, job passes), applies on main, then plans no changes', async () => {
    const workflow = await loadWorkflow();
    expect(workflow.defaults?.run?.['working-directory']).toBe('monitoring');
    const server = await startServer({ port: 0, dataDir: ':memory:' });
    const states = await startTerraformStateServer({ credentials: { token: 'state-token' } });
    const storefront = await startStorefront();
    const checkout = await mkdtemp(path.join(tmpdir(), 'vigil-ci-'));
    try {
      await cp(path.join(REPO_ROOT, 'examples/quickstart'), path.join(checkout, 'monitoring'), {
        recursive: true,
        filter: (source) => !/[\\/](node_modules|\.vigil)$/.test(source),
      });
      // The pull-request job runs `vigil test`, which really calls the monitored site: here a
      // loopback stand-in for the example's shop.example.com.
      const monitor = path.join(checkout, 'monitoring', 'checks', 'storefront.monitor.ts');
      await writeFile(monitor, (await readFile(monitor, 'utf8')).replaceAll('https://shop.example.com', storefront.url));
      // The recipe keeps state off the repository, on a remote backend: here Terraform's http
      // protocol on a loopback server (the service backend speaks the same protocol).
      const config = path.join(checkout, 'monitoring', 'vigil.config.ts');
      await writeFile(config, (await readFile(config, 'utf8')).replace("logicalId: 'quickstart',", `logicalId: 'quickstart',\n  state: { backend: 'http', address: '${states.url}/quickstart' },`));
      const env = { VIGIL_API_URL: server.url, VIGIL_API_KEY: 'vigil-local', VIGIL_ACCOUNT_ID: '', VIGIL_STATE_HTTP_TOKEN: 'state-token' };

      storefront.products = '[]';
      const failingTest = await runVigilSteps(workflow.jobs['plan']!, { checkout, env });
      // A check that fails under `vigil test` fails the job before anything is planned.
      expect(failingTest.code).toBe(1);
      expect(await readFile(path.join(checkout, 'monitoring', 'plan.md'), 'utf8').catch(() => 'no plan')).toBe('no plan');
      storefront.products = '[{"id":1}]';

      const pullRequest = await runVigilSteps(workflow.jobs['plan']!, { checkout, env });
      expect(pullRequest).toEqual({ code: 0, output: 'exitcode=2\n' });
      const comment = await readFile(path.join(checkout, 'monitoring', 'plan.md'), 'utf8');
      expect(comment).toMatch(/^### Vigil plan for `Quickstart`/);
      expect(comment).toContain('**Plan: 4 to add, 0 to change, 0 to destroy.**');

      const main = await runVigilSteps(workflow.jobs['apply']!, { checkout, env });
      expect(main.code).toBe(0);
      expect(JSON.parse(states.document('/quickstart')!)).toMatchObject({ project: 'Quickstart', journal: [] });
      await expect(readFile(path.join(checkout, 'monitoring', '.vigil', 'state.json'))).rejects.toThrow('ENOENT');

      const nextPullRequest = await runVigilSteps(workflow.jobs['plan']!, { checkout, env });
      expect(nextPullRequest).toEqual({ code: 0, output: 'exitcode=0\n' });
    } finally {
      await server.close();
      await states.close();
      await storefront.close();
      await rm(checkout, { recursive: true, force: true });
    }
  }, 120_000);
});
