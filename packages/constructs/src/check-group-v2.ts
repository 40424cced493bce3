import { CheckGroupCreate } from '@vigil/schema';
import type { z } from 'zod';
import type { AlertEscalation } from './alert-escalation-policy.js';
import type { AlertChannelReference } from './alert-channel.js';
import type { Assertion } from './assertion.js';
import type { BasicAuth, KeyValue } from './api-check.js';
import type { BuildContext, RefTarget } from './build-context.js';
import type { BrowserCheckDefaults } from './config.js';
import { checkPropPath, markSecretVariables, type EnvironmentVariable } from './check.js';
import { Construct, type ConstructProps } from './construct.js';
import type { FrequencyValue } from './frequency.js';
import { checkHttpUrl } from './http-url.js';
import { formatPath, type PathSegment } from './path.js';
import { privateLocationIdentifiers, type PrivateLocationReference } from './private-location.js';
import { externalRef, numericIdProblem, type ExternalRef } from './ref.js';
import { retryStrategyPayload, type RetryStrategy } from './retry-strategy.js';
import { checkGroupDoubleCheck, checkGroupVariableValues } from './check-rules.js';
import type { PropKeys } from './unknown-props.js';
import { ScriptSlots, type ScriptBundleRequest, type ScriptField, type ScriptOwner, type ScriptSource } from './script.js';
import type { Location, RuntimeId } from './values.js';

/** What the group's API checks inherit (a group's `apiCheckDefaults`). */
export interface ApiCheckDefaults {
  /** Base URL the checks' URLs build on. */
  url?: string;
  /** Headers added to every API check's request. */
  headers?: Array<Omit<KeyValue, 'locked'>>;
  /** Query parameters added to every API check's request. */
  queryParameters?: Array<Omit<KeyValue, 'locked'>>;
  /** Assertions every API check in the group makes. */
  assertions?: Assertion[];
  /** Basic authentication of every API check's request. */
  basicAuth?: BasicAuth;
}

export interface CheckGroupV2Props extends ConstructProps {
  /** Name of the group. Required. */
  name: string;
  /** Whether the group's checks run. Default true. */
  activated?: boolean;
  /** Whether notifications of the group's checks are suppressed. Default false. */
  muted?: boolean;
  /** Tags for organising and filtering. */
  tags?: string[];
  /**
   * Data-center locations of the group's checks. Non-empty locations override the checks' own;
   * checks that set none inherit them in the payload too.
   */
  locations?: Location[];
  /** Private locations of the group's checks. */
  privateLocations?: PrivateLocationReference[] | null;
  /**
   * How many checks are invoked at once when the group is triggered from CI/CD or the API (>= 1).
   * Default 3.
   */
  concurrency?: number;
  /** Request parts every API check in the group inherits. */
  apiCheckDefaults?: ApiCheckDefaults;
  /** Defaults for the group's browser checks, as the service stores them. */
  browserCheckDefaults?: string;
  /**
   * Browser checks of the group's spec files (`testMatch`, globs relative to this file) and the
   * defaults of the group's browser checks (`frequency`, `locations`, …), as in Checkly. Not sent
   * to the service: the checks are created as their own resources.
   */
  browserChecks?: BrowserCheckDefaults;
  /** Runtime version of the group's checks; checks that set none inherit it. */
  runtimeId?: RuntimeId | null;
  /** Environment variables of the group's checks (at most 50, none empty); `secret: true` hides a value. */
  environmentVariables?: EnvironmentVariable[] | null;
  /** Alert channels notified about the group's checks. */
  alertChannels?: AlertChannelReference[];
  /**
   * Alert escalation of the group's checks (`AlertEscalationBuilder`), or `'global'` for the
   * account's settings. When omitted each check keeps its own (`useGlobalAlertSettings` is sent as
   * `null`).
   */
  alertEscalationPolicy?: AlertEscalation | 'global';
  /**
   * Retry strategy of the group's checks (`RetryStrategyBuilder`), `RetryStrategyBuilder.noRetries()`
   * so that none of them retries, or `'FALLBACK'` (the default) to let each check keep its own.
   */
  retryStrategy?: RetryStrategy | 'FALLBACK' | null;
  /**
   * `true` runs all the group's checks in all their locations at once, `false` one location per
   * run, whatever each check says. When omitted each check keeps its own (sent as `null`).
   */
  runParallel?: boolean;
  /** Default frequency of the group's checks that set none (not sent for the group itself). */
  frequency?: FrequencyValue;
  /** Node.js code run before each API check in the group: `{ entrypoint }` or `{ content }`. */
  setupScript?: ScriptSource;
  /** Node.js code run after each API check in the group: `{ entrypoint }` or `{ content }`. */
  tearDownScript?: ScriptSource;
  /** Setup code given inline; prefer `setupScript`. */
  localSetupScript?: string | null;
  /** Teardown code given inline; prefer `tearDownScript`. */
  localTearDownScript?: string | null;
  /** Id of a snippet on the service run in the setup phase of the group's API checks. */
  setupSnippetId?: number | null;
  /** Id of a snippet on the service run in the teardown phase of the group's API checks. */
  tearDownSnippetId?: number | null;
  /**
   * Not supported by `CheckGroupV2` (an error, as in Checkly); kept so that the error can say what
   * to write instead.
   * @deprecated Use {@link CheckGroupV2Props.retryStrategy} instead:
   * `RetryStrategyBuilder.fixedStrategy({ maxRetries: 1, baseBackoffSeconds: 0, maxDurationSeconds: 600, sameRegion: false })`
   * for `true`, `RetryStrategyBuilder.noRetries()` for `false`.
   */
  doubleCheck?: boolean;
}

