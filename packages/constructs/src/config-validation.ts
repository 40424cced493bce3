import { AlertSettings, EnvironmentVariables, Frequency, Location, PlaywrightConfig, RetryStrategy, RuntimeId, formatIssues } from '@vigil/schema';
import { z } from 'zod';
import { CONFIG_SOURCE_KEY } from './brand.js';
import type { VigilConfig } from './config.js';
import { LOGICAL_ID_PATTERN } from './logical-id.js';
import { formatPath, type PathSegment } from './path.js';
import { closest } from './unknown-props.js';
import type { Diagnostic, SourceLocation } from './types.js';

const Glob = z.string().min(1);

/**
 * The shape of `vigil.config.ts`. Strict objects, so a misspelt option is reported instead of
 * silently ignored. Value sets come from `@vigil/schema`; alert channels are checked where checks
 * use them, since that is where a reference resolves.
 */
const checkDefaultFields = {
  activated: z.boolean().optional(),
  muted: z.boolean().optional(),
  frequency: z.union([Frequency, z.object({ frequency: Frequency, frequencyOffset: z.number().int().optional() })]).optional(),
  locations: z.array(Location).optional(),
  privateLocations: z.array(z.unknown()).optional(),
  tags: z.array(z.string()).optional(),
  runtimeId: RuntimeId.optional(),
  retryStrategy: RetryStrategy.nullable().optional(),
  alertEscalationPolicy: AlertSettings.optional(),
  alertChannels: z.array(z.unknown()).optional(),
  runParallel: z.boolean().optional(),
  shouldFail: z.boolean().optional(),
  doubleCheck: z.boolean().optional(),
  environmentVariables: EnvironmentVariables.unwrap().optional(),
  playwrightConfig: PlaywrightConfig.optional(),
};

/**
 * An http state address. Credentials in it would be committed with the config and sent to every
 * log that quotes the URL, so they are refused here and read from the environment instead.
 */
const StateUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .refine((value) => !URL.canParse(value) || (new URL(value).username === '' && new URL(value).password === ''), {
    error: 'must not contain credentials (set VIGIL_STATE_HTTP_USERNAME and VIGIL_STATE_HTTP_PASSWORD, or VIGIL_STATE_HTTP_TOKEN)',
  });

/**
 * A PostgreSQL connection URL without a password: the password comes from PGPASSWORD, or the whole
 * URL from VIGIL_STATE_PG_URL, so the config can be committed.
 */
