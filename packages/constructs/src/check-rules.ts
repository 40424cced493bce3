/**
 * Rules the Checkly CLI's constructs enforce on checks and that no schema can see: they involve
 * two props, or a prop and where its value was inherited from. Each reports a diagnostic on the
 * construct's `new` line.
 */
import { RESPONSE_TIME_MAX, RESPONSE_TIME_MIN, RUNTIME_IDS } from '@vigil/schema';
import type { BuildContext } from './build-context.js';
import { retryConditions } from './retry-strategy.js';

/** Where a cascaded prop's value came from, for hints that send users to the right file. */
export type Origin = 'check' | 'group' | 'config';

const ORIGIN_PHRASE: Record<Exclude<Origin, 'check'>, string> = {
  group: 'its group',
  config: "the config's `checks` defaults",
};

/** `doubleCheck: true` as a strategy: what the service did for it before retry strategies existed. */
export const DOUBLE_CHECK_EQUIVALENT =
  'RetryStrategyBuilder.fixedStrategy({ maxRetries: 1, baseBackoffSeconds: 0, maxDurationSeconds: 600, sameRegion: false })';

const DOUBLE_CHECK_HINT = `Use retryStrategy instead: ${DOUBLE_CHECK_EQUIVALENT} does what doubleCheck: true did, RetryStrategyBuilder.noRetries() what doubleCheck: false did.`;

/**
 * `doubleCheck` is deprecated, and meaningless next to a retry strategy (the strategy decides), so
 * Checkly refuses the two together — also when the strategy is inherited.
 */
export function checkDoubleCheck(context: BuildContext, doubleCheck: unknown, retryStrategy: { value: unknown; origin: Origin | undefined }): void {
  if (doubleCheck === undefined) return;
  if (retryStrategy.value !== undefined && retryStrategy.origin !== undefined) {
    const from = retryStrategy.origin === 'check' ? '' : ` (this check gets "retryStrategy" from ${ORIGIN_PHRASE[retryStrategy.origin]})`;
    context.error(
      'doubleCheck',
      `"doubleCheck" cannot be combined with "retryStrategy"${from}`,
      'Remove "doubleCheck": the retry strategy alone decides how failed runs are retried; RetryStrategyBuilder.noRetries() never retries.',
    );
    return;
  }
  context.warning('doubleCheck', '"doubleCheck" is deprecated', DOUBLE_CHECK_HINT);
}

/** `CheckGroupV2` dropped `doubleCheck` (Checkly: "removed"); a group's retries are its `retryStrategy`. */
export function checkGroupDoubleCheck(context: BuildContext, doubleCheck: unknown): void {
  if (doubleCheck === undefined) return;
  context.error('doubleCheck', '"doubleCheck" is not supported by CheckGroupV2', DOUBLE_CHECK_HINT);
}

/** `onlyOn: 'NETWORK_ERROR'` needs a response to be missing, which only request-based checks can tell. */
export function checkRetryOnlyOn(context: BuildContext, retryStrategy: { value: unknown; origin: Origin | undefined }, constructName: string): void {
  if (retryConditions(retryStrategy.value).length === 0) return;
  const from = retryStrategy.origin === undefined || retryStrategy.origin === 'check' ? '' : ` (inherited from ${ORIGIN_PHRASE[retryStrategy.origin]})`;
  context.error(
    'retryStrategy.onlyOn',
    `"retryStrategy.onlyOn" is only supported by API checks, not by ${constructName}${from}`,
    'Leave out onlyOn: this check retries on any failure.',
  );
}

/**
 * A check cannot be degraded above the time at which it fails. Compared with the service's default
 * `maxResponseTime` when only `degradedResponseTime` is set, as Checkly does.
 */
export function checkResponseTimes(
  context: BuildContext,
  props: { degradedResponseTime?: number | null | undefined; maxResponseTime?: number | null | undefined },
  defaultMaxResponseTime: number | undefined,
): void {
  const degraded = props.degradedResponseTime;
  if (typeof degraded !== 'number') return;
  const explicitMax = typeof props.maxResponseTime === 'number' ? props.maxResponseTime : undefined;
  const max = explicitMax ?? (props.maxResponseTime === undefined ? defaultMaxResponseTime : undefined);
  // A value outside the allowed range is the schema's to report; comparing it would only repeat that.
  const inRange = (value: number) => value >= RESPONSE_TIME_MIN && value <= RESPONSE_TIME_MAX;
  if (max === undefined || !inRange(degraded) || !inRange(max) || degraded <= max) return;
  if (explicitMax !== undefined) {
    context.error(
      'degradedResponseTime',
      `"degradedResponseTime" (${degraded}) must be less than or equal to "maxResponseTime" (${explicitMax})`,
      'A check is degraded before it fails: lower degradedResponseTime or raise maxResponseTime.',
    );
  } else {
    context.error(
      'degradedResponseTime',
      `"degradedResponseTime" (${degraded}) must be less than or equal to the default "maxResponseTime" (${max})`,
      'Set "maxResponseTime" too if the check may take longer.',
    );
  }
}

/** The first runtime that runs multi-step checks (Checkly: "Multi-Step Checks are not supported" before it). */
export const MULTI_STEP_MIN_RUNTIME = '2023.09';

/** `RUNTIME_IDS` is newest first, so the older ones are those after the minimum. */
const RUNTIMES_WITHOUT_MULTI_STEP: readonly string[] = RUNTIME_IDS.slice(RUNTIME_IDS.indexOf(MULTI_STEP_MIN_RUNTIME) + 1);

export function checkMultiStepRuntime(context: BuildContext, runtime: { value: unknown; origin: Origin | undefined }): void {
  if (typeof runtime.value !== 'string' || !RUNTIMES_WITHOUT_MULTI_STEP.includes(runtime.value)) return;
  const from = runtime.origin === undefined || runtime.origin === 'check' ? '' : ` (inherited from ${ORIGIN_PHRASE[runtime.origin]})`;
  context.error(
    'runtimeId',
    `"runtimeId" ${runtime.value}${from} does not run multi-step checks: they need ${MULTI_STEP_MIN_RUNTIME} or later`,
    `Set runtimeId to "${MULTI_STEP_MIN_RUNTIME}" or later, e.g. "${RUNTIME_IDS[0]}".`,
  );
}

/**
 * A group's variable with an empty value reaches every check of the group as an empty string;
 * Checkly refuses it ("Value must not be empty") rather than let a check run with it.
 */
export function checkGroupVariableValues(context: BuildContext, variables: unknown): void {
  if (!Array.isArray(variables)) return;
  variables.forEach((variable: unknown, index) => {
    if (typeof variable === 'object' && variable !== null && (variable as { value?: unknown }).value === '') {
      const path = `environmentVariables[${index}].value`;
      context.error(path, `"${path}" must not be empty`, 'Remove the variable, or give it a value (a secret one with `secret: true`).');
    }
  });
}
