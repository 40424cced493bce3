/**
 * Checks: API, multi-step and generic create, their PUT bodies and
 * responses, and the `frequencyOffset` rules of the API.
 *
 * Every resource follows one pattern: a defaults-free field shape; `XCreate` = shape + documented
 * defaults (parsing fills them; the server stores the parsed output and the constructs use the same
 * schema to fill defaults); `XUpdate` = every field optional, no defaults (PUT merges); `X` = the
 * response. Unknown keys are stripped, not rejected, like the real service: it ignores extras, and
 * a client built against a newer API must not be broken by an older server.
 */
import { z } from 'zod';
import {
  AlertChannelSubscription,
  AlertChannelSubscriptions,
  AlertChannelsSummary,
  AlertSettings,
  ApiCheckRequest,
  DEFAULT_ALERT_SETTINGS,
  Dependencies,
  EnvironmentVariableResponse,
  type EnvironmentVariable,
  EnvironmentVariables,
  HeartbeatConfig,
  Locations,
  PrivateLocations,
  RESPONSE_ARRAYS,
  RESPONSE_ARRAY_DEFAULTS,
  RetryStrategy,
  RetryStrategyResponse,
  Tags,
  TriggerIncident,
} from './embedded.js';
import { allOptional, queryList, whenFieldsValid, withDefaults } from './helpers.js';
import { PageQuery } from './paging.js';
import {
  DEGRADED_RESPONSE_TIME_DEFAULT,
  FREQUENCY_DEFAULT,
  FREQUENCY_OFFSET_MIN,
  GROUP_ORDER_MIN,
  MAX_RESPONSE_TIME_DEFAULT,
  RESPONSE_TIME_MAX,
  RESPONSE_TIME_MIN,
  SCRIPT_MAX_LENGTH,
  frequencyOffsetProblem,
  type FrequencyOffsetCheckKind,
} from './limits.js';
import { CheckType, Frequency, Location, MultiStepFrequency, RuntimeId } from './values.js';

/**
 * The request of a check type other than API (TCP host and port, DNS query, URL monitor): those
 * have no `method`, so a request with one is an API check's and is held to that schema.
 */
const OtherTypeRequest = z.looseObject({ method: z.undefined().optional() });

const ResponseTime = z.number().min(RESPONSE_TIME_MIN).max(RESPONSE_TIME_MAX).nullable();

/** Fields every check kind shares, without defaults. */
export const commonCheckFields = {
  name: z.string().min(1),
  /** Markdown shown with the check (the real service's field; Checkly projects set it). */
  description: z.string().nullable().optional(),
  activated: z.boolean().optional(),
  muted: z.boolean().optional(),
  /** Deprecated in favour of `retryStrategy`. */
  doubleCheck: z.boolean().optional(),
  shouldFail: z.boolean().optional(),
  locations: Locations.nullable().optional(),
  privateLocations: PrivateLocations.nullable().optional(),
  tags: Tags.optional(),
  alertSettings: AlertSettings.optional(),
  useGlobalAlertSettings: z.boolean().optional(),
  groupId: z.number().int().nullable().optional(),
  groupOrder: z.number().int().min(GROUP_ORDER_MIN).nullable().optional(),
  runtimeId: RuntimeId.nullable().optional(),
  alertChannelSubscriptions: AlertChannelSubscriptions.optional(),
  retryStrategy: RetryStrategy.nullable().optional(),
  triggerIncident: TriggerIncident.nullable().optional(),
  runParallel: z.boolean().optional(),
  frequencyOffset: z.number().int().min(FREQUENCY_OFFSET_MIN).optional(),
  setupSnippetId: z.number().int().nullable().optional(),
  tearDownSnippetId: z.number().int().nullable().optional(),
  localSetupScript: z.string().nullable().optional(),
  localTearDownScript: z.string().nullable().optional(),
};

