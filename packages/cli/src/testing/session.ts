/**
 * One `vigil test` session: select, plan the runs, run them `parallelism` at a time through the
 * runner (which keeps user scripts out of this process), report, and say how to exit.
 */
import type { Command } from 'commander';
import type { LoadedProject } from '@vigil/engine';
import type { Runner } from '@vigil/runner';
import type { TestOptions } from '../commands/test.js';
import { CliError } from '../errors.js';
import { useColor } from '../workflow.js';
import { outcomeOf, skippedOutcome, type TestOutcome } from './outcome.js';
import { printable } from '@vigil/engine';
import { createReporter, summarize } from './reporters.js';
import { planRuns, type PlannedRun } from './runs.js';
import { readEnvFile, selectChecks } from './selection.js';

/** Resolves to the exit code: 0 all passed, 1 any failed (or the session was stopped). */
export async function runTests(loaded: LoadedProject, options: TestOptions, command: Command): Promise<number> {
  const { createRunner, BUILT_IN_EXECUTORS } = await import('@vigil/runner');
  const canRun = (checkType: string) => BUILT_IN_EXECUTORS.some((executor) => executor.checkType === checkType);
  const selected = selectChecks(loaded.specs, options.selection);
  if (selected.length === 0) throw new CliError(nothingSelected(loaded, options));

  const fromFile = options.envFile === undefined ? [] : readEnvFile(options.envFile, process.cwd());
  const runs = planRuns(loaded, selected, {
    locations: options.locations,
    // -e wins over --env-file: later entries win.
    commandLineVariables: [...fromFile, ...options.variables],
    canRun,
  });

  const write = (text: string) => process.stdout.write(text);
  if (options.list) {
    for (const run of runs) {
      const skipped = run.skipReason ? `  (skipped: ${run.skipReason})` : '';
      const { file, line, column } = run.spec.source;
      write(printable(`${run.spec.address}  ${String(run.check.name)}  ${run.check.checkType}  [${run.location}]  ${file}:${line}:${column}${skipped}`) + '\n');
    }
    write(`${runs.length} run${runs.length === 1 ? '' : 's'}\n`);
    return 0;
  }

  const reporter = createReporter(options.reporter, {
    write,
    color: useColor(command),
    progress: process.stdout.isTTY === true && (options.reporter === 'list' || options.reporter === 'dot'),
    env: process.env,
  });
  const session = new AbortController();
  const timer = setTimeout(() => session.abort(new Error(`the test session passed --timeout (${options.timeoutMs / 1000} s)`)), options.timeoutMs);
  const interrupt = () => session.abort(new Error('interrupted'));
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);

  const runner = createRunner();
  const started = performance.now();
  const outcomes: TestOutcome[] = new Array(runs.length);
  let done = 0;
  try {
    await eachLimited(runs, options.parallelism, async (run, index) => {
      const outcome = await runOne(runner, run, { loaded, options, signal: session.signal });
      outcomes[index] = outcome;
      reporter.finished(outcome, ++done, runs.length);
    });
  } finally {
    clearTimeout(timer);
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
    await runner.close();
  }
  const summary = summarize(outcomes, performance.now() - started);
  reporter.end(outcomes, summary);
  if (session.signal.aborted) {
    process.stderr.write(`Stopped: ${(session.signal.reason as Error).message}; runs that had not finished count as failed.\n`);
    return 1;
  }
  return summary.failed > 0 ? 1 : 0;
}

async function runOne(runner: Runner, run: PlannedRun, context: { loaded: LoadedProject; options: TestOptions; signal: AbortSignal }): Promise<TestOutcome> {
  if (run.skipReason) return skippedOutcome(run);
  const outcome = await runner.run(run.check, {
    location: run.location,
    variables: run.variables,
    signal: context.signal,
    projectRoot: context.loaded.root,
    ...(context.options.retries === undefined ? {} : { retries: context.options.retries }),
  });
  return outcomeOf(run, outcome);
}

/** Calls `task` for every item, at most `limit` at a time; resolves when all have settled. */
async function eachLimited<T>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function nothingSelected(loaded: LoadedProject, options: TestOptions): string {
  const checks = loaded.specs.filter((spec) => typeof spec.payload.checkType === 'string').length;
  if (checks === 0) return `the project declares no checks (config: ${loaded.configPath})`;
  const { patterns, grep, tagSets } = options.selection;
  const filters = [
    ...(patterns.length > 0 ? [`patterns ${patterns.map((pattern) => JSON.stringify(pattern)).join(', ')}`] : []),
    ...(grep ? [`--grep ${String(grep)}`] : []),
    ...(tagSets.length > 0 ? [`--tags ${tagSets.map((set) => set.join(',')).join(' | ')}`] : []),
  ];
  return `no check matches ${filters.join(' and ')} (the project has ${checks} check${checks === 1 ? '' : 's'}; vigil test --list shows them)`;
}
