/** Embedded objects of the API, shared by checks, check groups and alert channels. */
import { z } from 'zod';
import {
  ALERT_CHANNEL_SUBSCRIPTIONS_MAX,
  ASSERTIONS_MAX,
  DEPENDENCIES_MAX,
  ENVIRONMENT_VARIABLES_MAX,
  KEY_VALUES_MAX,
  PRIVATE_LOCATIONS_MAX,
  TAGS_MAX,
} from './limits.js';
import {
  AssertionComparison,
  AssertionSource,
  BodyType,
  EscalationType,
  FAILED_RUN_THRESHOLDS,
  FALLBACK_RETRY_STRATEGY,
  HttpMethod,
  HeartbeatTimeUnit,
  IncidentSeverity,
  IpFamily,
  LOCATIONS,
  Location,
  MINUTES_FAILING_THRESHOLDS,
  PARALLEL_RUN_FAILURE_PERCENTAGES,
  REMINDER_AMOUNTS,
  REMINDER_INTERVALS,
  RETRY_ONLY_ON,
  RetryOnlyOn,
  RETRY_STRATEGY_TYPES,
} from './values.js';

/** `tags` of a check, group or maintenance window. */
export const Tags = z.array(z.string()).max(TAGS_MAX);

/** `locations`: a location may be named once each, so the value set bounds the list. */
export const Locations = z.array(Location).max(LOCATIONS.length);

export const PrivateLocations = z.array(z.string()).max(PRIVATE_LOCATIONS_MAX);

/** Header or query parameter. */
export const KeyValue = z.object({
  key: z.string(),
  value: z.string(),
  locked: z.boolean().default(false),
});
export type KeyValue = z.infer<typeof KeyValue>;

/** Headers or query parameters of a request (at most KEY_VALUES_MAX). */
export const KeyValues = z.array(KeyValue).max(KEY_VALUES_MAX);

/** Environment variable as sent in a request. */
export const EnvironmentVariable = z.object({
  key: z.string().min(1),
  value: z.string(),
  locked: z.boolean().default(false),
  secret: z.boolean().default(false),
});
export type EnvironmentVariable = z.infer<typeof EnvironmentVariable>;

/** Environment variable as the service returns it: secret values come back as `null`. */
export const EnvironmentVariableResponse = EnvironmentVariable.extend({ value: z.string().nullable() });
export type EnvironmentVariableResponse = z.infer<typeof EnvironmentVariableResponse>;

/** At most 50 environment variables. */
export const EnvironmentVariables = z.array(EnvironmentVariable).max(ENVIRONMENT_VARIABLES_MAX).nullable();

export const Assertion = z.object({
  source: AssertionSource,
  comparison: AssertionComparison,
  property: z.string().default(''),
  target: z.string().default(''),
  regex: z.string().nullable().default(null),
});
export type Assertion = z.infer<typeof Assertion>;

export const Assertions = z.array(Assertion).max(ASSERTIONS_MAX);

export const BasicAuth = z.object({ username: z.string(), password: z.string() });
export type BasicAuth = z.infer<typeof BasicAuth>;

/** What the service returns for `basicAuth` when none was sent. */
export const EMPTY_BASIC_AUTH: BasicAuth = { username: '', password: '' };

export const Dependency = z.object({ path: z.string(), content: z.string() });
export type Dependency = z.infer<typeof Dependency>;

export const Dependencies = z.array(Dependency).max(DEPENDENCIES_MAX);

export const AlertChannelSubscription = z.object({
  alertChannelId: z.number().int(),
  activated: z.boolean().default(true),
});
export type AlertChannelSubscription = z.infer<typeof AlertChannelSubscription>;

export const AlertChannelSubscriptions = z.array(AlertChannelSubscription).max(ALERT_CHANNEL_SUBSCRIPTIONS_MAX);

/**
 * `tags`, `privateLocations` and `alertChannelSubscriptions` as a response holds them: unbounded.
 * The limits are what this service accepts; a client must still read what another service returns,
 * and a check created with `autoAssignAlerts` is subscribed to every channel of its account.
 */