/** Defaults of the API shared by every create call. */
export const commonCheckDefaults = {
  activated: true,
  muted: false,
  doubleCheck: true,
  shouldFail: false,
  locations: [] as Location[],
  privateLocations: [] as string[],
  tags: [] as string[],
  alertSettings: DEFAULT_ALERT_SETTINGS,
  useGlobalAlertSettings: true,
  alertChannelSubscriptions: [] as AlertChannelSubscription[],
  runParallel: false,
  frequency: FREQUENCY_DEFAULT as 10,
};

/** Response-only fields the service adds to every check. */
export const checkResponseFields = {
  ...withDefaults(RESPONSE_ARRAYS, RESPONSE_ARRAY_DEFAULTS),
  id: z.string(),
  retryStrategy: RetryStrategyResponse.nullable().optional(),
  alertChannels: AlertChannelsSummary,
  created_at: z.string(),
  updated_at: z.string().nullable(),
};

/**
 * The `frequencyOffset` rules of the API as a superRefine. Runs only when both values are known:
 * on a PUT that omits one of them, the server re-checks the merged record with
 * `frequencyOffsetProblem`.
 */
export function refineFrequencyOffset(kind: (value: { checkType?: unknown }) => FrequencyOffsetCheckKind) {
  return (value: { frequency?: number | undefined; frequencyOffset?: number | undefined; checkType?: unknown }, ctx: z.RefinementCtx) => {
    if (value.frequency === undefined || value.frequencyOffset === undefined) return;
    const problem = frequencyOffsetProblem(value.frequency, value.frequencyOffset, kind(value));
    if (problem !== undefined) ctx.addIssue({ code: 'custom', path: ['frequencyOffset'], message: problem, input: value.frequencyOffset });
  };
}

/** The offset rules read only these fields, so they still run when other fields are invalid. */
const OFFSET_FIELDS = whenFieldsValid('frequency', 'frequencyOffset', 'checkType');

/** Maps a `checkType` to the kind the offset rules distinguish. */
export function frequencyOffsetKind(checkType: unknown): FrequencyOffsetCheckKind {
  if (checkType === 'API' || checkType === 'TCP' || checkType === 'URL' || checkType === 'DNS' || checkType === 'MULTI_STEP') return checkType;
  return 'OTHER';
}

// ---------------------------------------------------------------------------------------------
// API checks: POST /v1/checks/api, PUT /v1/checks/api/{id}

const apiCheckFields = {
  ...commonCheckFields,
  checkType: z.literal('API').optional(),
  frequency: Frequency.optional(),
  degradedResponseTime: ResponseTime.optional(),
  maxResponseTime: ResponseTime.optional(),
  request: ApiCheckRequest,
  /** Read by the check's setup and teardown scripts (`process.env`), as on the real service. */
  environmentVariables: EnvironmentVariables.optional(),
};

const apiCheckCreateShape = withDefaults(apiCheckFields, {
  ...commonCheckDefaults,
  checkType: 'API',
  environmentVariables: [] as EnvironmentVariable[],
  degradedResponseTime: DEGRADED_RESPONSE_TIME_DEFAULT,
  maxResponseTime: MAX_RESPONSE_TIME_DEFAULT,
});

/** Body of `POST /v1/checks/api`; required `name`, `request`. */
export const ApiCheckCreate = z.object(apiCheckCreateShape).superRefine(refineFrequencyOffset(() => 'API'), OFFSET_FIELDS);
export type ApiCheckCreate = z.infer<typeof ApiCheckCreate>;
/** What a caller may send (defaults not yet applied). */
export type ApiCheckCreateInput = z.input<typeof ApiCheckCreate>;

/** Body of `PUT /v1/checks/api/{id}`: merge semantics, nothing defaulted. */
export const ApiCheckUpdate = z.object(allOptional(apiCheckFields)).superRefine(refineFrequencyOffset(() => 'API'), OFFSET_FIELDS);
export type ApiCheckUpdate = z.infer<typeof ApiCheckUpdate>;

