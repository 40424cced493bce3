/**
 * What every check kind's import mapping shares (each kind's own mapping lives in its adapter). Checks inherit from their group and the
 * project config (config → group → check, as synth cascades), so a check prop is written when the
 * remote value differs from what it would inherit, not merely from the schema default.
 */
import { AlertSettings, EnvironmentVariables, RetryStrategy as RetryStrategySchema } from '@vigil/schema';
import { multiStepCheckDefaults, type CheckDefaults, type ResourceKind } from '@vigil/constructs';
import type { CheckInheritance, Payload } from '../kinds/types.js';
import { alertEscalationCode, assertionCode, frequencyCode, retryStrategyCode } from './builders.js';
import { ObjectBuilder, fromValue, literal, type Code } from './code.js';
import { differs, withoutFalse, type MapContext } from './context.js';

export type { CheckInheritance } from '../kinds/types.js';

function frequencyOf(value: unknown): { frequency?: number; frequencyOffset?: number } {
  if (typeof value === 'number') return { frequency: value };
  if (value !== null && typeof value === 'object' && 'frequency' in value) {
    const { frequency, frequencyOffset } = value as { frequency: number; frequencyOffset?: number };
    return frequencyOffset === undefined ? { frequency } : { frequency, frequencyOffset };
  }
  return {};
}

/**
 * The project config's check defaults in payload shape, for checks of `kind`: multi-step checks
 * take `checks.multiStepChecks` over the rest, as synth does (browser checks' own layer sits above
 * their group: {@link browserCheckLayer}).
 */
export function inheritanceFromConfig(checks: CheckDefaults | undefined, kind?: ResourceKind): CheckInheritance {
  if (!checks) return {};
  const own = kind === 'multistep-check' ? multiStepCheckDefaults(checks) : checks;
  const inherited: CheckInheritance = { ...frequencyOf(own.frequency) };
  for (const key of ['activated', 'muted', 'tags', 'locations', 'privateLocations', 'runtimeId', 'runParallel', 'shouldFail'] as const) {
    if (own[key] !== undefined) inherited[key] = own[key];
  }
  if (own.retryStrategy !== undefined) {
    inherited.retryStrategy = own.retryStrategy === null ? null : RetryStrategySchema.parse(own.retryStrategy);
  } else if (own.doubleCheck !== undefined) inherited.doubleCheck = own.doubleCheck;
  if (own.alertEscalationPolicy !== undefined) inherited.alertSettings = AlertSettings.parse(own.alertEscalationPolicy);
  if (own.alertChannels !== undefined) inherited.alertChannels = true;
  if (own.environmentVariables !== undefined && (kind === 'api-check' || kind === 'multistep-check' || kind === 'browser-check')) {
    inherited.environmentVariables = EnvironmentVariables.parse(own.environmentVariables);
  }
  if (own.playwrightConfig !== undefined && kind === 'browser-check') inherited.playwrightConfig = own.playwrightConfig;
  return inherited;
}

/** `checks.browserChecks`: browser checks take these over their group's props, as synth does. */
export function browserCheckLayer(checks: CheckDefaults | undefined): CheckInheritance {
  const layer = checks?.browserChecks;
  if (!layer) return {};
  const { testMatch: _testMatch, ...defaults } = layer;
  return inheritanceFromConfig(defaults as CheckDefaults, 'browser-check');
}

export function subscriptions(view: Payload, context: MapContext): Code {
  const list = Array.isArray(view.alertChannelSubscriptions) ? (view.alertChannelSubscriptions as Array<{ alertChannelId: number; activated?: boolean }>) : [];
  if (list.some((subscription) => subscription.activated === false)) {
    context.warn('has paused alert-channel subscriptions; the code subscribes to every listed channel as active');
  }
  return { type: 'array', items: list.map((subscription) => context.ref('alert-channel', subscription.alertChannelId)) };
}

export function variables(value: unknown, context: MapContext): Code {
  if (!Array.isArray(value)) return fromValue(value);
  return {
    type: 'array',
    items: value.map((raw: unknown, index) => {
      const variable = raw as { key: string; value: string | null; locked?: boolean; secret?: boolean };
      const item = new ObjectBuilder().set('key', literal(variable.key));
      item.set(
        'value',
        variable.secret === true
          ? context.secret({ path: `environmentVariables[${index}].value`, hint: variable.key, remoteValue: variable.value })
          : literal(variable.value ?? ''),
      );
      if (variable.locked === true) item.set('locked', literal(true));
      if (variable.secret === true) item.set('secret', literal(true));
      return item.build();
    }),
  };
}

export function keyValues(value: unknown): Code {
  return fromValue(Array.isArray(value) ? value.map((item) => withoutFalse(item, ['locked'])) : value);
}

export function assertions(value: unknown): Code {
  return { type: 'array', items: (Array.isArray(value) ? value : []).map((item) => assertionCode(item)) };
}

