/**
 * `pnpm demo`: the whole Vigil loop on `examples/quickstart` against the embedded local service —
 * validate, plan, apply, plan again ("No changes."), then what now exists. Each step runs the real
 * CLI as a user would, so the demo can never show something the product does not do.
 *
 * Re-runnable: state and the embedded database persist in `examples/quickstart/.vigil/` (ignored by
 * git), so a second run plans no changes. Nothing keeps running: the embedded service lives inside
 * each CLI process. `--local` is passed so the demo also works under CI=true.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const VIGIL_BIN = path.join(REPO_ROOT, 'packages/cli/bin/vigil.mjs');
const DEFAULT_PROJECT_DIR = path.join(REPO_ROOT, 'examples/quickstart');

/** `--project DIR` runs the demo on a copy instead (tests do, so they never write into examples/). */
function projectDir(argv: readonly string[]): string {
  const index = argv.indexOf('--project');
  if (index === -1) return DEFAULT_PROJECT_DIR;
  const value = argv[index + 1];
  if (value === undefined) {
    process.stderr.write('demo: --project needs a directory\n');
    process.exit(1);
  }
  return path.resolve(value);
}

const PROJECT_DIR = projectDir(process.argv.slice(2));
const shownProject = path.relative(process.cwd(), PROJECT_DIR) || '.';

const useColor = process.stdout.isTTY === true && process.env['NO_COLOR'] === undefined;
const bold = (text: string): string => (useColor ? `\u001b[1m${text}\u001b[22m` : text);

interface Step {
  readonly title: string;
  readonly args: readonly string[];
  /** Exit codes that mean the step did what the demo expects. */
  readonly expectedCodes: readonly number[];
}

const STEPS: readonly Step[] = [
  { title: 'Check the project offline', args: ['validate'], expectedCodes: [0] },
  { title: 'Show what apply would do', args: ['plan', '--local'], expectedCodes: [0] },
  { title: 'Make the service match the code', args: ['apply', '--auto-approve', '--local'], expectedCodes: [0] },
  // --detailed-exitcode turns "apply left something undone" into a failed demo instead of a scroll-past.
  { title: 'Plan again: nothing left to do', args: ['plan', '--local', '--detailed-exitcode'], expectedCodes: [0] },
  { title: 'What Vigil now manages', args: ['state', 'list'], expectedCodes: [0] },
];

function run(step: Step, index: number): void {
  process.stdout.write(`\n${bold(`[${index + 1}/${STEPS.length}] ${step.title}`)}\n${bold(`$ vigil ${step.args.join(' ')}`)}\n\n`);
  const result = spawnSync(process.execPath, [VIGIL_BIN, ...step.args], {
    cwd: PROJECT_DIR,
    stdio: 'inherit',
    // The demo always targets the embedded service, even in a shell that has a real one configured.
    env: withoutVigilTarget(process.env),
  });
  if (result.error) throw result.error;
  const code = result.status ?? 1;
  if (!step.expectedCodes.includes(code)) {
    process.stderr.write(`\ndemo: \`vigil ${step.args.join(' ')}\` exited ${code}; stopping.\n`);
    process.exit(code === 0 ? 1 : code);
  }
}

function withoutVigilTarget(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = { ...env };
  for (const key of ['VIGIL_API_URL', 'VIGIL_API_KEY', 'VIGIL_ACCOUNT_ID']) delete clean[key];
  return clean;
}

STEPS.forEach(run);

process.stdout.write(
  [
    '',
    `${bold('Done.')} The resources above live in the embedded local service (${path.join(shownProject, '.vigil/local/')}).`,
    'Next:',
    `  - edit ${path.join(shownProject, 'checks/storefront.monitor.ts')} and run \`pnpm demo\` again to see the diff;`,
    '  - start your own project with `pnpm vigil init my-monitoring`;',
    '  - read docs/getting-started.md.',
    '',
  ].join('\n'),
);
