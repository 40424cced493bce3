/**
 * Playwright check suites (checkType PLAYWRIGHT): `POST /v1/checks/playwright`,
 * `PUT /v1/checks/playwright/{id}` and the check as the service returns it.
 *
 * The real service's OpenAPI document has the response (`ChecksV1PlaywrightCheck`: `testCommand`
 * default "npx playwright test", `installCommand` default "", `cacheHash`, `environmentVariables`,
 * frequency without 0, no `retryStrategy`) but no create or update call: Checkly's CLI uploads the
 * suite as a code bundle (`codeBundlePath`) through its project deploy. These two routes are Vigil
 * extensions (docs/design-deviations.md), and the bundle travels inline as `codeBundle`: the suite's
 * files by their path from the project root, bounded by {@link PLAYWRIGHT_BUNDLE_MAX_FILES} and
 * {@link PLAYWRIGHT_BUNDLE_MAX_BYTES}. `playwrightConfigPath`, `pwProjects` and `pwTags` are kept
 * as their own fields (Checkly folds them into `testCommand`) so plans and imports can show them.
 */
import { z } from 'zod';
import { EnvironmentVariableResponse, type EnvironmentVariable, EnvironmentVariables } from './embedded.js';
import { checkResponseFields, commonCheckDefaults, commonCheckFields, refineFrequencyOffset } from './checks.js';
import { allOptional, whenFieldsValid, withDefaults } from './helpers.js';
import { MultiStepFrequency } from './values.js';

/** At most this many files in one suite's bundle. */
export const PLAYWRIGHT_BUNDLE_MAX_FILES = 200;
/** At most this many characters of file content in one suite's bundle (1 MiB, as a script's limit). */
export const PLAYWRIGHT_BUNDLE_MAX_BYTES = 1024 * 1024;
/** Checkly's default `testCommand` (the real OpenAPI's `ChecksV1PlaywrightCheck`). */
export const PLAYWRIGHT_DEFAULT_TEST_COMMAND = 'npx playwright test';

/**
 * Forms of `testCommand` that invoke Playwright's test runner; what follows `test` is passed on as
 * arguments. Any other command is refused: the runner never hands a command line to a shell.
 */
const TEST_COMMAND = /^\s*(?:(?:npx|bunx|pnpx)(?:\s+--yes|\s+-y)?\s+|(?:pnpm|yarn|bun)\s+(?:exec\s+|run\s+)?|npm\s+exec\s+(?:--\s+)?)?playwright\s+test(?=\s|$)(.*)$/;

/** The arguments a `testCommand` passes to Playwright, or undefined when it does not run Playwright's test runner. */
export function playwrightTestArguments(testCommand: string): string[] | undefined {
  const match = TEST_COMMAND.exec(testCommand);
  if (!match) return undefined;
  return splitArguments(match[1] ?? '');
}

/** Shell-like word splitting with '…' and "…" quotes and no expansion of anything. */
function splitArguments(text: string): string[] | undefined {
  const words: string[] = [];
  let current: string | undefined;
  let quote: string | undefined;
  for (const char of text) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else current = (current ?? '') + char;
    } else if (char === '"' || char === "'") {
      quote = char;
      current ??= '';
    } else if (/\s/.test(char)) {
      if (current !== undefined) words.push(current);
      current = undefined;
    } else if (/[;&|<>`$()]/.test(char)) {
      // Shell syntax would mean a second command or a substitution; nothing runs through a shell here.
      return undefined;
    } else {
      current = (current ?? '') + char;
    }
  }
  if (quote !== undefined) return undefined;
  if (current !== undefined) words.push(current);
  return words;
}

/** A POSIX path below the bundle's root: no `..`, no absolute path, no backslash. */
const BundlePath = z
  .string()
  .min(1)
  .max(300)
  .refine((value) => !value.startsWith('/') && !value.includes('\\') && !value.split('/').some((part) => part === '..' || part === '.' || part === ''), {
    message: 'must be a relative POSIX path inside the project (no "..", no leading "/")',
  });

export const PlaywrightBundleFile = z.object({ path: BundlePath, content: z.string() });
export type PlaywrightBundleFile = z.infer<typeof PlaywrightBundleFile>;

export const PlaywrightCodeBundle = z
  .array(PlaywrightBundleFile)
  .min(1)
  .max(PLAYWRIGHT_BUNDLE_MAX_FILES)
  .superRefine((files, ctx) => {
    const size = files.reduce((total, file) => total + file.content.length, 0);
    if (size > PLAYWRIGHT_BUNDLE_MAX_BYTES) {
      ctx.addIssue({ code: 'custom', message: `the suite's files hold ${size} characters, more than ${PLAYWRIGHT_BUNDLE_MAX_BYTES}` });
    }
    const seen = new Set<string>();
    for (const [index, file] of files.entries()) {
      if (seen.has(file.path)) ctx.addIssue({ code: 'custom', path: [index, 'path'], message: `"${file.path}" is listed twice` });
      seen.add(file.path);
    }
  });