export const RESPONSE_ARRAYS = {
  tags: z.array(z.string()),
  privateLocations: z.array(z.string()).nullable(),
  alertChannelSubscriptions: z.array(AlertChannelSubscription),
};
/** The defaults a create fills in for them, for responses parsed like a create's output. */
export const RESPONSE_ARRAY_DEFAULTS = { tags: [] as string[], privateLocations: [] as string[], alertChannelSubscriptions: [] as AlertChannelSubscription[] };

/**
 * Alert settings. Every part has a default so that parsing `{}` yields the fully populated object
 * the service returns ("alertSettings comes back fully populated").
 */
export const AlertSettings = z.object({
  escalationType: EscalationType.default('RUN_BASED'),
  runBasedEscalation: z
    .object({ failedRunThreshold: z.literal(FAILED_RUN_THRESHOLDS).default(1) })
    .default({ failedRunThreshold: 1 }),
  timeBasedEscalation: z
    .object({ minutesFailingThreshold: z.literal(MINUTES_FAILING_THRESHOLDS).default(5) })
    .default({ minutesFailingThreshold: 5 }),
  reminders: z
    .object({
      amount: z.literal(REMINDER_AMOUNTS).default(0),
      interval: z.literal(REMINDER_INTERVALS).default(5),
    })
    .default({ amount: 0, interval: 5 }),
  parallelRunFailureThreshold: z
    .object({
      enabled: z.boolean().default(false),
      percentage: z.literal(PARALLEL_RUN_FAILURE_PERCENTAGES).default(10),
    })
    .default({ enabled: false, percentage: 10 }),
});
export type AlertSettings = z.infer<typeof AlertSettings>;

/** The alert settings a resource gets when none are sent. */
export const DEFAULT_ALERT_SETTINGS: AlertSettings = AlertSettings.parse({});

/**
 * `onlyOn` is a list, but the real service (Joi `single()`) also takes one bare value, as Checkly's
 * constructs send it: `onlyOn: 'NETWORK_ERROR'`.
 */
const RetryOnlyOnList = z.preprocess(
  (value) => (typeof value === 'string' ? [value] : value),
  z.array(RetryOnlyOn).max(RETRY_ONLY_ON.length),
);

const retryStrategyCommonFields = {
  baseBackoffSeconds: z.number().int().min(0).default(60),
  sameRegion: z.boolean().default(true),
  onlyOn: RetryOnlyOnList.default([]),
};

const MultiRetryStrategy = z.object({
  type: z.enum(['FIXED', 'LINEAR', 'EXPONENTIAL'] satisfies Array<(typeof RETRY_STRATEGY_TYPES)[number]>),
  ...retryStrategyCommonFields,
  maxRetries: z.number().int().min(1).max(10).default(2),
  maxDurationSeconds: z.number().int().min(0).max(600).default(600),
});

/** The real service refuses a count or a time limit on `SINGLE_RETRY` ("Not supported for SINGLE_RETRY"). */
const SINGLE_RETRY_UNSUPPORTED = { maxRetries: z.never().optional(), maxDurationSeconds: z.never().optional() };

/**
 * How failed runs are retried. `SINGLE_RETRY` retries once after `baseBackoffSeconds` and takes
 * neither `maxRetries` nor `maxDurationSeconds`; `null` (where allowed) means no retries.
 */
export const RetryStrategy = z.discriminatedUnion('type', [
  MultiRetryStrategy,
  z.object({ type: z.literal('SINGLE_RETRY'), ...retryStrategyCommonFields, ...SINGLE_RETRY_UNSUPPORTED }),
]);
export type RetryStrategy = z.infer<typeof RetryStrategy>;

