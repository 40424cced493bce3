import { CONFIG_SOURCE_KEY } from './brand.js';
import type { AlertEscalation } from './alert-escalation-policy.js';
import type { AlertChannelReference } from './alert-channel.js';
import type { PlaywrightConfig } from '@vigil/schema';
import type { EnvironmentVariable } from './check.js';
import type { PlaywrightCheckProps } from './playwright-check.js';
import type { PrivateLocationReference } from './private-location.js';
import type { FrequencyValue } from './frequency.js';
import type { RetryStrategy } from './retry-strategy.js';
import { captureUserSource } from './source-location.js';
import type { Location, RuntimeId } from './values.js';

/**
 * Defaults for every check of the project. The cascade at synth is: these defaults, then the
 * check's group, then the check's own props (the most specific wins).
 */
export interface CheckDefaults {
  /** Glob (or globs) of the files that declare constructs, relative to the project root. */
  checkMatch?: string | string[];
  /** Directory globs never searched for construct files (`node_modules` is always ignored). */
  ignoreDirectoriesMatch?: string[];
  /**
   * Directories outside the project root that check scripts (`code.entrypoint`,
   * `setupScript.entrypoint`, ... and the files they import) may come from, relative to the project
   * root or absolute, e.g. `['../common/checks']` in a monorepo. Scripts are bundled and uploaded to
   * the monitoring service, so by default only files inside the project root are.
   */
  allowedScriptDirectories?: string[];
  /** Whether checks run. Default true. */
  activated?: boolean;
  /** Whether checks' failure and recovery notifications are suppressed. Default false. */
  muted?: boolean;
  /** How often checks run: minutes, or a `Frequency` builder value. Default 10. */
  frequency?: FrequencyValue;
  /** Data-center locations checks run from. */
  locations?: Location[];
  /** Private locations checks run from: slug names, `PrivateLocation`s or `PrivateLocation.fromId(id)`. */
  privateLocations?: PrivateLocationReference[];
  /** Tags added to every check that sets none of its own. */
  tags?: string[];
  /** Runtime version of check scripts. */
  runtimeId?: RuntimeId;
  /** Retry policy of failing checks (`RetryStrategyBuilder`). */
  retryStrategy?: RetryStrategy | null;
  /** Alert escalation of checks (`AlertEscalationBuilder`). */
  alertEscalationPolicy?: AlertEscalation;
  /** Alert channels every check subscribes to unless it names its own. */
  alertChannels?: AlertChannelReference[];
  /** Whether checks run in all their locations at once instead of round-robin. */
  runParallel?: boolean;
  /** Inverts what counts as a failure for every check that sets none of its own. Default false. */
  shouldFail?: boolean;
  /**
   * Retry a failed run once from another location; applies to checks whose retry strategy is not
   * set at any level. @deprecated Use {@link CheckDefaults.retryStrategy}.
   */
  doubleCheck?: boolean;
  /**
   * Environment variables of every check with scripts (multi-step checks) that sets none of its
   * own, as in Checkly: the check's own list replaces this one rather than merging with it; the
   * group's variables still apply at run time.
   */
  environmentVariables?: EnvironmentVariable[];
  /**
   * Playwright settings (`use`, `expect`, `timeout`) of every browser check that sets none of its
   * own. Checkly also applies them to multi-step checks; the service's multi-step checks take none,
   * so there they are accepted and not sent.
   */
  playwrightConfig?: PlaywrightConfig;
  /** Defaults of multi-step checks, before the ones above, and where spec files become checks. */
  multiStepChecks?: MultiStepCheckDefaults;
  /** Defaults of browser checks, before the ones above, and where spec files become browser checks. */
  browserChecks?: BrowserCheckDefaults;
  /**
   * The Playwright config of the `playwrightChecks` that name none, relative to the project root.
   * Without `playwrightChecks` it is one `PlaywrightCheck` of its own, named and identified by the
   * config's file name (as the Checkly CLI does).
   */
  playwrightConfigPath?: string;
  /**
   * Playwright check suites declared in the config (Checkly's `checks.playwrightChecks`): each is a
   * `PlaywrightCheck` with its `logicalId`; `playwrightConfigPath` is relative to the project root
   * and defaults to `checks.playwrightConfigPath`.
   */
  playwrightChecks?: PlaywrightCheckEntry[];
  /**
   * Further files to bundle with the config's Playwright suites (`playwrightChecks`,
   * `playwrightConfigPath`): globs relative to each suite's Playwright config directory.
   */
  include?: string | string[];
}

