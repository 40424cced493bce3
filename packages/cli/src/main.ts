import { Command, CommanderError } from 'commander';
import { COMMANDS } from './commands/index.js';
import { isCliError } from './errors.js';
import { VERSION } from './version.js';

export function buildProgram(): Command {
  const program = new Command('vigil')
    .description('Monitoring as code: plan and apply checks, groups and maintenance windows from *.monitor.ts files.')
    .version(VERSION, '-v, --version', 'print the vigil version')
    .option('--config <file>', 'project config file', './vigil.config.ts')
    .option('--no-color', 'disable colored output (also NO_COLOR=1)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const register of COMMANDS) register(program);
  return program;
}

/** Runs the CLI and resolves to the process exit code; never throws. */
export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version arrive here as "errors" with exit code 0.
      return error.exitCode;
    }
    if (isCliError(error)) {
      process.stderr.write(`Error: ${error.message}\n`);
      return error.exitCode;
    }
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`Error: unexpected failure; this is a bug in vigil.\n${detail}\n`);
    return 1;
  }
}