export function basicAuth(value: { username: string; password: string }, path: string, context: MapContext): Code {
  return new ObjectBuilder()
    .set('username', literal(value.username))
    .set('password', context.secret({ path, hint: 'BASIC_AUTH_PASSWORD', remoteValue: value.password }))
    .build();
}

/** Props every check kind shares; `inherited` is what the check would get without them. */
export function commonCheckProps(props: ObjectBuilder, view: Payload, baseline: Payload, inherited: CheckInheritance, context: MapContext): string[] {
  const extraKeys: string[] = [];
  const effective = (key: keyof CheckInheritance & string) => (inherited[key] !== undefined ? inherited[key] : baseline[key]);
  // `retryStrategy: null` with `doubleCheck: false` is what RetryStrategyBuilder.noRetries() sends;
  // with a strategy, doubleCheck has no effect and the constructs refuse the two together.
  const noRetries = view.retryStrategy === null && view.doubleCheck === false;
  const doubleCheckWritable = view.retryStrategy === null && !noRetries;
  for (const key of ['activated', 'muted', 'doubleCheck', 'shouldFail', 'locations', 'privateLocations', 'tags'] as const) {
    if (key === 'doubleCheck' && !doubleCheckWritable) continue;
    const expected = key === 'doubleCheck' || key === 'shouldFail' ? (inherited[key] ?? baseline[key]) : effective(key);
    if (view[key] !== undefined && differs(view[key], expected)) props.set(key, fromValue(view[key]));
  }

  const inheritedFrequency = inherited.frequency ?? baseline.frequency;
  const frequency = typeof view.frequency === 'number' ? view.frequency : undefined;
  if (frequency !== undefined && (frequency !== inheritedFrequency || frequency === 0 || inherited.frequencyOffset !== undefined)) {
    const written = frequencyCode(frequency, view.frequencyOffset);
    props.set('frequency', written.code);
    if (frequency === 0 && !written.writesOffset) props.set('frequencyOffset', fromValue(view.frequencyOffset));
    // Only a sub-minute frequency carries its offset into the code; otherwise the service keeps its own.
    if (frequency === 0) extraKeys.push('frequencyOffset');
  }

  if (view.groupId !== null && view.groupId !== undefined) props.set('group', context.ref('check-group', view.groupId as number));
  if (view.groupOrder !== undefined && differs(view.groupOrder, baseline.groupOrder)) props.set('groupOrder', fromValue(view.groupOrder));
  if (view.runtimeId !== undefined && differs(view.runtimeId, effective('runtimeId'))) props.set('runtimeId', fromValue(view.runtimeId));

  const channels = Array.isArray(view.alertChannelSubscriptions) ? view.alertChannelSubscriptions : [];
  if (channels.length > 0 || inherited.alertChannels) props.set('alertChannels', subscriptions(view, context));

  if (view.useGlobalAlertSettings === false) {
    if (differs(view.alertSettings, inherited.alertSettings)) props.set('alertEscalationPolicy', alertEscalationCode(view.alertSettings));
  } else {
    if (inherited.alertSettings !== undefined) props.set('alertEscalationPolicy', literal('global'));
    if (differs(view.alertSettings, baseline.alertSettings)) {
      context.warn('keeps alert settings while using the global ones; the code cannot express that and would reset them');
    }
  }

  // A group's noRetries() reaches its checks with doubleCheck: false already; without one, say it.
  if ((noRetries && inherited.retryStrategy !== null) || (view.retryStrategy !== undefined && differs(view.retryStrategy, effective('retryStrategy')))) {
    props.set('retryStrategy', retryStrategyCode(view.retryStrategy));
    if (view.retryStrategy === null && !noRetries) {
      context.warn('retries once without a retry strategy (the deprecated doubleCheck), which the code cannot express while a retry strategy is inherited; the code never retries, so the next plan sets doubleCheck to false');
    }
  }

  const trigger = view.triggerIncident as { serviceId: string; severity: string; name: string; description: string; notifySubscribers: boolean } | null;
  if (trigger) {
    const incident = new ObjectBuilder()
      .set('service', context.ref('status-page-service', trigger.serviceId))
      .set('severity', literal(trigger.severity))
      .set('name', literal(trigger.name));
    if (trigger.description !== '') incident.set('description', literal(trigger.description));
    if (trigger.notifySubscribers) incident.set('notifySubscribers', literal(true));
    props.set('triggerIncident', incident.build());
  }
  if (view.runParallel !== undefined && differs(view.runParallel, effective('runParallel'))) props.set('runParallel', fromValue(view.runParallel));
  return extraKeys;
}

export const SIMPLE_CHECK_KEYS = ['degradedResponseTime', 'maxResponseTime', 'setupSnippetId', 'tearDownSnippetId', 'localSetupScript', 'localTearDownScript'] as const;