/** One entry of `checks.playwrightChecks`: a `PlaywrightCheck`'s props plus its logical id. */
export type PlaywrightCheckEntry = Omit<PlaywrightCheckProps, 'playwrightConfigPath'> & { logicalId: string; playwrightConfigPath?: string };

/** `checks.browserChecks` (and a group's `browserChecks`): defaults of browser checks, and their spec files. */
export interface BrowserCheckDefaults extends Omit<MultiStepCheckDefaults, 'testMatch'> {
  /**
   * Glob (or globs) of Playwright spec files: each match becomes a `BrowserCheck` whose logical id
   * is its path from the project root, as the Checkly CLI does. In the config the globs are relative
   * to the project root (a spec already used as a check's entrypoint is skipped); in a group, to the
   * group's file, and the checks join the group.
   */
  testMatch?: string | string[];
}

/** `checks.multiStepChecks`: defaults that only multi-step checks take, and their spec files. */
export interface MultiStepCheckDefaults
  extends Pick<
    CheckDefaults,
    | 'activated' | 'muted' | 'frequency' | 'locations' | 'privateLocations' | 'tags' | 'runtimeId' | 'retryStrategy'
    | 'alertEscalationPolicy' | 'alertChannels' | 'runParallel' | 'shouldFail' | 'doubleCheck' | 'environmentVariables' | 'playwrightConfig'
  > {
  /**
   * Glob (or globs) of Playwright spec files, relative to the project root: each match becomes a
   * `MultiStepCheck` named after the file, whose logical id is its path from the project root (as
   * the Checkly CLI does), unless a check in a monitor file already uses it as its entrypoint.
   */
  testMatch?: string | string[];
}

/** The defaults a multi-step check cascades from: `checks.multiStepChecks` over `checks`. */
export function multiStepCheckDefaults(checks: CheckDefaults): CheckDefaults {
  const own = Object.entries(checks.multiStepChecks ?? {}).filter(([key, value]) => key !== 'testMatch' && value !== undefined);
  return { ...checks, ...Object.fromEntries(own) };
}

/** Defaults of `vigil test`, as the Checkly CLI's `cli` config option; a command-line flag wins. */
export interface CliConfig {
  /** Location label each check runs in (as `--location`). */
  runLocation?: string;
  /** Checkly's private location to run in; used as the location label when `runLocation` is unset. */
  privateRunLocation?: string;
  /** Output of `vigil test` (as `--reporter`); the first is used. */
  reporters?: Array<'list' | 'dot' | 'ci' | 'github' | 'json' | 'junit'>;
  /** Retries after a failed run, 0 to 3 (as `--retries`). */
  retries?: number;
  /** Accepted for Checkly projects; vigil test's output has no verbose mode. */
  verbose?: boolean;
  /** Accepted for Checkly projects and ignored: vigil loads every file with its own bundler. */
  loader?: unknown;
}

/** Where Vigil keeps the state of what it created. */
export type StateConfig = LocalStateConfig | HttpStateConfig | ServiceStateConfig | PostgresStateConfig | S3StateConfig;

/** A JSON file in the project (commit it, or use a remote backend). */
export interface LocalStateConfig {
  /** A file in the project. */
  backend: 'local';
  /** State file path relative to the project root. Default `.vigil/state.json`. */
  path?: string;
}

/**
 * State on a server speaking Terraform's http backend protocol (GET, POST, LOCK, UNLOCK, DELETE).
 * Credentials come from the environment only: `VIGIL_STATE_HTTP_USERNAME` and
 * `VIGIL_STATE_HTTP_PASSWORD` (basic auth), or `VIGIL_STATE_HTTP_TOKEN` (a bearer token).
 */
