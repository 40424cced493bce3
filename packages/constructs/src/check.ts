/**
 * What API and multi-step checks share: the props of the API common to both, the defaults
 * cascade (config → group → the check's own props) and the payload fields built from them.
 */
import { FREQUENCIES, MULTI_STEP_FREQUENCIES, SUB_MINUTE_CHECK_KINDS, frequencyOffsetProblem, type IncidentSeverity } from '@vigil/schema';
import type { AlertEscalation } from './alert-escalation-policy.js';
import type { AlertChannelReference } from './alert-channel.js';
import type { BuildContext, RefTarget } from './build-context.js';
import type { CheckGroupReference, CheckGroupV2Props } from './check-group-v2.js';
import { multiStepCheckDefaults, type CheckDefaults } from './config.js';
import type { Construct, ConstructProps } from './construct.js';
import { resolveFrequency, type FrequencyValue } from './frequency.js';
import { formatPath, type PathSegment } from './path.js';
import { privateLocationIdentifiers, type PrivateLocationReference } from './private-location.js';
import { checkDoubleCheck, checkMultiStepRuntime, checkRetryOnlyOn, type Origin } from './check-rules.js';
import { isConstruct, unwrapConstructRef, type ConstructRef } from './ref.js';
import { retryStrategyPayload, type RetryStrategy } from './retry-strategy.js';
import type { StatusPageServiceReference } from './status-page-service.js';
import type { PropKeys } from './unknown-props.js';
import type { Location, RuntimeId } from './values.js';

/** Opens and resolves a status-page incident from the check's alerts. */
export interface IncidentTrigger {
  /** The status-page service the incident is opened on. */
  service: StatusPageServiceReference;
  /** Severity of the incident: `MINOR`, `MEDIUM`, `MAJOR` or `CRITICAL`. */
  severity: IncidentSeverity;
  /** Name of the incident. */
  name: string;
  /** Description of the incident. Default empty. */
  description?: string;
  /** Whether the status page's subscribers are notified. Default false. */
  notifySubscribers?: boolean;
}

/** An environment variable of a check or group. */
export interface EnvironmentVariable {
  /** Name of the variable, e.g. `API_TOKEN`. */
  key: string;
  /** Its value. */
  value: string;
  /** Hides the value in the service's UI. */
  locked?: boolean;
  /** Secret: never returned by the service; plans and state only keep its hash. */
  secret?: boolean;
}