const PostgresUrl = z
  .string()
  .refine((value) => /^postgres(ql)?:\/\//.test(value) && URL.canParse(value), { error: 'must be a postgres:// URL' })
  .refine((value) => !URL.canParse(value) || new URL(value).password === '', {
    error: 'must not contain a password (set PGPASSWORD, or the whole URL in VIGIL_STATE_PG_URL)',
  });

/** An HTTP method as Terraform's http backend takes it: `LOCK`, `PUT`, ... */
const HttpMethod = z.string().refine((value) => /^[A-Z]+$/.test(value), { error: 'must be an HTTP method in capitals, e.g. "LOCK" or "PUT"' });

/** Options a user may look for in `state` that are deliberately only in the environment. */
const ENVIRONMENT_ONLY_STATE_OPTIONS: Record<string, string> = {
  password: 'The password is read from VIGIL_STATE_HTTP_PASSWORD only, so it never sits in the repository.',
  token: 'The token is read from VIGIL_STATE_HTTP_TOKEN only, so it never sits in the repository.',
  accessKeyId: 'S3 credentials are read from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN only, so they never sit in the repository.',
  secretAccessKey: 'S3 credentials are read from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN only, so they never sit in the repository.',
};

/** The reporters of `vigil test` (packages/cli/src/testing/reporters.ts; a test there holds them equal). */
export const CLI_REPORTERS = ['list', 'dot', 'ci', 'github', 'json', 'junit'] as const;

/**
 * The shape of `vigil.config.ts`. Strict objects, so a misspelt option is reported instead of
 * silently ignored. Value sets come from `@vigil/schema`; alert channels and private locations are
 * checked where checks use them, since that is where a reference resolves.
 */
const VigilConfigSchema = z.strictObject({
  projectName: z.string().min(1),
  logicalId: z.string().regex(LOGICAL_ID_PATTERN),
  repoUrl: z.string().optional(),
  checks: z
    .strictObject({
      checkMatch: z.union([Glob, z.array(Glob).min(1)]).optional(),
      ignoreDirectoriesMatch: z.array(Glob).optional(),
      allowedScriptDirectories: z.array(z.string().min(1)).optional(),
      ...checkDefaultFields,
      multiStepChecks: z.strictObject({ ...checkDefaultFields, testMatch: z.union([Glob, z.array(Glob).min(1)]).optional() }).optional(),
      browserChecks: z.strictObject({ ...checkDefaultFields, testMatch: z.union([Glob, z.array(Glob).min(1)]).optional() }).optional(),
      playwrightConfigPath: z.string().min(1).optional(),
      include: z.union([z.string(), z.array(z.string())]).optional(),
      // Each entry's other props are the PlaywrightCheck's, which validates them where it is created.
      playwrightChecks: z.array(z.looseObject({ logicalId: z.string().regex(LOGICAL_ID_PATTERN), playwrightConfigPath: z.string().min(1).optional() })).optional(),
    })
    .optional(),
  state: z
    .discriminatedUnion('backend', [
      z.strictObject({ backend: z.literal('local'), path: z.string().min(1).optional() }),
      z.strictObject({
        backend: z.literal('http'),
        address: StateUrl,
        lockAddress: StateUrl.optional(),
        unlockAddress: StateUrl.optional(),
        lockMethod: HttpMethod.optional(),
        unlockMethod: HttpMethod.optional(),
        updateMethod: HttpMethod.optional(),
        username: z.string().min(1).optional(),
        retryMax: z.number().int().min(0).max(10).optional(),
        retryWaitMin: z.number().min(0).optional(),
        retryWaitMax: z.number().min(0).optional(),
      }),
      z.strictObject({ backend: z.literal('service') }),
      z.strictObject({ backend: z.literal('postgres'), connectionString: PostgresUrl.optional() }),
      z.strictObject({
        backend: z.literal('s3'),
        bucket: z.string().refine((value) => /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(value), { error: 'must be an S3 bucket name (3 to 63 lower-case letters, digits, dots and hyphens)' }),
        key: z.string().min(1).refine((value) => !value.startsWith('/') && !value.endsWith('.lock'), { error: 'must be an object key that does not start with "/" or end in ".lock" (vigil keeps its lock at <key>.lock)' }),
        region: z.string().refine((value) => /^[a-z0-9-]+$/.test(value), { error: 'must be a region name, e.g. "eu-west-1"' }).optional(),
        endpoint: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
      }),
    ])
    .optional(),
  api: z.strictObject({ baseUrl: z.url().optional(), accountId: z.string().min(1).optional() }).optional(),
  cli: z
    .strictObject({
      runLocation: z.string().min(1).optional(),
      privateRunLocation: z.string().min(1).optional(),
      reporters: z.array(z.enum(CLI_REPORTERS)).optional(),
      retries: z.number().int().min(0).max(3).optional(),
      verbose: z.boolean().optional(),
      loader: z.unknown().optional(),
    })
    .optional(),
});

/**
 * Options of the Checkly CLI's config that vigil does not implement: named as such, so a Checkly
 * project's config reads as "not supported yet" rather than as a typo.
 */
const CHECKLY_ONLY_OPTIONS = new Set<string>([]);

const CONFIG_HINTS: Record<string, string> = {
  logicalId: 'The project logical id may only contain letters, digits and _ - / # . (e.g. "shop-monitoring").',
  'checks.frequency': 'Use a Frequency builder, e.g. `frequency: Frequency.EVERY_5M`.',
  'checks.locations': 'Use data-center locations such as "eu-west-1" or "us-east-1".',
  'checks.runtimeId': 'Use one of the runtime ids listed, e.g. "2026.04" (the newest).',
  'cli.retries': 'vigil test retries a failed run at most 3 times, as the Checkly CLI does.',
  'cli.reporters': `vigil test's reporters are ${CLI_REPORTERS.join(', ')}.`,
  state:
    'Backends are `{ backend: "local", path? }`, `{ backend: "service" }` (state kept by the target service), `{ backend: "http", address, ... }` (Terraform\'s http backend protocol), `{ backend: "postgres", connectionString? }` and `{ backend: "s3", bucket, key, region?, endpoint? }`.',
  api: 'The service is configured with `api: { baseUrl, accountId }` or the VIGIL_API_URL / VIGIL_ACCOUNT_ID variables.',
};

function hintFor(path: readonly PathSegment[]): string | undefined {
  const named = path.filter((segment): segment is string => typeof segment === 'string');
  return CONFIG_HINTS[named.slice(0, 2).join('.')] ?? CONFIG_HINTS[named[0] ?? ''];
}

/** "Did you mean" for a misspelt option, from the options of the object that holds it. */
function suggestOption(path: readonly PathSegment[], key: string): string | undefined {
  let shape: z.ZodType = VigilConfigSchema;
  for (const segment of path) {
    const unwrapped = shape instanceof z.ZodOptional ? shape.unwrap() : shape;
    if (!(unwrapped instanceof z.ZodObject) || typeof segment !== 'string') return undefined;
    const next = (unwrapped.shape as Record<string, z.ZodType>)[segment];
    if (next === undefined) return undefined;
    shape = next;
  }
  const object = shape instanceof z.ZodOptional ? shape.unwrap() : shape;
  if (!(object instanceof z.ZodObject)) return undefined;
  const suggestion = closest(key, Object.keys(object.shape));
  return suggestion === undefined ? undefined : `Did you mean "${suggestion}"?`;
}

function unknownOption(path: PathSegment[]): { path: PathSegment[]; message: string; hint: string | undefined } {
  const name = formatPath(path);
  const environmentOnly = path[0] === 'state' && path.length === 2 ? ENVIRONMENT_ONLY_STATE_OPTIONS[String(path[1])] : undefined;
  if (environmentOnly !== undefined) return { path, message: `"${name}" is not a config option`, hint: environmentOnly };
  if (CHECKLY_ONLY_OPTIONS.has(name)) {
    return {
      path,
      message: `"${name}" is a Checkly config option vigil does not support yet`,
      hint: 'Remove it to load the project with vigil (or keep it in Checkly); docs/migrating-from-checkly.md lists what vigil supports.',
    };
  }
  return { path, message: `"${name}" is not a config option`, hint: suggestOption(path.slice(0, -1), String(path[path.length - 1])) };
}

/** Every problem of a config, each located at the `defineConfig` call. */
export function validateConfig(config: VigilConfig): Diagnostic[] {
  const source = (config as { [CONFIG_SOURCE_KEY]?: SourceLocation })[CONFIG_SOURCE_KEY];
  const parsed = VigilConfigSchema.safeParse(config);
  if (parsed.success) return [];
  const diagnostics: Diagnostic[] = [];
  for (const issue of parsed.error.issues) {
    const path = issue.path.filter((s): s is PathSegment => typeof s !== 'symbol');
    const messages =
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => unknownOption([...path, key]))
        : [{ path, message: formatIssues(new z.ZodError([issue])).message, hint: hintFor(path) }];
    for (const entry of messages) {
      const diagnostic: Diagnostic = { severity: 'error', message: `vigil.config: ${entry.message}` };
      const hint = entry.hint;
      if (hint !== undefined) diagnostic.hint = hint;
      if (entry.path.length > 0) diagnostic.path = formatPath(entry.path);
      if (source !== undefined) diagnostic.source = source;
      diagnostics.push(diagnostic);
    }
  }
  return diagnostics;
}