/** An API check as the service returns it. */
export const ApiCheck = z.object({
  ...apiCheckCreateShape,
  ...checkResponseFields,
  checkType: z.literal('API'),
  frequencyOffset: z.number().int(),
});
export type ApiCheck = z.infer<typeof ApiCheck>;

// ---------------------------------------------------------------------------------------------
// Multi-step checks: POST /v1/checks/multistep, PUT /v1/checks/multistep/{id}

const multiStepCheckFields = {
  ...commonCheckFields,
  checkType: z.literal('MULTI_STEP').optional(),
  frequency: MultiStepFrequency.optional(),
  degradedResponseTime: ResponseTime.optional(),
  maxResponseTime: ResponseTime.optional(),
  /** May be empty, as the real service (and the Checkly CLI) allow: a placeholder check. */
  script: z.string().max(SCRIPT_MAX_LENGTH),
  scriptPath: z.string().nullable().optional(),
  environmentVariables: EnvironmentVariables.optional(),
  dependencies: Dependencies.nullable().optional(),
};

const multiStepCheckCreateShape = withDefaults(multiStepCheckFields, {
  ...commonCheckDefaults,
  checkType: 'MULTI_STEP',
  environmentVariables: [] as EnvironmentVariable[],
});

/** Body of `POST /v1/checks/multistep`; required `name`, `script`; frequency without 0. */
export const MultiStepCheckCreate = z
  .object(multiStepCheckCreateShape)
  .superRefine(refineFrequencyOffset(() => 'MULTI_STEP'), OFFSET_FIELDS);
export type MultiStepCheckCreate = z.infer<typeof MultiStepCheckCreate>;
export type MultiStepCheckCreateInput = z.input<typeof MultiStepCheckCreate>;

/** Body of `PUT /v1/checks/multistep/{id}`. */
export const MultiStepCheckUpdate = z
  .object(allOptional(multiStepCheckFields))
  .superRefine(refineFrequencyOffset(() => 'MULTI_STEP'), OFFSET_FIELDS);
export type MultiStepCheckUpdate = z.infer<typeof MultiStepCheckUpdate>;

/** A multi-step check as the service returns it (secret variables with `value: null`). */
export const MultiStepCheck = z.object({
  ...multiStepCheckCreateShape,
  ...checkResponseFields,
  checkType: z.literal('MULTI_STEP'),
  frequencyOffset: z.number().int(),
  environmentVariables: z.array(EnvironmentVariableResponse).nullable(),
});
export type MultiStepCheck = z.infer<typeof MultiStepCheck>;

// ---------------------------------------------------------------------------------------------
// Generic checks: POST /v1/checks, PUT /v1/checks/{id}, GET /v1/checks[/{id}]

const genericCheckFields = {
  ...commonCheckFields,
  checkType: CheckType,
  /** The value set of the typed create calls, as the real document's `ChecksV1CheckCreate` has it. */
  frequency: Frequency.optional(),
  heartbeat: HeartbeatConfig,
  script: z.string().max(SCRIPT_MAX_LENGTH).nullable(),
  scriptPath: z.string().nullable().optional(),
  /**
   * Spec §4.1 lists `request` among "the other fields of 2.3": the API check request, or another
   * type's request (TCP, URL, DNS), which that type's own create call validates.
   */
  request: z.union([ApiCheckRequest, OtherTypeRequest]).optional(),
  sslCheckDomain: z.string().optional(),
  environmentVariables: EnvironmentVariables.optional(),
  dependencies: Dependencies.nullable().optional(),
  /** "any type" in the API for this call. */
  degradedResponseTime: z.unknown().optional(),
  maxResponseTime: z.unknown().optional(),
};

const genericCheckCreateShape = withDefaults(genericCheckFields, commonCheckDefaults);

/** Body of `POST /v1/checks`; required `name`, `checkType`, `heartbeat`, `script`. */
export const CheckCreate = z
  .object(genericCheckCreateShape)
  .superRefine(refineFrequencyOffset((v) => frequencyOffsetKind(v.checkType)), OFFSET_FIELDS);