const playwrightCheckFields = {
  ...commonCheckFields,
  checkType: z.literal('PLAYWRIGHT').optional(),
  // The real document's frequency enum has no 0: a suite cannot run sub-minute.
  frequency: MultiStepFrequency.optional(),
  /** The Playwright config's path inside `codeBundle` (so, from the project root). */
  playwrightConfigPath: BundlePath,
  testCommand: z.string().min(1).max(1000).optional(),
  installCommand: z.string().max(1000).optional(),
  pwProjects: z.array(z.string().min(1)).max(50).optional(),
  pwTags: z.array(z.string().min(1)).max(50).optional(),
  environmentVariables: EnvironmentVariables.optional(),
  codeBundle: PlaywrightCodeBundle,
  /** sha256 of the bundle, as the real service's `cacheHash`. */
  cacheHash: z.string().nullable().optional(),
};

const playwrightCheckCreateShape = withDefaults(playwrightCheckFields, {
  ...commonCheckDefaults,
  checkType: 'PLAYWRIGHT',
  // Playwright retries inside the suite (its config's `retries`); the service never double-checks one.
  doubleCheck: false,
  testCommand: PLAYWRIGHT_DEFAULT_TEST_COMMAND,
  installCommand: '',
  pwProjects: [] as string[],
  pwTags: [] as string[],
  environmentVariables: [] as EnvironmentVariable[],
});

const OFFSET_FIELDS = whenFieldsValid('frequency', 'frequencyOffset', 'checkType');

/** Body of `POST /v1/checks/playwright` (extension); required `name`, `playwrightConfigPath`, `codeBundle`. */
export const PlaywrightCheckCreate = z.object(playwrightCheckCreateShape).superRefine(refineFrequencyOffset(() => 'OTHER'), OFFSET_FIELDS);
export type PlaywrightCheckCreate = z.infer<typeof PlaywrightCheckCreate>;
export type PlaywrightCheckCreateInput = z.input<typeof PlaywrightCheckCreate>;

/** Body of `PUT /v1/checks/playwright/{id}` (extension): merge semantics, nothing defaulted. */
export const PlaywrightCheckUpdate = z.object(allOptional(playwrightCheckFields)).superRefine(refineFrequencyOffset(() => 'OTHER'), OFFSET_FIELDS);
export type PlaywrightCheckUpdate = z.infer<typeof PlaywrightCheckUpdate>;

/** A Playwright check suite as the service returns it (secret variables with `value: null`). */
export const PlaywrightCheck = z.object({
  ...playwrightCheckCreateShape,
  ...checkResponseFields,
  checkType: z.literal('PLAYWRIGHT'),
  frequencyOffset: z.number().int(),
  environmentVariables: z.array(EnvironmentVariableResponse).nullable(),
});
export type PlaywrightCheck = z.infer<typeof PlaywrightCheck>;
