import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Option, type Command } from 'commander';
import { LEGACY_PACKAGE_NAME, PACKAGE_NAME } from '@vigil/constructs/package-name';
import type { Diagnostic, LoadedProject } from '@vigil/engine';
import { CliError } from '../errors.js';
import { parseLoadTimeoutFlag } from '../flags.js';

/** `true` inside the bundle scripts/build.mjs makes (esbuild `define`); undeclared when run from source. */
declare const __VIGIL_BUNDLED__: boolean | undefined;

/**
 * The files user code's imports of the package (`@vigil-mon/cli`, `@vigil-mon/cli/constructs`), of
 * its name before the rename (`vigil`, `vigil/constructs`: projects load unchanged, and never from
 * node_modules, where `vigil` is an unrelated package), of `@vigil/constructs`, `checkly` and
 * `checkly/constructs` resolve to: the very modules this process runs, so the user's constructs and
 * the CLI share one instance.
 */
export function cliModuleAliases(): Record<string, string> {
  if (typeof __VIGIL_BUNDLED__ !== 'undefined' && __VIGIL_BUNDLED__) {
    // Every chunk of the bundle sits in dist/, beside its entry points.
    const dist = path.dirname(fileURLToPath(import.meta.url));
    const constructs = path.join(dist, 'constructs.mjs');
    const index = path.join(dist, 'index.mjs');
    return packageAliases(index, constructs, constructs);
  }
  const constructs = realpathSync(createRequire(import.meta.url).resolve('@vigil/constructs'));
  const index = fileURLToPath(new URL('../index.ts', import.meta.url));
  const cliConstructs = fileURLToPath(new URL('../constructs.ts', import.meta.url));
  return packageAliases(index, cliConstructs, constructs);
}

function packageAliases(index: string, constructs: string, workspaceConstructs: string): Record<string, string> {
  const aliases: Record<string, string> = { '@vigil/constructs': workspaceConstructs };
  // A Checkly project's `checkly` and `checkly/constructs` imports load unchanged.
  for (const name of [PACKAGE_NAME, LEGACY_PACKAGE_NAME, 'checkly']) {
    aliases[name] = index;
    aliases[`${name}/constructs`] = constructs;
  }
  return aliases;
}

/**
 * `--load-timeout`, for every command that loads the project; {@link loadFromCommand} reads it.
 * Commands without it load with the default.
 */
export function loadTimeoutOption(): Option {
  return new Option(
    '--load-timeout <duration>',
    'how long the config and monitor files may take to evaluate, top-level awaits included (e.g. 30s, 2m)',
  ).default('30s');
}

export function addLoadOptions(command: Command): Command {
  return command.addOption(loadTimeoutOption());
}

/**
 * Loads the project named by the global `--config` option. A missing config file is a CliError;
 * problems in the user's code come back as diagnostics.
 *
 * A load that timed out leaves the user's code running, and whatever it waits on (a timer, a
 * socket) would keep vigil alive after the command ends; so then the diagnostics are printed and
 * the process exits here.
 */
export async function loadFromCommand(command: Command): Promise<LoadedProject> {
  const { config, loadTimeout } = command.optsWithGlobals<{ config?: string; loadTimeout?: string }>();
  const timeoutMs = loadTimeout === undefined ? undefined : await parseLoadTimeoutFlag(loadTimeout);
  const { loadProject, ProjectNotFoundError } = await import('@vigil/engine');
  let loaded: LoadedProject;
  try {
    loaded = await loadProject({
      ...(config !== undefined ? { configPath: config } : {}),
      cwd: process.cwd(),
      aliases: cliModuleAliases(),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });
  } catch (error) {
    if (error instanceof ProjectNotFoundError) throw new CliError(error.message, { exitCode: 1, cause: error });
    throw error;
  }
  if (loaded.stalled === 'timeout') {
    printDiagnostics(loaded.diagnostics, (text) => process.stderr.write(text));
    process.stderr.write('Error: the project did not finish loading (see above)\n');
    process.exit(1);
  }
  return loaded;
}

/**
 * One diagnostic as `file:line:col  error  message  (address.field)`, then an indented `hint:`
 * line when there is one. The location is left out when the problem has none.
 */
export function formatDiagnostic(diagnostic: Diagnostic): string {
  const { source, address, path } = diagnostic;
  const location = source ? `${source.file}:${source.line}:${source.column}  ` : '';
  const subject = address !== undefined ? `  (${path ? `${address}.${path}` : address})` : '';
  const line = `${location}${diagnostic.severity}  ${diagnostic.message}${subject}`;
  return diagnostic.hint ? `${line}\n  hint: ${diagnostic.hint}` : line;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** `✔ 12 resources valid`, `✔ 12 resources valid, 1 warning` or `2 errors, 1 warning`. */
export function summaryLine(diagnostics: readonly Diagnostic[], resourceCount: number): string {
  const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  if (errors > 0) return warnings > 0 ? `${plural(errors, 'error')}, ${plural(warnings, 'warning')}` : plural(errors, 'error');
  const valid = `✔ ${plural(resourceCount, 'resource')} valid`;
  return warnings > 0 ? `${valid}, ${plural(warnings, 'warning')}` : valid;
}

/** Prints every diagnostic; returns whether any is an error. */
export function printDiagnostics(diagnostics: readonly Diagnostic[], write: (text: string) => void): boolean {
  for (const diagnostic of diagnostics) write(`${formatDiagnostic(diagnostic)}\n`);
  return diagnostics.some((diagnostic) => diagnostic.severity === 'error');
}

export function registerValidate(program: Command): void {
  addLoadOptions(
    program.command('validate').description('load the project and report every problem in it, offline (no API calls)'),
  )
    .addHelpText(
      'after',
      [
        '',
        'Prints one line per problem, `file:line:col  error|warning  message  (address.field)`,',
        'followed by a `hint:` line where there is advice, then a summary. Exits 1 on any error.',
      ].join('\n'),
    )
    .action(async (_options: unknown, command: Command) => {
      const loaded = await loadFromCommand(command);
      const write = (text: string) => process.stdout.write(text);
      const failed = printDiagnostics(loaded.diagnostics, write);
      const resourceCount = failed ? loaded.project.constructs().length : loaded.specs.length;
      write(`${summaryLine(loaded.diagnostics, resourceCount)}\n`);
      if (failed) process.exitCode = 1;
    });
}
