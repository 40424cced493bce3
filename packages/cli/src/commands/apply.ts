import type { Command } from 'commander';
import { runApply, type ApplyFlags } from '../apply-run.js';
import { collectTargets } from '../workflow.js';
import { loadTimeoutOption } from './validate.js';

export function addApplyOptions(command: Command): Command {
  return command
    .option('--auto-approve', 'skip the confirmation (required when not on a terminal or with CI=true)')
    .option('--parallelism <n>', 'how many independent API calls run at once', '10')
    .option('--lock-timeout <duration>', 'how long to wait for another apply to release the state lock (e.g. 30s, 2m)', '0s')
    .option('--target <address>', 'only this resource and what it depends on (repeatable)', collectTargets)
    .option('--local', 'use the embedded local service even when CI=true')
    .addOption(loadTimeoutOption());
}

export function registerApply(program: Command): void {
  addApplyOptions(
    program
      .command('apply')
      .description('make the monitoring service match the code: create, update and delete in dependency order')
      .argument('[plan-file]', 'a plan saved with `vigil plan --out`; applied only if it is still exactly what would be done'),
  )
    .option('--allow-empty', 'apply even when the project declares no resources but state manages some (deletes them all)')
    .addHelpText(
      'after',
      [
        '',
        'Every step is journaled in state before its API call, so an apply killed at any moment is finished',
        'by the next one with no duplicate and no orphan. A failed call skips only what depends on it.',
      ].join('\n'),
    )
    .action(async (planFile: string | undefined, flags: ApplyFlags, command: Command) => {
      await runApply(command, { mode: 'apply', flags, savedPlanPath: planFile });
    });
}