const CHECK_GROUP_PROP_KEYS: PropKeys<CheckGroupV2Props> = {
  protect: true,
  name: true,
  activated: true,
  muted: true,
  tags: true,
  locations: true,
  privateLocations: true,
  concurrency: true,
  apiCheckDefaults: true,
  browserCheckDefaults: true,
  browserChecks: true,
  runtimeId: true,
  environmentVariables: true,
  alertChannels: true,
  alertEscalationPolicy: true,
  retryStrategy: true,
  runParallel: true,
  frequency: true,
  setupScript: true,
  tearDownScript: true,
  localSetupScript: true,
  localTearDownScript: true,
  setupSnippetId: true,
  tearDownSnippetId: true,
  doubleCheck: true,
};

const ALERT_CHANNEL_TARGET: RefTarget = { kind: 'alert-channel', name: 'an alert channel', idType: 'number' };

/** A check group construct (either version), or a reference to one Vigil does not manage. */
export type CheckGroupReference = CheckGroupV2 | ExternalRef<'check-group', number>;

/**
 * A check group (v2): shared settings, scripts and alerting for the checks that name it in
 * `group`. Its locations, runtime, frequency, retry strategy and alert escalation are also the
 * defaults of those checks.
 */
export class CheckGroupV2 extends Construct implements ScriptOwner {
  readonly props: CheckGroupV2Props;
  readonly #scripts: ScriptSlots;

  /**
   * @param logicalId unique (per kind) name of the group in this project
   * @param props the group's settings
   */
  constructor(logicalId: string, props: CheckGroupV2Props) {
    super('check-group', logicalId, props);
    this.props = props;
    this.#scripts = new ScriptSlots((file) => this.resolveUserPath(file));
    this.#scripts.add('localSetupScript', props.setupScript, 'setupScript');
    this.#scripts.add('localTearDownScript', props.tearDownScript, 'tearDownScript');
  }

  /**
   * Refers to a check group that exists on the service but is not managed by this project.
   * @param id the group's numeric id on the service
   */
  static fromId(id: number): ExternalRef<'check-group', number> {
    return externalRef('check-group', id, numericIdProblem('CheckGroupV2.fromId', id));
  }

  scriptEntrypoints(): ScriptBundleRequest[] {
    return this.#scripts.entrypoints();
  }

  setBundledScript(field: ScriptField, code: string): void {
    this.#scripts.setBundled(field, code);
    this.invalidate();
  }

  protected payloadSchema(): z.ZodType {
    return CheckGroupCreate;
  }