export type CheckCreate = z.infer<typeof CheckCreate>;
export type CheckCreateInput = z.input<typeof CheckCreate>;

/** Response of `POST /v1/checks`: only the id and type. */
export const CheckCreated = z.object({ id: z.string(), checkType: CheckType });
export type CheckCreated = z.infer<typeof CheckCreated>;

/** Body of `PUT /v1/checks/{id}` (generic update). */
export const CheckUpdate = z
  .object(allOptional(genericCheckFields))
  .superRefine(refineFrequencyOffset((v) => frequencyOffsetKind(v.checkType)), OFFSET_FIELDS);
export type CheckUpdate = z.infer<typeof CheckUpdate>;

/**
 * Any check as `GET /v1/checks` and `GET /v1/checks/{id}` return it. Kind-specific fields are
 * optional; narrow on `checkType` (or parse with `ApiCheck` / `MultiStepCheck`) for the exact type.
 */
export const Check = z.object({
  // Defaults-free on purpose: a response parse must not invent values (e.g. a 5000 ms
  // degradedResponseTime on a multi-step check) that the service never returned.
  ...allOptional(apiCheckFields),
  ...allOptional(multiStepCheckFields),
  ...checkResponseFields,
  // Defaults-free like the rest of this schema.
  ...allOptional(RESPONSE_ARRAYS),
  name: z.string(),
  checkType: CheckType,
  activated: z.boolean(),
  muted: z.boolean(),
  frequency: z.number().int(),
  frequencyOffset: z.number().int().optional(),
  /**
   * Each type has its own request (an API check's URL and assertions, a TCP monitor's host and
   * port, …); parse with the type's own schema for the exact shape.
   */
  request: z.union([ApiCheckRequest, OtherTypeRequest]).optional(),
  script: z.string().nullable().optional(),
  environmentVariables: z.array(EnvironmentVariableResponse).nullable().optional(),
  heartbeat: HeartbeatConfig.optional(),
  sslCheckDomain: z.string().nullable().optional(),
  /** A browser check's Playwright options (./browser-checks.ts), kept so plans can compare them. */
  playwrightConfig: z.record(z.string(), z.unknown()).nullable().optional(),
  /** An ICMP monitor's packet-loss thresholds (./icmp-checks.ts), kept so plans can compare them. */
  degradedPacketLossThreshold: z.number().nullable().optional(),
  maxPacketLossThreshold: z.number().nullable().optional(),
  /** A Playwright check suite's fields (./playwright-checks.ts), kept so plans can compare them. */
  playwrightConfigPath: z.string().optional(),
  testCommand: z.string().optional(),
  installCommand: z.string().optional(),
  pwProjects: z.array(z.string()).optional(),
  pwTags: z.array(z.string()).optional(),
  codeBundle: z.array(z.object({ path: z.string(), content: z.string() })).optional(),
  cacheHash: z.string().nullable().optional(),
});
export type Check = z.infer<typeof Check>;

export const CHECK_LIST_STATUSES = ['passing', 'failing', 'degraded'] as const;

/** Query of `GET /v1/checks` (extension): paging plus `tag` (repeatable) and `checkType`. */
export const ChecksListQuery = PageQuery.extend({
  tag: queryList(z.string()).optional(),
  checkType: CheckType.optional(),
  /** Case-insensitive part of the check's name (real API). */
  search: z.string().optional(),
  /** The checks whose last run was passing, failing (failures or errors) or degraded (real API); a check that never ran has none. */
  status: z.enum(CHECK_LIST_STATUSES).optional(),
  /** A part of an API check's URL, e.g. a domain (case-insensitive); only API checks are listed (real API). */
  apiCheckUrlFilterPattern: z.string().min(1).optional(),
});
export type ChecksListQuery = z.infer<typeof ChecksListQuery>;
export type CheckListStatus = (typeof CHECK_LIST_STATUSES)[number];
