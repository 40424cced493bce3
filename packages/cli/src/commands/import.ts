import { RESOURCE_KINDS } from '@vigil/constructs';
import type { Command } from 'commander';
import { loadTimeoutOption } from './validate.js';

export interface ImportFlags {
  out?: string;
  dryRun?: boolean;
  tag?: string;
  name?: string;
  local?: boolean;
  lockTimeout: string;
}

export function registerImport(program: Command): void {
  program
    .command('import')
    .description('adopt resources that exist on the monitoring service but not in this project: write them as code and record them in state')
    .argument('[filter...]', 'kinds (api-check) or single resources (api-check.<id>) to import; all unmanaged resources by default')
    .option('--out <dir>', 'directory for the generated *.monitor.ts files (default: imported/ in the project root)')
    .option('--dry-run', 'print the files and the resources it would adopt; write nothing')
    .option('--tag <tag>', 'only resources carrying this tag')
    .option('--name <regex>', 'only resources whose name matches this regular expression')
    .option('--lock-timeout <duration>', 'how long to wait for another command to release the state lock (e.g. 30s, 2m)', '0s')
    .option('--local', 'use the embedded local service even when CI=true')
    .addOption(loadTimeoutOption())
    .addHelpText(
      'after',
      [
        '',
        `Kinds: ${RESOURCE_KINDS.join(', ')}.`,
        'Secrets are written as process.env.NAME; the command lists the variables to set before the next plan.',
        'State is written only after the files are, so the next `vigil plan` reports no changes.',
      ].join('\n'),
    )
    .action(async (filters: string[], flags: ImportFlags, command: Command) => {
      const { runImport } = await import('../import/run.js');
      await runImport(command, filters, flags);
    });
}
