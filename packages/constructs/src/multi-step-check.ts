import path from 'node:path';
import { MultiStepCheckCreate } from '@vigil/schema';
import type { z } from 'zod';
import type { PlaywrightConfig } from '@vigil/schema';
import type { BuildContext } from './build-context.js';
import { checkResponseTimes } from './check-rules.js';
import { multiStepCheckDefaults } from './config.js';
import { CHECK_PROP_KEYS, buildCheckFields, checkPropPath, markSecretVariables, type CheckProps, type EnvironmentVariable } from './check.js';
import { Construct } from './construct.js';
import type { PathSegment } from './path.js';
import type { PropKeys } from './unknown-props.js';
import { ScriptSlots, type ScriptBundleRequest, type ScriptField, type ScriptOwner, type ScriptSource } from './script.js';

const UNRESOLVED_SCRIPT = '/* unresolved */';

/** A file shipped with the check's script. */
export interface Dependency {
  /** Path of the file in the runtime. */
  path: string;
  /** The file's content. */
  content: string;
}

export interface MultiStepCheckProps extends CheckProps {
  /**
   * The check's Node.js code: `{ entrypoint: './orders.spec.ts' }` (bundled by vigil, resolved
   * relative to this file) or `{ content: '...' }`. Required.
   */
  code: ScriptSource;
  /** Environment variables of the script (at most 50); `secret: true` hides a value. */
  environmentVariables?: EnvironmentVariable[] | null;
  /** Extra files shipped with the script. */
  dependencies?: Dependency[] | null;
  /** Response time in milliseconds (0..30000) above which the check counts as degraded; at most `maxResponseTime`. */
  degradedResponseTime?: number | null;
  /** Response time in milliseconds (0..30000) above which the check fails. */
  maxResponseTime?: number | null;
  /**
   * Checkly's Playwright options for the script (`use`, `expect`, `timeout`). Accepted, with a
   * warning: vigil's multi-step runs do not apply them yet.
   */
  playwrightConfig?: PlaywrightConfig;
}

const MULTI_STEP_CHECK_PROP_KEYS: PropKeys<MultiStepCheckProps> = {
  ...CHECK_PROP_KEYS,
  code: true,
  environmentVariables: true,
  dependencies: true,
  degradedResponseTime: true,
  maxResponseTime: true,
  playwrightConfig: true,
};

/**
 * A multi-step check: runs a Node.js script that makes several requests in sequence. Multi-step
 * checks cannot run sub-minute (frequency 0), need runtime 2023.09 or later, and retry on any
 * failure (no `retryStrategy.onlyOn`).
 */
export class MultiStepCheck extends Construct implements ScriptOwner {
  readonly props: MultiStepCheckProps;
  readonly #scripts: ScriptSlots;

  /**
   * @param logicalId unique (per kind) name of the check in this project
   * @param props the check's code, schedule and alerting
   */
  constructor(logicalId: string, props: MultiStepCheckProps) {
    super('multistep-check', logicalId, props);
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
    return MultiStepCheckCreate;
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return MULTI_STEP_CHECK_PROP_KEYS;
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const { props } = this;
    const payload = buildCheckFields(context, props, 'MULTI_STEP');
    // When the code cannot be resolved a diagnostic says why; the placeholder keeps the schema from
    // repeating it as "script is required".
    payload.script = this.#scripts.resolve(context, 'script') ?? UNRESOLVED_SCRIPT;
    const [entry] = this.#scripts.entrypoints();
    // The path the script has in the runtime: stable across machines, so relative to the root.
    if (entry !== undefined) payload.scriptPath = path.relative(this.project.root, entry.path).split(path.sep).join('/');
    // Checkly's cascade: the check's own list, else multiStepChecks', else the config's checks'.
    const environmentVariables = props.environmentVariables ?? multiStepCheckDefaults(context.checkDefaults).environmentVariables;
    payload.environmentVariables = environmentVariables;
    markSecretVariables(context, environmentVariables);
    payload.dependencies = props.dependencies;
    payload.degradedResponseTime = props.degradedResponseTime;
    payload.maxResponseTime = props.maxResponseTime;
    const playwrightConfig = props.playwrightConfig ?? multiStepCheckDefaults(context.checkDefaults).playwrightConfig;
    if (playwrightConfig !== undefined) {
      const from = props.playwrightConfig !== undefined ? '' : ' (from the config)';
      context.warning(
        'playwrightConfig',
        `"playwrightConfig"${from} is not applied to multi-step checks by vigil yet: the script runs with Playwright's defaults (its use, expect and timeout options are dropped)`,
        'Set what the script needs in the script itself (e.g. test.use({ ... }) or request options), or keep the check in Checkly for now.',
      );
    }
    // The service sets no default maxResponseTime on multi-step checks, so only two set values compare.
    checkResponseTimes(context, props, undefined);
    return payload;
  }

  protected override propPath(payloadPath: PathSegment[]): string {
    return payloadPath[0] === 'script' ? 'code' : checkPropPath(payloadPath);
  }
}
