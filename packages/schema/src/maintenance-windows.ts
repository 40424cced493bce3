/** Maintenance windows (spec §2.9, §4.6, DESIGN §3.2). */
import { z } from 'zod';
import { RESPONSE_ARRAYS, Tags } from './embedded.js';
import { DateString, allOptional, whenFieldsValid, withDefaults } from './helpers.js';
import { REPEAT_INTERVAL_MIN } from './limits.js';
import { RepeatUnit } from './values.js';

const maintenanceWindowFields = {
  name: z.string().min(1),
  startsAt: DateString,
  endsAt: DateString,
  repeatUnit: RepeatUnit,
  /** Names of the checks and groups (their tags) the window applies to. */
  tags: Tags.optional(),
  repeatInterval: z.number().int().min(REPEAT_INTERVAL_MIN).nullable().optional(),
  repeatEndsAt: DateString.nullable().optional(),
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
