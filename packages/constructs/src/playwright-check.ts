import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PlaywrightCheckCreate, playwrightTestArguments, type PlaywrightBundleFile } from '@vigil/schema';
import type { z } from 'zod';
import type { BuildContext } from './build-context.js';
import type { Engine } from './engine.js';
import { CHECK_PROP_KEYS, buildCheckFields, checkPropPath, markSecretVariables, type CheckProps, type EnvironmentVariable } from './check.js';
import { Construct } from './construct.js';
import type { PathSegment } from './path.js';
import type { PropKeys } from './unknown-props.js';

/**
 * Props of a Playwright check suite (Checkly's `PlaywrightCheckProps`). Retries belong to the
 * Playwright config (`retries`), so `retryStrategy` and `doubleCheck` are refused, as Checkly does.
 */
export interface PlaywrightCheckProps extends Omit<CheckProps, 'retryStrategy' | 'doubleCheck'> {
  /**
   * Path of the suite's Playwright config (`playwright.config.ts`), resolved relative to the file
   * that creates the check. The config, the spec files it selects and every local file they
   * import are bundled with the check; all must lie inside the project root. Required.
   */
  playwrightConfigPath: string;
  /**
   * Command that installs the suite's dependencies, e.g. `npm ci`. Stored for Checkly parity; Vigil's
   * runner does not run it (the suite runs against the runner's own `@playwright/test`).
   */
  installCommand?: string;
  /**
   * Command that runs the suite. Default `npx playwright test`. It must invoke Playwright's test
   * runner (`npx playwright test`, `pnpm playwright test`, `yarn playwright test`, …); its further
   * arguments (e.g. `--grep @checkly`) are passed to Playwright, with `--config`, `--project` and
   * `--grep` from the other props appended.
   */
  testCommand?: string;
  /** Playwright projects of the config to run (`--project`), e.g. `'chromium'` or `['api', 'chromium']`. */
  pwProjects?: string | string[];
  /** Tags selecting the tests to run (`--grep`, any of them), e.g. `'@smoke'` or `['@smoke', '@critical']`. */
  pwTags?: string | string[];
  /** Environment variables of the suite (at most 50); `secret: true` hides a value. */
  environmentVariables?: EnvironmentVariable[] | null;
  /**
   * Further files to bundle with the suite, as globs relative to the Playwright config's directory
   * (e.g. `'fixtures/**\/*.json'`): assets the specs read with `fs` rather than import.
   */
  include?: string | string[];
  /**
   * The runtime Checkly runs the suite with (`Engine.node('22')`). Vigil's runner uses its own
   * Node.js, so this is not sent; a non-Node engine is a warning.
   */
  engine?: Engine;
}

const PLAYWRIGHT_CHECK_PROP_KEYS: PropKeys<PlaywrightCheckProps> & { retryStrategy: true; doubleCheck: true } = {
  ...CHECK_PROP_KEYS,
  playwrightConfigPath: true,
  installCommand: true,
  testCommand: true,
  pwProjects: true,
  pwTags: true,
  environmentVariables: true,
  include: true,
  engine: true,
};

/** What the loader bundled for a suite: the files by POSIX path from the project root. */
export interface PlaywrightSuiteBundle {
  files: PlaywrightBundleFile[];
}

function asList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** sha256 of a bundle, independent of file order: the real service's `cacheHash`. */
export function playwrightBundleHash(files: readonly PlaywrightBundleFile[]): string {
  const hash = createHash('sha256');
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    hash.update(`${file.path}\0${file.content.length}\0${file.content}`);
  }
  return hash.digest('hex');
}

/**
 * A Playwright check suite: runs an existing Playwright project (its config, the specs it selects,
 * their local imports) as one check that fails when any test fails. Suites cannot run sub-minute,
 * and retry through their Playwright config, not a `retryStrategy`.
 */
export class PlaywrightCheck extends Construct {
  readonly props: PlaywrightCheckProps;
  #bundle: PlaywrightSuiteBundle | undefined;

  /**
   * @param logicalId unique (per kind) name of the check in this project
   * @param props the suite's Playwright config, schedule and alerting
   */
  constructor(logicalId: string, props: PlaywrightCheckProps) {
    super('playwright-check', logicalId, props);
    this.props = props;
  }

  /** The `include` globs, for the loader (relative to the Playwright config's directory). */
  suiteInclude(): string[] {
    return asList(this.props.include).filter((pattern) => typeof pattern === 'string');
  }

