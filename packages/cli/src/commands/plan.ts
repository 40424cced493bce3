import { Command, Option } from 'commander';
import { CliError } from '../errors.js';
import { loadTimeoutOption } from './validate.js';
import { collectTargets, computePlan, currentState, openSession, useColor } from '../workflow.js';

interface PlanFlags {
  format: 'text' | 'markdown' | 'json';
  json?: boolean;
  out?: string;
  target?: string[];
  detailedExitcode?: boolean;
  destroy?: boolean;
  local?: boolean;
}

export function registerPlan(program: Command): void {
  program
    .command('plan')
    .description('show, field by field, what apply would create, change or delete on the monitoring service')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'markdown', 'json']).default('text'))
    .option('--json', 'same as --format json (the formatVersion 1 document)')
    .option('--out <file>', 'save the plan, for `vigil apply <file>` (holds no secret values)')
    .option('--target <address>', 'plan only this resource and what it depends on (repeatable)', collectTargets)
    .option('--detailed-exitcode', 'exit 0 when there are no changes, 2 when there are, 1 on error')
    .option('--destroy', 'plan the deletion of every managed resource (what `vigil destroy` would do); save it with --out')
    .option('--local', 'use the embedded local service even when CI=true')
    .addOption(loadTimeoutOption())
    .option('--allow-empty', 'plan even when the project declares no resources but state manages some (deletes them all)')
    .addHelpText(
      'after',
      [
        '',
        'Target: VIGIL_API_URL, VIGIL_API_KEY, VIGIL_ACCOUNT_ID, or api.baseUrl in vigil.config.ts; with none,',
        'the embedded local service (database in .vigil/local/), which CI=true refuses without --local.',
        'Reads state from .vigil/state.json (or state.path in the config); plan never writes it.',
      ].join('\n'),
    )
    .action(async (flags: PlanFlags, command: Command) => {
      const format = flags.json ? 'json' : flags.format;
      // JSON is parsed and markdown is posted as a PR comment, so for them notices go to stderr.
      const log = (line: string) => (format === 'text' ? process.stdout : process.stderr).write(`${line}\n`);
      const session = await openSession(command, { local: flags.local ?? false, log });
      try {
        const engine = await import('@vigil/engine');
        const state = await currentState(session, await session.backend.read());
        if (state.journal.length > 0) {
          log(`Note: state records ${state.journal.length} unfinished operation(s) from an interrupted apply; the next apply recovers them first.`);
        }
        const planned = await computePlan(session, state, { targets: flags.target ?? [], destroy: flags.destroy ?? false });
        const { plan } = planned;
        if (format === 'json') process.stdout.write(engine.serializePlan(plan));
        else {
          const { namedTarget, targetHeader } = await import('../plan-target.js');
          const target = namedTarget(plan.target);
          if (format === 'markdown') process.stdout.write(engine.renderMarkdown(plan, { ...(flags.out ? { savedPlan: flags.out } : {}), ...(target ? { target } : {}) }));
          else process.stdout.write(targetHeader(plan) + engine.renderText(plan, { color: useColor(command) }));
        }

        const errors = plan.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
        if (errors.length > 0) {
          const { printDiagnostics } = await import('./validate.js');
          printDiagnostics(errors, (text) => process.stderr.write(text));
          throw new CliError('this plan cannot be applied (see above)');
        }
        if (flags.out) {
          const { writeFile } = await import('node:fs/promises');
          try {
            await writeFile(flags.out, engine.serializePlan(plan));
          } catch (error) {
            const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'its directory does not exist' : (error as Error).message;
            throw new CliError(`cannot save the plan to ${flags.out}: ${reason}`, { exitCode: 1 });
          }
          const what = flags.destroy ? 'destroy plan' : 'plan';
          log(`Saved the ${what} to ${flags.out}; review it with: vigil show ${flags.out}; apply exactly it with: vigil apply ${flags.out}`);
        }
        if (flags.detailedExitcode && engine.hasChanges(plan)) process.exitCode = 2;
      } finally {
        await session.close();
      }
    });
}
