import type { Command } from 'commander';
import { runApply, type ApplyFlags } from '../apply-run.js';
import { addApplyOptions } from './apply.js';

export function registerDestroy(program: Command): void {
  addApplyOptions(program.command('destroy').description('delete every resource this project manages, dependents first'))
    .addHelpText('after', '\nProtected resources (`protect: true`) stop the destroy; remove the flag and apply first.')
    .action(async (flags: ApplyFlags, command: Command) => {
      await runApply(command, { mode: 'destroy', flags });
    });
}
