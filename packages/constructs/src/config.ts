import { CONFIG_SOURCE_KEY } from './brand.js';
import type { AlertEscalation } from './alert-escalation-policy.js';
import type { AlertChannelReference } from './alert-channel.js';
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
   * root or absolute, e.g. `['../shared/checks']` in a monorepo. Scripts are bundled and uploaded to
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
  /** Private location identifiers checks run from. */
  privateLocations?: string[];
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
}

/** Where Vigil keeps the state of what it created. */
export interface StateConfig {
  /** Only `local` for now: a JSON file next to the project. */
  backend: 'local';
  /** State file path relative to the project root. Default `.vigil/state.json`. */
  path?: string;
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
