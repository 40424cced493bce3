/**
 * Check groups: `POST /v2/check-groups`, `PUT /v2/check-groups/{id}`,
 * and the v1 read/delete calls. Same Create/Update/response pattern as checks.ts.
 */
import { z } from 'zod';
import {
  AlertChannelSubscription,
  AlertChannelSubscriptions,
  AlertSettings,
  ApiCheckDefaults,
  DEFAULT_ALERT_SETTINGS,
  EnvironmentVariableResponse,
  EnvironmentVariables,
  GroupRetryStrategy,
  GroupRetryStrategyResponse,
  Locations,
  PrivateLocations,
  RESPONSE_ARRAYS,
  RESPONSE_ARRAY_DEFAULTS,
  Tags,
  type EnvironmentVariable,
} from './embedded.js';
import { allOptional, withDefaults } from './helpers.js';
import { CONCURRENCY_DEFAULT, CONCURRENCY_MIN } from './limits.js';
import { FALLBACK_RETRY_STRATEGY, Location, RuntimeId } from './values.js';

const checkGroupFields = {
  name: z.string().min(1),
  activated: z.boolean().optional(),
  muted: z.boolean().optional(),
  tags: Tags.optional(),
  locations: Locations.optional(),
  concurrency: z.number().int().min(CONCURRENCY_MIN).optional(),
  apiCheckDefaults: ApiCheckDefaults.optional(),
  browserCheckDefaults: z.string().optional(),
  runtimeId: RuntimeId.nullable().optional(),
  environmentVariables: EnvironmentVariables.optional(),
  alertChannelSubscriptions: AlertChannelSubscriptions.optional(),
  setupSnippetId: z.number().int().nullable().optional(),
  tearDownSnippetId: z.number().int().nullable().optional(),
  localSetupScript: z.string().nullable().optional(),
  localTearDownScript: z.string().nullable().optional(),
  privateLocations: PrivateLocations.nullable().optional(),
  runParallel: z.boolean().nullable().optional(),
  alertSettings: AlertSettings.optional(),
  retryStrategy: GroupRetryStrategy.optional(),
  useGlobalAlertSettings: z.boolean().nullable().optional(),
  /** Deprecated in favour of `retryStrategy`. */
  doubleCheck: z.boolean().optional(),
};

const checkGroupCreateShape = withDefaults(checkGroupFields, {
  activated: true,
  muted: false,
  tags: [] as string[],
  locations: [] as Location[],
  concurrency: CONCURRENCY_DEFAULT,
  apiCheckDefaults: ApiCheckDefaults.parse({}),
  environmentVariables: [] as EnvironmentVariable[],
  alertChannelSubscriptions: [] as AlertChannelSubscription[],
  privateLocations: [] as string[],
  // v2 groups: null lets each check keep its own scheduling (false would impose round-robin).
  runParallel: null,
  alertSettings: DEFAULT_ALERT_SETTINGS,
  retryStrategy: FALLBACK_RETRY_STRATEGY,
  // v2 groups: null lets each check keep its own alert settings (true would impose the account's).
  useGlobalAlertSettings: null,
  doubleCheck: false,
});

/** Body of `POST /v2/check-groups`; required `name`. */
export const CheckGroupCreate = z.object(checkGroupCreateShape);
export type CheckGroupCreate = z.infer<typeof CheckGroupCreate>;
export type CheckGroupCreateInput = z.input<typeof CheckGroupCreate>;

/**
 * Body of `PUT /v2/check-groups/{id}`. Merge semantics, nothing defaulted — except that the API
 * makes `name` required on this call, so it stays required here.
 */
export const CheckGroupUpdate = z.object({ ...allOptional(checkGroupFields), name: checkGroupFields.name });
export type CheckGroupUpdate = z.infer<typeof CheckGroupUpdate>;

/** A check group as the service returns it. */
export const CheckGroup = z.object({
  ...checkGroupCreateShape,
  ...withDefaults(RESPONSE_ARRAYS, RESPONSE_ARRAY_DEFAULTS),
  id: z.number().int(),
  retryStrategy: GroupRetryStrategyResponse.default(FALLBACK_RETRY_STRATEGY),
  environmentVariables: z.array(EnvironmentVariableResponse).nullable(),
  created_at: z.string(),
  updated_at: z.string().nullable(),
});
export type CheckGroup = z.infer<typeof CheckGroup>;