/** `RetryStrategy` where the real document closes it (`additionalProperties: false`, the DNS create). */
export const ClosedRetryStrategy = z.discriminatedUnion('type', [
  MultiRetryStrategy.strict(),
  z.object({ type: z.literal('SINGLE_RETRY'), ...retryStrategyCommonFields, ...SINGLE_RETRY_UNSUPPORTED }).strict(),
]);

/**
 * A retry strategy as a response holds it: the same, except that a `SINGLE_RETRY` stored before
 * the service refused `maxRetries`/`maxDurationSeconds` on it still reads (they are dropped).
 */
export const RetryStrategyResponse = z.discriminatedUnion('type', [
  MultiRetryStrategy,
  z.object({ type: z.literal('SINGLE_RETRY'), ...retryStrategyCommonFields }),
]);

/**
 * A check group's retry strategy: a strategy, `FALLBACK` (each check keeps its own), or `null`
 * (no retries for any check of the group), as the real service's v2 group calls take it.
 */
export const GroupRetryStrategy = z.union([z.literal(FALLBACK_RETRY_STRATEGY), RetryStrategy]).nullable();
export type GroupRetryStrategy = z.infer<typeof GroupRetryStrategy>;
export const GroupRetryStrategyResponse = z.union([z.literal(FALLBACK_RETRY_STRATEGY), RetryStrategyResponse]).nullable();

export const TriggerIncident = z.object({
  serviceId: z.string().min(1),
  severity: IncidentSeverity,
  name: z.string().min(1),
  description: z.string().default(''),
  notifySubscribers: z.boolean().default(false),
});
export type TriggerIncident = z.infer<typeof TriggerIncident>;
/** `TriggerIncident` where the real document closes it (the DNS create). */
export const ClosedTriggerIncident = TriggerIncident.strict();

/** The `request` of an API check. */
export const ApiCheckRequest = z.object({
  method: HttpMethod.default('GET'),
  url: z.string().min(1).max(2048),
  followRedirects: z.boolean().default(true),
  skipSSL: z.boolean().default(false),
  ipFamily: IpFamily.default('IPv4'),
  body: z.string().default(''),
  bodyType: BodyType.default('NONE'),
  headers: KeyValues.default([]),
  queryParameters: KeyValues.default([]),
  assertions: Assertions.default([]),
  basicAuth: BasicAuth.default(() => ({ ...EMPTY_BASIC_AUTH })),
});
export type ApiCheckRequest = z.infer<typeof ApiCheckRequest>;

/** `apiCheckDefaults` of a check group: what its API checks inherit. */
export const ApiCheckDefaults = z.object({
  url: z.string().default(''),
  headers: z.array(z.object({ key: z.string(), value: z.string() })).max(KEY_VALUES_MAX).default([]),
  queryParameters: z.array(z.object({ key: z.string(), value: z.string() })).max(KEY_VALUES_MAX).default([]),
  assertions: Assertions.default([]),
  basicAuth: BasicAuth.default(() => ({ ...EMPTY_BASIC_AUTH })),
});
export type ApiCheckDefaults = z.infer<typeof ApiCheckDefaults>;

/** `heartbeat` of a heartbeat check (generic create); shape from the real service. */
export const HeartbeatConfig = z.object({
  period: z.number().int().min(1),
  periodUnit: HeartbeatTimeUnit,
  grace: z.number().int().min(0),
  graceUnit: HeartbeatTimeUnit,
  pingToken: z.string().nullable().optional(),
});
export type HeartbeatConfig = z.infer<typeof HeartbeatConfig>;

/** `alertChannels` summary in check responses (response only). */
export const AlertChannelsSummary = z.object({
  email: z.array(z.object({ address: z.string() })),
  webhook: z.array(
    z.object({
      url: z.string(),
      name: z.string(),
      method: z.string(),
      headers: z.array(KeyValue),
      queryParameters: z.array(KeyValue),
    }),
  ),
  slack: z.array(z.object({ url: z.string() })),
  sms: z.array(z.object({ number: z.string(), name: z.string() })),
});
export type AlertChannelsSummary = z.infer<typeof AlertChannelsSummary>;
