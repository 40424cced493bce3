/**
 * Heartbeat monitors: `POST /v1/checks/heartbeat`, `PUT /v1/checks/heartbeat/{id}` and the check as
 * the service returns it. Shapes as the real service's OpenAPI document
 * (`ChecksV1HeartbeatCheckCreate`, `ChecksV1HeartbeatRequest`, `ChecksV1Heartbeat`); the same
 * create / update / response pattern as `checks.ts`.
 *
 * A heartbeat runs nothing: the monitored job calls its ping URL, and the service fails the check
 * when no ping arrives within `period` + `grace`. The `pingToken` of that URL is the service's to
 * assign, so the request shapes leave it out (a sent one is stripped like any unknown key) and only
 * the response carries it: a plan compares what the code says, never the service's secret-ish token.
 */
import { z } from 'zod';
import { allOptional, whenFieldsValid, withDefaults } from './helpers.js';
import { checkResponseFields, commonCheckDefaults, commonCheckFields, refineFrequencyOffset } from './checks.js';
import { HeartbeatTimeUnit, MultiStepFrequency, type HeartbeatTimeUnit as TimeUnit } from './values.js';

/** Milliseconds in one of each heartbeat time unit (a day is 24 hours, as Checkly's construct counts). */
export const HEARTBEAT_UNIT_MS: Readonly<Record<TimeUnit, number>> = {
  seconds: 1000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
};

/** `period` × `periodUnit` (or `grace` × `graceUnit`) in milliseconds. */
export function heartbeatDurationMs(value: number, unit: TimeUnit): number {
  return value * HEARTBEAT_UNIT_MS[unit];
}

/** Checkly's `HeartbeatMonitor` limits: a period of 30 seconds to 365 days, a grace of at most 365 days. */
export const HEARTBEAT_PERIOD_MIN_MS = 30 * HEARTBEAT_UNIT_MS.seconds;
export const HEARTBEAT_PERIOD_MAX_MS = 365 * HEARTBEAT_UNIT_MS.days;
export const HEARTBEAT_GRACE_MAX_MS = 365 * HEARTBEAT_UNIT_MS.days;

const heartbeatFields = {
  /** Time expected between two pings, in `periodUnit`s. */
  period: z.number().int().min(1),
  periodUnit: HeartbeatTimeUnit,
  /** Time added to the period before a missing ping fails the check, in `graceUnit`s. */
  grace: z.number().int().min(0),
  graceUnit: HeartbeatTimeUnit,
};

/** The period and grace limits, which involve a value and its unit, so no single field can hold them. */
function refineHeartbeatLimits(value: { period: number; periodUnit: TimeUnit; grace: number; graceUnit: TimeUnit }, ctx: z.RefinementCtx): void {
  const period = heartbeatDurationMs(value.period, value.periodUnit);
  if (period < HEARTBEAT_PERIOD_MIN_MS || period > HEARTBEAT_PERIOD_MAX_MS) {
    ctx.addIssue({
      code: 'custom',
      path: ['period'],
      message: `"heartbeat.period" must be between 30 seconds and 365 days (got ${value.period} ${value.periodUnit})`,
      input: value.period,
    });
  }
  if (heartbeatDurationMs(value.grace, value.graceUnit) > HEARTBEAT_GRACE_MAX_MS) {
    ctx.addIssue({
      code: 'custom',
      path: ['grace'],
      message: `"heartbeat.grace" must be at most 365 days (got ${value.grace} ${value.graceUnit})`,
      input: value.grace,
    });
  }
}

/** `heartbeat` of a create or update: what the code decides. */
export const HeartbeatRequest = z.object(heartbeatFields).superRefine(refineHeartbeatLimits, whenFieldsValid('period', 'periodUnit', 'grace', 'graceUnit'));
export type HeartbeatRequest = z.infer<typeof HeartbeatRequest>;

/** `heartbeat` as the service returns it: plus the token of the check's ping URL (`/ping/{pingToken}`). */
export const HeartbeatResponse = z.object({
  ...heartbeatFields,
  pingToken: z.string().nullable().optional(),
  pingUrl: z.string().optional(),
});
export type HeartbeatResponse = z.infer<typeof HeartbeatResponse>;

const heartbeatCheckFields = {
  ...commonCheckFields,
  checkType: z.literal('HEARTBEAT').optional(),
  /**
   * Accepted because the real API does; a heartbeat is never scheduled, so it has no effect. Without
   * 0: a sub-minute frequency would demand a `frequencyOffset` that means nothing here.
   */
  frequency: MultiStepFrequency.optional(),
  heartbeat: HeartbeatRequest,
};

const heartbeatCheckCreateShape = withDefaults(heartbeatCheckFields, { ...commonCheckDefaults, checkType: 'HEARTBEAT' });

const OFFSET_FIELDS = whenFieldsValid('frequency', 'frequencyOffset', 'checkType');

/** Body of `POST /v1/checks/heartbeat`; required `name`, `heartbeat`. */
export const HeartbeatCheckCreate = z.object(heartbeatCheckCreateShape).superRefine(refineFrequencyOffset(() => 'OTHER'), OFFSET_FIELDS);
export type HeartbeatCheckCreate = z.infer<typeof HeartbeatCheckCreate>;
export type HeartbeatCheckCreateInput = z.input<typeof HeartbeatCheckCreate>;

/** Body of `PUT /v1/checks/heartbeat/{id}`: merge semantics, nothing defaulted (a sent `heartbeat` is whole). */
export const HeartbeatCheckUpdate = z
  .object(allOptional(heartbeatCheckFields))
  .superRefine(refineFrequencyOffset(() => 'OTHER'), OFFSET_FIELDS);
export type HeartbeatCheckUpdate = z.infer<typeof HeartbeatCheckUpdate>;

/** A heartbeat monitor as the service returns it, with its `heartbeat.pingToken`. */
export const HeartbeatCheck = z.object({
  ...heartbeatCheckCreateShape,
  ...checkResponseFields,
  checkType: z.literal('HEARTBEAT'),
  frequencyOffset: z.number().int(),
  heartbeat: HeartbeatResponse,
});
export type HeartbeatCheck = z.infer<typeof HeartbeatCheck>;