  /** Absolute path of the Playwright config, for the loader; undefined when the prop is not a string. */
  suiteConfigPath(): string | undefined {
    const configured = this.props.playwrightConfigPath;
    if (typeof configured !== 'string' || configured === '') return undefined;
    return this.resolveUserPath(configured);
  }

  /** Hands the construct the files the loader bundled (before validation). */
  setSuiteBundle(bundle: PlaywrightSuiteBundle): void {
    this.#bundle = bundle;
    this.invalidate();
  }

  protected payloadSchema(): z.ZodType {
    return PlaywrightCheckCreate;
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return PLAYWRIGHT_CHECK_PROP_KEYS;
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const props = this.props as PlaywrightCheckProps & { retryStrategy?: unknown; doubleCheck?: unknown };
    const retriesHint = 'Playwright retries inside the suite: set `retries` in the Playwright config instead.';
    if (props.retryStrategy !== undefined) context.error('retryStrategy', '"retryStrategy" is not available in Playwright checks', retriesHint);
    if (props.doubleCheck !== undefined) context.error('doubleCheck', '"doubleCheck" is not available in Playwright checks', retriesHint);
    // As Checkly, a suite takes no retry defaults from the config or its group.
    const payload = buildCheckFields(context, { ...props, retryStrategy: undefined, doubleCheck: undefined } as CheckProps, 'OTHER');
    delete payload.retryStrategy;
    payload.checkType = 'PLAYWRIGHT';
    payload.doubleCheck = false;
    const configPath = this.suiteConfigPath();
    payload.playwrightConfigPath = configPath === undefined ? '' : path.relative(this.project.root, configPath).split(path.sep).join('/');
    if (configPath !== undefined && (String(payload.playwrightConfigPath).startsWith('../') || path.isAbsolute(String(payload.playwrightConfigPath)))) {
      context.error(
        'playwrightConfigPath',
        `"playwrightConfigPath" (${configPath}) is outside the project root, so the suite cannot be bundled into the check`,
        `A Playwright check's files are uploaded with their paths from the project root (${this.project.root}); keep the suite inside it.`,
      );
      payload.playwrightConfigPath = 'outside-the-project';
      payload.codeBundle = [{ path: 'outside-the-project', content: '' }];
      return payload;
    }
    if (props.testCommand !== undefined) {
      payload.testCommand = props.testCommand;
      if (typeof props.testCommand === 'string' && playwrightTestArguments(props.testCommand) === undefined) {
        context.error(
          'testCommand',
          `"testCommand" must run Playwright's test runner, not ${JSON.stringify(props.testCommand)}`,
          'Use e.g. `npx playwright test --grep @checkly` (also pnpm/yarn/bunx playwright test); no shell syntax such as ; && | $().',
        );
      }
    }
    if (props.installCommand !== undefined) payload.installCommand = props.installCommand;
    const engine = props.engine as { name?: unknown } | undefined;
    if (engine !== undefined && engine.name !== 'node') {
      context.warning('engine', `"engine" ${String(engine.name)} is not available: vigil runs Playwright suites with Node.js`, 'Remove it, or use Engine.node(...) (vigil uses its own Node.js version).');
    }
    payload.pwProjects = asList(props.pwProjects);
    payload.pwTags = asList(props.pwTags);
    const variables = props.environmentVariables ?? context.checkDefaults.environmentVariables;
    payload.environmentVariables = variables;
    markSecretVariables(context, variables);
    if (this.#bundle === undefined) {
      if (configPath === undefined) {
        context.error('playwrightConfigPath', '"playwrightConfigPath" is required', 'For example `playwrightConfigPath: \'./playwright.config.ts\'`.');
      } else if (!existsSync(configPath)) {
        context.error('playwrightConfigPath', `"playwrightConfigPath" file not found: ${configPath}`, 'The path is resolved relative to the file that creates the check.');
      } else {
        context.error('playwrightConfigPath', `"playwrightConfigPath" (${configPath}) was not bundled before validation (this is a bug in vigil's loader)`);
      }
      // The error above says why; this keeps the schema from adding "required" on top.
      payload.codeBundle = [{ path: 'unbundled', content: '' }];
      payload.playwrightConfigPath ||= 'unbundled';
    } else {
      payload.codeBundle = this.#bundle.files;
      payload.cacheHash = playwrightBundleHash(this.#bundle.files);
    }
    return payload;
  }

  protected override propPath(payloadPath: PathSegment[]): string {
    if (payloadPath[0] === 'codeBundle') return 'playwrightConfigPath';
    return checkPropPath(payloadPath);
  }
}
