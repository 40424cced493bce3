import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT, vigil } from '../support/cli.js';

const WORKFLOW = path.join(REPO_ROOT, 'examples/ci/vigil.yml');

interface Step {
  readonly run?: string;
  readonly uses?: string;
}
interface Job {
  readonly if?: string;
  readonly steps: readonly Step[];
}
interface Workflow {
  readonly on: Record<string, unknown>;
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

  it('runs only vigil subcommands and flags that the CLI has', async () => {
    const { jobs } = await loadWorkflow();
    const invocations = Object.values(jobs).flatMap((job) => vigilInvocations(scriptsOf(job)));
    expect(invocations.map((invocation) => invocation.subcommand).sort()).toEqual(['apply', 'plan', 'validate']);

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
