/** Maintenance windows. */
import { z } from 'zod';
import { RESPONSE_ARRAYS, Tags } from './embedded.js';
import { DateString, allOptional, whenFieldsValid, withDefaults } from './helpers.js';
import { MAINTENANCE_WINDOW_DESCRIPTION_MAX, MAINTENANCE_WINDOW_NAME_MAX, REPEAT_INTERVAL_MAX, REPEAT_INTERVAL_MIN } from './limits.js';
import { RepeatUnit } from './values.js';

/**
 * Why `zone` is not a named IANA time zone, or undefined when it is. Offsets (`+05:00`) are refused
 * as the real service refuses them: a fixed offset cannot follow daylight saving time, which is the
 * point of a zone for recurring windows.
 */
export function timeZoneProblem(zone: string): string | undefined {
  const named = /^[A-Za-z][A-Za-z0-9_+\-]*(?:\/[A-Za-z0-9_+\-]+)*$/.test(zone);
  if (named) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      return undefined;
    } catch {
      // falls through to the message
    }
  }
  return `must be a named IANA time zone such as "Europe/Amsterdam" or "UTC", got ${JSON.stringify(zone)}`;
}

const TimeZone = z.string().superRefine((zone, ctx) => {
  const problem = timeZoneProblem(zone);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, input: zone });
});

const maintenanceWindowFields = {
  name: z.string().min(1).max(MAINTENANCE_WINDOW_NAME_MAX),
  startsAt: DateString,
  endsAt: DateString,
  repeatUnit: RepeatUnit,
  /** Names of the checks and groups (their tags) the window applies to. */
  tags: Tags.optional(),
  repeatInterval: z.number().int().min(REPEAT_INTERVAL_MIN).max(REPEAT_INTERVAL_MAX).nullable().optional(),
  /** The last calendar date (in `timezone`) on which an occurrence may start. */
  repeatEndsAt: DateString.nullable().optional(),
  /** Named IANA zone the repetition follows (wall-clock time, daylight saving included); null is UTC. */
  timezone: TimeZone.nullable().optional(),
  /** The window's checks (its tags; every check of the account when it has none) do not run during it. */
  pauseAllChecks: z.boolean().optional(),
  /** No alert notifications for any check of the account during the window. */
  silenceAllAlerts: z.boolean().optional(),
  /** Checks with one of these tags have their alerts silenced during the window, besides the window's own tags. */
  silenceAlertsTags: z.array(z.string()).optional(),
  description: z.string().max(MAINTENANCE_WINDOW_DESCRIPTION_MAX).nullable().optional(),
};

/** The window must end after it starts; checked whenever both ends are present. */
function refineWindowOrder(value: { startsAt?: string | undefined; endsAt?: string | undefined }, ctx: z.RefinementCtx): void {
  if (value.startsAt === undefined || value.endsAt === undefined) return;
  if (Date.parse(value.endsAt) <= Date.parse(value.startsAt)) {
    ctx.addIssue({ code: 'custom', path: ['endsAt'], message: '"endsAt" must be after "startsAt"', input: value.endsAt });
  }
}

const maintenanceWindowCreateShape = withDefaults(maintenanceWindowFields, {
  tags: [] as string[],
  repeatInterval: null,
  repeatEndsAt: null,
  timezone: null,
  pauseAllChecks: false,
  silenceAllAlerts: false,
  silenceAlertsTags: [] as string[],
  description: null,
});

/** Body of `POST /v1/maintenance-windows`; required `name`, `startsAt`, `endsAt`, `repeatUnit`. */
export const MaintenanceWindowCreate = z.object(maintenanceWindowCreateShape).superRefine(refineWindowOrder, whenFieldsValid('startsAt', 'endsAt'));
export type MaintenanceWindowCreate = z.infer<typeof MaintenanceWindowCreate>;
export type MaintenanceWindowCreateInput = z.input<typeof MaintenanceWindowCreate>;

/** Body of `PUT /v1/maintenance-windows/{id}` (merge; the server re-checks the merged order). */
export const MaintenanceWindowUpdate = z.object(allOptional(maintenanceWindowFields)).superRefine(refineWindowOrder, whenFieldsValid('startsAt', 'endsAt'));
export type MaintenanceWindowUpdate = z.infer<typeof MaintenanceWindowUpdate>;

/** `"endsAt" must be after "startsAt"` or undefined; for the server's check of a merged record. */
export function maintenanceWindowOrderProblem(startsAt: string, endsAt: string): string | undefined {
  return Date.parse(endsAt) <= Date.parse(startsAt) ? '"endsAt" must be after "startsAt"' : undefined;
}

export const MaintenanceWindow = z.object({
  ...maintenanceWindowCreateShape,
  tags: RESPONSE_ARRAYS.tags.default(() => []),
  id: z.number().int(),
  created_at: z.string(),
  updated_at: z.string().nullable(),
});
export type MaintenanceWindow = z.infer<typeof MaintenanceWindow>;