/** Props shared by API and multi-step checks. */
export interface CheckProps extends ConstructProps {
  /** Name of the check. Required. */
  name: string;
  /** What the check is for (Markdown), shown with it. */
  description?: string | null;
  /** Whether the check runs. Default true. */
  activated?: boolean;
  /** Whether notifications are suppressed on failure and recovery. Default false. */
  muted?: boolean;
  /**
   * Retry a failed run once from another location before alerting. Default true. Cannot be
   * combined with a `retryStrategy` (the check's own or one it inherits).
   * @deprecated Use {@link CheckProps.retryStrategy} instead:
   * `RetryStrategyBuilder.fixedStrategy({ maxRetries: 1, baseBackoffSeconds: 0, maxDurationSeconds: 600, sameRegion: false })`
   * for `true`, `RetryStrategyBuilder.noRetries()` for `false`.
   */
  doubleCheck?: boolean;
  /** Inverts what counts as a failure, so error statuses such as 404 can be validated. Default false. */
  shouldFail?: boolean;
  /** Data-center locations to run from, e.g. `['eu-west-1', 'us-east-1']`. */
  locations?: Location[];
  /** Private locations to run from: slug names, `PrivateLocation`s or `PrivateLocation.fromId(id)`. */
  privateLocations?: PrivateLocationReference[];
  /** Tags for organising and filtering. */
  tags?: string[];
  /**
   * How often the check runs: minutes (0, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440) or a
   * `Frequency` value such as `Frequency.EVERY_5M`. Default 10.
   */
  frequency?: FrequencyValue;
  /**
   * Spreads runs over time. With frequency 0 (sub-minute): 10, 20 or 30 seconds between runs; up to
   * 60 minutes: 1..floor(frequency × 10); above: 1..ceil(frequency / 60). Assigned by the service
   * when omitted.
   */
  frequencyOffset?: number;
  /** The check group this check belongs to: a `CheckGroupV2` or `CheckGroupV2.fromId(id)`. */
  group?: CheckGroupReference;
  /** The check group as Checkly's older spelling has it, `groupId: group.ref()`; prefer `group`. */
  groupId?: ConstructRef<Construct> | CheckGroupReference;
  /** Position (>= 0) in the group's run order when the group is triggered through the API or CI/CD. */
  groupOrder?: number | null;
  /** Runtime version for the check's scripts: 2026.04, 2025.04, 2024.09, 2024.02, 2023.09, 2023.02 or 2022.10. */
  runtimeId?: RuntimeId | null;
  /** Alert channels notified about this check (constructs or `fromId` references). */
  alertChannels?: AlertChannelReference[];
  /**
   * When and how the check alerts (`AlertEscalationBuilder`). `'global'` uses the account-level
   * alert settings, which is also what happens when it is omitted. In a group that sets its own
   * `alertEscalationPolicy` (or `'global'`, or a `CheckGroupV1` without one) the service applies the
   * group's settings to every check instead, and validation warns that this one is not used.
   */
  alertEscalationPolicy?: AlertEscalation | 'global';
  /**
   * How failed runs are retried (`RetryStrategyBuilder`); `RetryStrategyBuilder.noRetries()` for
   * none (sent as `retryStrategy: null` with `doubleCheck: false`). When omitted, the group's or
   * the config's strategy applies.
   */
  retryStrategy?: RetryStrategy | null;
  /** Creates and resolves a status-page incident from the check's alerts. */
  triggerIncident?: IncidentTrigger;
  /** Run in all selected locations at once instead of one per run. Default false. */
  runParallel?: boolean;
  /**
   * Only run by `vigil test`: never planned, applied or deployed. For checks that exercise a
   * staging target or a pre-deploy assertion. Default false.
   */
  testOnly?: boolean;
}

/** Every prop of {@link CheckProps}, for the unknown-prop check. */
export const CHECK_PROP_KEYS: PropKeys<CheckProps> = {
  protect: true,
  name: true,
  description: true,
  activated: true,
  muted: true,
  doubleCheck: true,
  shouldFail: true,
  locations: true,
  privateLocations: true,
  tags: true,
  frequency: true,
  frequencyOffset: true,
  group: true,
  groupId: true,
  groupOrder: true,
  runtimeId: true,
  alertChannels: true,
  alertEscalationPolicy: true,
  retryStrategy: true,
  triggerIncident: true,
  runParallel: true,
  testOnly: true,
};

const GROUP_TARGET: RefTarget = { kind: 'check-group', name: 'a CheckGroupV2', idType: 'number' };
const ALERT_CHANNEL_TARGET: RefTarget = { kind: 'alert-channel', name: 'an alert channel', idType: 'number' };
const SERVICE_TARGET: RefTarget = { kind: 'status-page-service', name: 'a StatusPageService', idType: 'string' };

/**
 * Props a group passes down to its checks when they do not set them: only `frequency`, as in
 * Checkly. The group's locations, runtime, retry and alert settings are the group's own (the
 * service applies them to its checks); copied into each check they would stay behind when the
 * check leaves the group, and make every check Checkly deployed differ from its code.
 */
type GroupDefaults = Pick<CheckGroupV2Props, 'frequency'>;

function groupDefaults(group: unknown): GroupDefaults {
  if (!isConstruct(group) || group.kind !== 'check-group') return {};
  const props = (group as unknown as { props?: CheckGroupV2Props }).props ?? { name: '' };
  return { frequency: props.frequency };
}

/**
 * A check's own escalation that its group overrides: the service applies the group's (or the
 * account's) alert settings to every check of a group that sets them, so the plan would otherwise
 * promise thresholds and reminders that never come.
 */
