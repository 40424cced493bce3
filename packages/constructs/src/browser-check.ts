import { existsSync } from 'node:fs';
import path from 'node:path';
import { BrowserCheckCreate, type PlaywrightConfig } from '@vigil/schema';
import type { z } from 'zod';
import type { BuildContext } from './build-context.js';
import { CHECK_PROP_KEYS, buildCheckFields, checkPropPath, markSecretVariables, type CheckProps, type EnvironmentVariable } from './check.js';
import type { BrowserCheckDefaults, CheckDefaults } from './config.js';
import { Construct } from './construct.js';
import type { Dependency } from './multi-step-check.js';
import type { PathSegment } from './path.js';
import { isConstruct, unwrapConstructRef } from './ref.js';
import { ScriptSlots, type ScriptBundleRequest, type ScriptField, type ScriptOwner, type ScriptSource } from './script.js';
import type { PropKeys } from './unknown-props.js';

const UNRESOLVED_SCRIPT = '/* unresolved */';

export interface BrowserCheckProps extends CheckProps {
  /**
   * The Playwright spec the check runs in Chromium: `{ entrypoint: './home.spec.ts' }` (bundled by
   * vigil, resolved relative to this file) or `{ content: '...' }`. Required.
   */
  code: ScriptSource;
  /**
   * A fully qualified domain name whose SSL certificate expiry is watched, e.g. `app.example.com`.
   * An empty string is sent as none.
   */
  sslCheckDomain?: string | null;
  /**
   * Playwright options for the run, as in `playwright.config.ts`: `use` (viewport, locale,
   * extraHTTPHeaders, …), `expect` and the per-test `timeout` in milliseconds.
   */
  playwrightConfig?: PlaywrightConfig;
  /** Environment variables of the spec (at most 50); `secret: true` hides a value. */
  environmentVariables?: EnvironmentVariable[] | null;
  /** Extra files shipped with the spec. */
  dependencies?: Dependency[] | null;
}

const BROWSER_CHECK_PROP_KEYS: PropKeys<BrowserCheckProps> = {
  ...CHECK_PROP_KEYS,
  code: true,
  sslCheckDomain: true,
  playwrightConfig: true,
  environmentVariables: true,
  dependencies: true,
};

/** The props `checks.browserChecks` and a group's `browserChecks` may default (everything but the spec files). */
type DefaultedProps = Omit<BrowserCheckDefaults, 'testMatch'>;

/**
 * A browser check: runs a Playwright spec in Chromium (`page`, `expect`, …) and fails when a test
 * fails. Browser checks cannot run sub-minute (frequency 0). Besides the check's own props, the
 * group's `browserChecks` and then the config's `checks.browserChecks` give defaults, before the
 * group's and the config's general ones (Checkly's order).
 */
export class BrowserCheck extends Construct implements ScriptOwner {
  readonly props: BrowserCheckProps;
  readonly #scripts: ScriptSlots;

  /**
   * @param logicalId unique (per kind) name of the check in this project
   * @param props the check's code, schedule and alerting
   */
  constructor(logicalId: string, props: BrowserCheckProps) {
    super('browser-check', logicalId, props);
    this.props = props;
    this.#scripts = new ScriptSlots((file) => this.resolveUserPath(file));
    this.#scripts.add('script', props.code ?? ({} as ScriptSource), 'code');
  }

  /** The check's code source, for the loader. */
  get code(): ScriptSource {
    return this.props.code;
  }

  scriptEntrypoints(): ScriptBundleRequest[] {
    return this.#scripts.entrypoints();
  }

  setBundledScript(field: ScriptField, code: string): void {
    this.#scripts.setBundled(field, code);
    this.invalidate();
  }

  protected payloadSchema(): z.ZodType {
    return BrowserCheckCreate;
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return BROWSER_CHECK_PROP_KEYS;
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const props = this.#withBrowserDefaults(context.checkDefaults);
    const payload = buildCheckFields(context, props, 'OTHER');
    payload.checkType = 'BROWSER';
    // When the code cannot be resolved a diagnostic says why; the placeholder keeps the schema from
    // repeating it as "script is required".
    payload.script = this.#scripts.resolve(context, 'script') ?? UNRESOLVED_SCRIPT;
    const [entry] = this.#scripts.entrypoints();
    // The path the spec has in the runtime: stable across machines, so relative to the root.
    if (entry !== undefined) payload.scriptPath = path.relative(this.project.root, entry.path).split(path.sep).join('/');
    const variables = props.environmentVariables ?? context.checkDefaults.environmentVariables;
    payload.environmentVariables = variables;
    markSecretVariables(context, variables);
    payload.dependencies = props.dependencies;
    // Checkly sends an empty domain as none.
    payload.sslCheckDomain = props.sslCheckDomain === '' ? null : props.sslCheckDomain;
    payload.playwrightConfig = props.playwrightConfig ?? context.checkDefaults.playwrightConfig;
    if (entry !== undefined) warnAboutSnapshots(context, entry.path);
    return payload;
  }

  /**
   * The props with the browser-check defaults filled in where the check sets nothing: the group's
   * `browserChecks`, then the config's `checks.browserChecks`.
   */
  #withBrowserDefaults(checks: CheckDefaults): BrowserCheckProps {
    const group = unwrapConstructRef(this.props.group ?? this.props.groupId);
    const groupDefaults =
      isConstruct(group) && group.kind === 'check-group' ? (group as unknown as { props?: { browserChecks?: BrowserCheckDefaults } }).props?.browserChecks : undefined;
    const merged: Record<string, unknown> = {};
    for (const level of [checks.browserChecks, groupDefaults]) {
      for (const [key, value] of Object.entries(level ?? {})) if (key !== 'testMatch' && value !== undefined) merged[key] = value;
    }
    for (const [key, value] of Object.entries(this.props)) if (value !== undefined) merged[key] = value;
    return merged as unknown as BrowserCheckProps & DefaultedProps;
  }

  protected override propPath(payloadPath: PathSegment[]): string {
    return payloadPath[0] === 'script' ? 'code' : checkPropPath(payloadPath);
  }
}

/**
 * Playwright keeps `toHaveScreenshot()` baselines beside the spec (`home.spec.ts-snapshots/`), and
 * Checkly uploads them with the check. Vigil's checks carry no baselines yet, so a deployed check
 * would compare against none: said at the check rather than dropped in silence.
 */
function warnAboutSnapshots(context: BuildContext, spec: string): void {
  const directory = `${spec}-snapshots`;
  if (!existsSync(directory)) return;
  context.warning(
    'code.entrypoint',
    `the visual snapshot baselines in ${path.basename(directory)}/ are not carried over: vigil's browser checks have no snapshot storage yet, so toHaveScreenshot() has no baseline to compare against once deployed`,
    'Keep checks that compare screenshots in Checkly for now, or compare something other than pixels.',
  );
}
