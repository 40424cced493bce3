import type { CliConfig } from '@vigil/constructs';
import type { TestOptions } from '../commands/test.js';
import type { ReporterName } from './reporters.js';

/** The flags whose defaults a config's `cli` option sets; undefined when not given on the command line. */
export interface DefaultableFlags {
  location?: string[];
  retries?: string;
  reporter?: ReporterName;
}

/**
 * `vigil test`'s options with the config's `cli` defaults (Checkly's `cli: { runLocation, retries,
 * reporters }`) filled in where no flag was given: a flag always wins. Checkly runs a test session
 * in one location, so `runLocation` (else `privateRunLocation`) becomes the one location label;
 * vigil prints through one reporter, so the first of `reporters` is used.
 */
export function withConfigDefaults(options: TestOptions, flags: DefaultableFlags, cli: CliConfig | undefined): TestOptions {
  if (cli === undefined) return options;
  const result = { ...options };
  const location = cli.runLocation ?? cli.privateRunLocation;
  if (flags.location === undefined && location !== undefined) result.locations = [location];
  if (flags.retries === undefined && cli.retries !== undefined) result.retries = cli.retries;
  const reporter = cli.reporters?.[0];
  if (flags.reporter === undefined && reporter !== undefined) result.reporter = reporter;
  return result;
}