  /** Whether the group has the implicit defaults of Checkly's `CheckGroupV1` (see check-group-v1.ts). */
  protected isV1(): boolean {
    return false;
  }

  /**
   * Whose alert settings the service applies to the group's checks: the group's own escalation, the
   * account's, or — null — each check's own (a `CheckGroupV2` without `alertEscalationPolicy`).
   */
  alertSettingsOfChecks(): 'group' | 'account' | null {
    const policy = this.props.alertEscalationPolicy;
    if (policy === 'global' || (policy === undefined && this.isV1())) return 'account';
    return policy === undefined ? null : 'group';
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return CHECK_GROUP_PROP_KEYS;
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const { props } = this;
    const payload: Record<string, unknown> = {
      name: props.name,
      activated: props.activated,
      muted: props.muted,
      tags: props.tags,
      locations: props.locations,
      privateLocations: privateLocationIdentifiers(context, props.privateLocations, 'privateLocations'),
      concurrency: props.concurrency,
      apiCheckDefaults: props.apiCheckDefaults,
      browserCheckDefaults: props.browserCheckDefaults,
      runtimeId: props.runtimeId,
      environmentVariables: props.environmentVariables,
      runParallel: props.runParallel,
      retryStrategy: retryStrategyPayload(props.retryStrategy),
      setupSnippetId: props.setupSnippetId,
      tearDownSnippetId: props.tearDownSnippetId,
    };
    markSecretVariables(context, props.environmentVariables);
    const password = props.apiCheckDefaults?.basicAuth?.password;
    if (typeof password === 'string') context.secret(['apiCheckDefaults', 'basicAuth', 'password']);
    // Empty is the service's "no base URL".
    if (props.apiCheckDefaults?.url) checkHttpUrl(context, props.apiCheckDefaults.url, 'apiCheckDefaults.url', ['apiCheckDefaults', 'url']);
    checkGroupVariableValues(context, props.environmentVariables);
    const policy = props.alertEscalationPolicy;
    if (this.isV1()) {
      // Checkly's first groups: without a policy the account's alert settings apply to every check,
      // without runParallel its checks run round-robin; doubleCheck is deprecated, not removed.
      payload.runParallel = props.runParallel ?? false;
      payload.doubleCheck = props.doubleCheck ?? (payload.retryStrategy === null ? false : undefined);
      if (policy === undefined) payload.useGlobalAlertSettings = true;
    } else {
      checkGroupDoubleCheck(context, props.doubleCheck);
    }
    if (policy === 'global') payload.useGlobalAlertSettings = true;
    else if (policy !== undefined) {
      payload.alertSettings = policy;
      payload.useGlobalAlertSettings = false;
    }
    const channels = props.alertChannels ?? [];
    if (!Array.isArray(channels)) {
      context.error('alertChannels', '"alertChannels" must be an array of alert channels');
    } else {
      payload.alertChannelSubscriptions = channels.map((channel, index) => ({
        alertChannelId: context.reference(channel, ALERT_CHANNEL_TARGET, `alertChannels[${index}]`, [
          'alertChannelSubscriptions',
          index,
          'alertChannelId',
        ]),
        activated: true,
      }));
    }
    payload.localSetupScript = this.#scripts.resolveWithInline(context, 'localSetupScript', props.localSetupScript);
    payload.localTearDownScript = this.#scripts.resolveWithInline(context, 'localTearDownScript', props.localTearDownScript);
    return payload;
  }

  protected override propPath(payloadPath: PathSegment[]): string {
    const [head] = payloadPath;
    if (head === 'localSetupScript' || head === 'localTearDownScript') return this.#scripts.propPathOf(head) ?? head;
    return head === 'apiCheckDefaults' ? formatPath(payloadPath) : checkPropPath(payloadPath);
  }
}


/**
 * Alias of {@link CheckGroupV2} in Vigil's own modules. A Checkly project's `CheckGroup` (imported
 * from `checkly/constructs`) is Checkly's `CheckGroupV1`: the loader serves that name so.
 */
export const CheckGroup = CheckGroupV2;
export type CheckGroup = CheckGroupV2;
/** Alias of {@link CheckGroupV2Props}. */
export type CheckGroupProps = CheckGroupV2Props;
