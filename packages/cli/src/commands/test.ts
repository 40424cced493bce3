import { Command, Option } from 'commander';
import { CliError, usageError } from '../errors.js';
import { parseParallelism } from '../flags.js';
import { REPORTERS, type ReporterName } from '../testing/reporters.js';
import { collectTagSet, collectVariable, parseGrep } from '../testing/selection.js';
import { loadFromCommand, loadTimeoutOption, printDiagnostics } from './validate.js';

interface TestFlags {
  grep?: string;
  tags?: string[][];
  location?: string[];
  parallelism: string;
  retries?: string;
  env?: Array<[string, string]>;
  envFile?: string;
  timeout: string;
  list?: boolean;
  reporter?: ReporterName;
}

const DEFAULT_TIMEOUT_SECONDS = 600;

export function registerTest(program: Command): void {
  program
    .command('test')
    .description("run the project's checks now, from this machine, before deploying them (nothing is deployed)")
    .argument('[pattern...]', 'run only checks whose file path (from the project root) or logical id contains a pattern; * and ? glob')
    .option('-g, --grep <regex>', 'run only checks whose name matches the regular expression')
    .option('-t, --tags <tags>', 'run only checks with all of these comma-separated tags; repeat for any of several sets', collectTagSet)
    .option('-l, --location <location>', 'run each check once in this location label (repeatable; default: its first location)', collect)
    .option('-p, --parallelism <n>', 'runs at once, 1 to 100', '10')
    .option('-r, --retries <n>', "retries after a failed run, 0 to 3 (default: each check's own retryStrategy)")
    .option('-e, --env <KEY=VALUE>', 'a variable for {{KEY}} and scripts; overrides the project\'s (repeatable)', collectVariable)
    .option('--env-file <file>', 'read variables from a dotenv file (-e wins over it)')
    .option('--timeout <seconds>', 'stop the whole session after this many seconds', String(DEFAULT_TIMEOUT_SECONDS))
    .option('--list', 'list the runs that would be made, without running anything')
    .addOption(loadTimeoutOption())
    .addOption(new Option('--reporter <name>', 'output: list (default on a terminal), ci (default otherwise), dot, github, json, junit').choices([...REPORTERS]))
    .addHelpText(
      'after',
      [
        '',
        'Loads the project as plan does and runs the selected checks with the same runner the service uses.',
        'Checks with testOnly: true are run here but never deployed. Heartbeat checks are listed as skipped.',
        'Variables resolve from -e, then --env-file, then the check\'s, its group\'s and the config\'s.',
        "The config's cli option (runLocation, retries, reporters) sets the defaults of --location, --retries and --reporter.",
        'Exit status: 0 when every run passed (degraded runs pass), 1 when any failed, 2 on usage errors.',
        '--reporter json prints {formatVersion: 1, summary, results} (docs/cli.md); github also writes',
        '$GITHUB_STEP_SUMMARY when it is set; junit prints JUnit XML.',
      ].join('\n'),
    )
    .action(async (patterns: string[], flags: TestFlags, command: Command) => {
      const parsed = parseFlags(patterns, flags);
      const { runTests } = await import('../testing/session.js');
      const loaded = await loadFromCommand(command);
      if (printDiagnostics(loaded.diagnostics, (text) => process.stderr.write(text))) {
        throw new CliError('the project has errors (listed above); nothing was tested', { exitCode: 1 });
      }
      const { withConfigDefaults } = await import('../testing/config-defaults.js');
      const options = withConfigDefaults(parsed, flags, loaded.config?.cli);
      process.exitCode = await runTests(loaded, options, command);
    });
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export type TestOptions = ReturnType<typeof parseFlags>;

/** Every flag checked before the project is loaded, so a typo costs nothing. */
function parseFlags(patterns: string[], flags: TestFlags) {
  const retries = flags.retries === undefined ? undefined : Number(flags.retries);
  if (retries !== undefined && (!Number.isInteger(retries) || retries < 0 || retries > 3)) {
    throw usageError(`--retries must be a whole number from 0 to 3, got "${flags.retries}"`);
  }
  const timeoutSeconds = Number(flags.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) throw usageError(`--timeout must be a positive number of seconds, got "${flags.timeout}"`);
  const locations = flags.location ?? [];
  const empty = locations.find((location) => location.trim() === '');
  if (empty !== undefined) throw usageError('--location must not be empty');
  return {
    selection: { patterns, tagSets: flags.tags ?? [], ...(flags.grep === undefined ? {} : { grep: parseGrep(flags.grep) }) },
    locations,
    parallelism: parseParallelism(flags.parallelism),
    retries,
    timeoutMs: timeoutSeconds * 1000,
    variables: flags.env ?? [],
    envFile: flags.envFile,
    list: flags.list === true,
    reporter: flags.reporter ?? (process.stdout.isTTY ? 'list' : 'ci'),
  };
}