export interface HttpStateConfig {
  /** A server speaking Terraform's http backend protocol. */
  backend: 'http';
  /** The state's URL: read with GET, written with `updateMethod`, removed with DELETE. */
  address: string;
  /** Where the lock is taken. Default: `address` (vigil always locks). */
  lockAddress?: string;
  /** Where the lock is released. Default: `lockAddress`. */
  unlockAddress?: string;
  /** Default `LOCK`. */
  lockMethod?: string;
  /** Default `UNLOCK`. */
  unlockMethod?: string;
  /** Default `POST`. */
  updateMethod?: string;
  /** Basic-auth user name (not secret); `VIGIL_STATE_HTTP_USERNAME` wins. The password is only read from `VIGIL_STATE_HTTP_PASSWORD`. */
  username?: string;
  /** Retries of a request that failed on the network or with a 5xx. Default 2. */
  retryMax?: number;
  /** Seconds before the first retry, doubling up to `retryWaitMax`. Default 1. */
  retryWaitMin?: number;
  /** Longest wait between retries, in seconds. Default 30. */
  retryWaitMax?: number;
}

/**
 * State kept by the service Vigil manages, at `<service URL>/v1/state/<logicalId>`, with the same
 * API key as every other call.
 */
export interface ServiceStateConfig {
  /** The service `VIGIL_API_URL` (or `api.baseUrl`) points at, authenticated with `VIGIL_API_KEY`. */
  backend: 'service';
}

/**
 * State in a PostgreSQL database: one table per project (`vigil_state_<logicalId>`), locked with an
 * advisory lock that PostgreSQL releases itself when the holder's session ends.
 */
export interface PostgresStateConfig {
  backend: 'postgres';
  /**
   * `postgres://user@host:5432/db`, without a password (set `PGPASSWORD`, or the whole URL in
   * `VIGIL_STATE_PG_URL`, which wins). Optional when `VIGIL_STATE_PG_URL` is set.
   */
  connectionString?: string;
}

/**
 * State in an S3 bucket (AWS or an S3-compatible store), locked with a lock object `<key>.lock`
 * created with a conditional write. Credentials come from `AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN` only.
 */
export interface S3StateConfig {
  backend: 's3';
  bucket: string;
  /** The state object's key, e.g. `vigil/shop.json`. */
  key: string;
  /** Default `AWS_REGION`, else `AWS_DEFAULT_REGION`. */
  region?: string;
  /** An S3-compatible endpoint (e.g. MinIO); objects are then addressed path-style. Default: AWS. */
  endpoint?: string;
}

/** The monitoring service to manage. Environment variables (`VIGIL_API_URL`, ...) take precedence. */
export interface ApiConfig {
  /** Base URL of the service, e.g. `https://api.example.com`. */
  baseUrl?: string;
  /** Account to act on (sent as `x-service-account`). */
  accountId?: string;
}

/** The default export of `vigil.config.ts`. */
export interface VigilConfig {
  /** Human-readable project name, shown in plans. */
  projectName: string;
  /** Stable id of the project; state is keyed by it, so changing it orphans the state. */
  logicalId: string;
  /** Defaults for checks and where to find them. */
  checks?: CheckDefaults;
  /** Where the state of what Vigil created is kept. Default: local, `.vigil/state.json`. */
  state?: StateConfig;
  /** The monitoring service to manage; the embedded local service when omitted. */
  api?: ApiConfig;
  /** URL of the project's repository. Informational: accepted for Checkly projects, not sent anywhere. */
  repoUrl?: string;
  /** Defaults of `vigil test` (Checkly's `cli` option). */
  cli?: CliConfig;
}

/** Checkly's name for the config type: a Checkly project's `ChecklyConfig` annotations compile unchanged. */
export type ChecklyConfig = VigilConfig;

/**
 * Declares the project config with type checking. Returns the config unchanged (the loader reads
 * it); its problems are reported by `vigil validate` with the location of this call.
 */
export function defineConfig(config: VigilConfig): VigilConfig {
  if (typeof config === 'object' && config !== null && !Object.isFrozen(config)) {
    Object.defineProperty(config, CONFIG_SOURCE_KEY, { value: captureUserSource(defineConfig), enumerable: false });
  }
  return config;
}

/** Default glob of construct files. */
export const DEFAULT_CHECK_MATCH = '**/*.monitor.ts';