function warnOverriddenEscalation(context: BuildContext, own: CheckProps['alertEscalationPolicy'], group: unknown): void {
  if (own === undefined || !isConstruct(group) || group.kind !== 'check-group') return;
  const decides = (group as unknown as { alertSettingsOfChecks?: () => 'group' | 'account' | null }).alertSettingsOfChecks?.();
  if (decides === null || decides === undefined) return;
  const name = (group as unknown as { props?: { name?: string } }).props?.name ?? group.logicalId;
  const whose = decides === 'group' ? 'its own alertEscalationPolicy' : "the account's alert settings";
  context.warning(
    'alertEscalationPolicy',
    `is not used: the check's group "${name}" applies ${whose} to every check in it`,
    decides === 'group'
      ? "remove it here, or remove the group's alertEscalationPolicy so that each check keeps its own"
      : 'remove it here, or make the group a CheckGroupV2 without alertEscalationPolicy so that each check keeps its own',
  );
}

/** The first level that sets `key`: the check's props, then its group, then the config. */
function cascade<K extends keyof CheckProps & keyof CheckDefaults>(
  key: K,
  props: CheckProps,
  group: Partial<Record<K, unknown>>,
  config: CheckDefaults,
): { value: unknown; origin: Origin | undefined } {
  if (props[key] !== undefined) return { value: props[key], origin: 'check' };
  if (group[key] !== undefined) return { value: group[key], origin: 'group' };
  if (config[key] !== undefined) return { value: config[key], origin: 'config' };
  return { value: undefined, origin: undefined };
}

/** Which frequency rules apply: API, TCP, URL and DNS checks run sub-minute; `OTHER` is any other type (see SUB_MINUTE_CHECK_KINDS). */
export type CheckKindForFrequency = 'API' | 'TCP' | 'URL' | 'DNS' | 'MULTI_STEP' | 'OTHER';

/** Builds the payload fields shared by API and multi-step checks. */
export function buildCheckFields(context: BuildContext, props: CheckProps, kind: CheckKindForFrequency): Record<string, unknown> {
  const config = kind === 'MULTI_STEP' ? multiStepCheckDefaults(context.checkDefaults) : context.checkDefaults;
  const groupProp = props.group !== undefined ? 'group' : 'groupId';
  const groupValue = props.group ?? props.groupId;
  const group = groupDefaults(unwrapConstructRef(groupValue));
  const cascaded = <K extends keyof CheckProps & keyof CheckDefaults>(key: K) =>
    cascade(key, props, group as Partial<Record<K, unknown>>, config);
  const pick = <K extends keyof CheckProps & keyof CheckDefaults>(key: K) => cascaded(key).value;

  const payload: Record<string, unknown> = {
    name: props.name,
    description: props.description,
    activated: props.activated ?? config.activated,
    muted: props.muted ?? config.muted,
    doubleCheck: props.doubleCheck,
    shouldFail: props.shouldFail ?? config.shouldFail,
    locations: pick('locations'),
    privateLocations: privateLocationIdentifiers(context, pick('privateLocations'), 'privateLocations'),
    tags: props.tags ?? config.tags,
    runtimeId: pick('runtimeId'),
    runParallel: pick('runParallel'),
    groupOrder: props.groupOrder,
  };

  Object.assign(payload, frequencyFields(context, props, pick('frequency') as FrequencyValue | undefined, kind));

  const retry = cascaded('retryStrategy');
  const retryStrategy = retryStrategyPayload(retry.value);
  if (retryStrategy !== undefined) payload.retryStrategy = retryStrategy;
  // The service's doubleCheck default (true) would still retry once after "no strategy".
  if (retryStrategy === null && props.doubleCheck === undefined) payload.doubleCheck = false;
  // The config's deprecated doubleCheck, only where no level sets the strategy that replaced it.
  else if (props.doubleCheck === undefined && retry.value === undefined && config.doubleCheck !== undefined) payload.doubleCheck = config.doubleCheck;
  checkDoubleCheck(context, props.doubleCheck, retry);
  if (kind === 'MULTI_STEP') {
    checkRetryOnlyOn(context, retry, 'MultiStepCheck');
    checkMultiStepRuntime(context, cascaded('runtimeId'));
  }

  const policy = pick('alertEscalationPolicy');
  warnOverriddenEscalation(context, props.alertEscalationPolicy, unwrapConstructRef(groupValue));
  if (policy === 'global') payload.useGlobalAlertSettings = true;
  else if (policy !== undefined) {
    payload.alertSettings = policy;
    payload.useGlobalAlertSettings = false;
  }

  if (groupValue !== undefined) {
    payload.groupId = context.reference(groupValue, GROUP_TARGET, groupProp, ['groupId']);
  }

  const channels = props.alertChannels ?? config.alertChannels ?? [];
  if (!Array.isArray(channels)) {
    context.error('alertChannels', '"alertChannels" must be an array of alert channels');
  } else {
    payload.alertChannelSubscriptions = channels.map((channel, index) => ({
      alertChannelId: context.reference(
        channel,
        ALERT_CHANNEL_TARGET,
        `alertChannels[${index}]`,
        ['alertChannelSubscriptions', index, 'alertChannelId'],
      ),
      activated: true,
    }));
  }

  if (typeof props.triggerIncident === 'object' && props.triggerIncident !== null) {
    const { service, severity, name, description, notifySubscribers } = props.triggerIncident;
    payload.triggerIncident = {
      serviceId: context.reference(service, SERVICE_TARGET, 'triggerIncident.service', ['triggerIncident', 'serviceId']),
      severity,
      name,
      description,
      notifySubscribers,
    };
  } else if (props.triggerIncident !== undefined) {
    // Not an object: let the schema say what it must be.
    payload.triggerIncident = props.triggerIncident;
  }
  return payload;
}

