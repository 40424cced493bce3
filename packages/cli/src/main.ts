import { Command, CommanderError } from 'commander';
import { COMMANDS } from './commands/index.js';
import { USAGE_EXIT_CODE, isCliError, redact, userErrorOf } from './errors.js';
import { VERSION } from './version.js';

export function buildProgram(): Command {
  const program = new Command('vigil')
    .description('Monitoring as code: plan and apply checks, groups and maintenance windows from *.monitor.ts files.')
    .version(VERSION, '-v, --version', 'print the vigil version')
    .option('--config <file>', 'project config file (default: the nearest vigil.config.ts in this directory or above)')
    .option('--no-color', 'disable colored output (also NO_COLOR=1)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const register of COMMANDS) register(program);
  return program;
}

let closedPipeHandled = false;

/**
 * A reader that stops early (`vigil state list | head -3`) closes the pipe under the output: that
 * ends the command quietly, as Unix tools end, instead of an unhandled EPIPE and a stack trace.
 */
function endQuietlyOnClosedPipe(): void {
  if (closedPipeHandled) return;
  closedPipeHandled = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      throw error;
    });
  }
}

/** Runs the CLI and resolves to the process exit code; never throws. */
export async function main(argv: readonly string[]): Promise<number> {
  endQuietlyOnClosedPipe();
  const program = buildProgram();
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version arrive here as "errors" with exit code 0; commander has printed the rest.
      return error.exitCode === 0 ? 0 : usageExitCode(argv);
    }
    // Messages may quote the service, which may echo a request: redacted before they are printed.
    const userError = isCliError(error) ? error : await userErrorOf(error);
    if (userError) {
      process.stderr.write(`Error: ${redact(userError.message)}\n`);
      return userError.exitCode === USAGE_EXIT_CODE ? usageExitCode(argv) : userError.exitCode;
    }
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`Error: unexpected failure; this is a bug in vigil.\n${redact(detail)}\n`);
    return 1;
  }
}

/** With `--detailed-exitcode`, 2 means "there are changes", so a usage error must not exit 2 there. */
function usageExitCode(argv: readonly string[]): number {
  return argv.includes('--detailed-exitcode') ? 1 : USAGE_EXIT_CODE;
}