const OFFSET_HINT =
  'frequencyOffset spreads runs over time: 10, 20 or 30 with frequency 0, 1..frequency×10 up to an hour, 1..frequency/60 above.';

/**
 * `frequency`/`frequencyOffset`, with the offset rules of the API, and one the schema cannot see:
 * a sub-minute frequency without the offset that says how often.
 */
function frequencyFields(
  context: BuildContext,
  props: CheckProps,
  value: FrequencyValue | undefined,
  kind: CheckKindForFrequency,
): Record<string, unknown> {
  const resolved = resolveFrequency(value);
  const offset = props.frequencyOffset ?? resolved.frequencyOffset;
  const fields: Record<string, unknown> = {};
  if (resolved.frequency !== undefined) fields.frequency = resolved.frequency;
  if (offset !== undefined) fields.frequencyOffset = offset;
  const frequency = resolved.frequency;
  const allowed: readonly number[] = SUB_MINUTE_CHECK_KINDS.includes(kind) ? FREQUENCIES : MULTI_STEP_FREQUENCIES;
  // A frequency outside the set is reported by the schema; offset rules only mean something for a valid one.
  if (typeof frequency !== 'number' || !allowed.includes(frequency)) return fields;
  if (offset === undefined) {
    if (frequency === 0) {
      context.error(
        'frequencyOffset',
        '"frequencyOffset" is required when frequency is 0: sub-minute checks run every 10, 20 or 30 seconds',
        'Use Frequency.EVERY_10S, Frequency.EVERY_20S or Frequency.EVERY_30S.',
      );
    }
    return fields;
  }
  // Checked here too: the schema's own offset check is skipped when any other field is invalid.
  const problem = typeof offset === 'number' ? frequencyOffsetProblem(frequency, offset, kind) : undefined;
  if (problem !== undefined) context.error('frequencyOffset', problem, OFFSET_HINT);
  return fields;
}

/** Maps payload paths of the shared fields back to the props users wrote. */
export function checkPropPath(payloadPath: PathSegment[]): string {
  const [head, index] = payloadPath;
  switch (head) {
    case 'alertChannelSubscriptions':
      return typeof index === 'number' ? formatPath(['alertChannels', index]) : 'alertChannels';
    case 'groupId':
      return 'group';
    case 'alertSettings':
      return formatPath(['alertEscalationPolicy', ...payloadPath.slice(1)]);
    case 'triggerIncident':
      return index === 'serviceId' ? 'triggerIncident.service' : formatPath(payloadPath);
    default:
      return formatPath(payloadPath);
  }
}

/** Secret environment variables: their values are hashed in plans and state. */
export function markSecretVariables(context: BuildContext, variables: unknown): void {
  if (!Array.isArray(variables)) return;
  variables.forEach((variable: unknown, index) => {
    if (typeof variable === 'object' && variable !== null && (variable as EnvironmentVariable).secret === true) {
      context.secret(['environmentVariables', index, 'value']);
    }
  });
}
