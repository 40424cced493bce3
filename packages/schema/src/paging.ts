/** Query and path parameters shared by many endpoints (list conventions). */
import { z } from 'zod';
import {
  HEARTBEAT_LIMIT_DEFAULT,
  HEARTBEAT_LIMIT_MAX,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  LIST_LIMIT_MIN,
  PAGE_DEFAULT,
  PAGE_MIN,
} from './limits.js';
import { queryBoolean, queryInt } from './helpers.js';

/** `limit` 1..100 (default 10) and `page` from 1 (default 1): every paged list. */
export const PageQuery = z.object({
  limit: queryInt().min(LIST_LIMIT_MIN).max(LIST_LIMIT_MAX).default(LIST_LIMIT_DEFAULT),
  page: queryInt().min(PAGE_MIN).default(PAGE_DEFAULT),
});
export type PageQuery = z.infer<typeof PageQuery>;

/** Heartbeat events allow at most 10 per page. */
export const HeartbeatPageQuery = z.object({
  limit: queryInt().min(LIST_LIMIT_MIN).max(HEARTBEAT_LIMIT_MAX).default(HEARTBEAT_LIMIT_DEFAULT),
  page: queryInt().min(PAGE_MIN).default(PAGE_DEFAULT),
});
export type HeartbeatPageQuery = z.infer<typeof HeartbeatPageQuery>;

/** `autoAssignAlerts` (default true) on check and group creates/updates. */
export const AutoAssignQuery = z.object({ autoAssignAlerts: queryBoolean().default(true) });
export type AutoAssignQuery = z.infer<typeof AutoAssignQuery>;

/** Path `{id}` of resources with string ids (checks, incidents, services, error groups). */
export const StringIdParams = z.object({ id: z.string().min(1) });
export type StringIdParams = z.infer<typeof StringIdParams>;

/** Path `{id}` of resources with numeric ids (groups, maintenance windows, alert channels). */
export const NumericIdParams = z.object({ id: queryInt().min(1) });
export type NumericIdParams = z.infer<typeof NumericIdParams>;

export const CheckIdParams = z.object({ checkId: z.string().min(1) });
export type CheckIdParams = z.infer<typeof CheckIdParams>;

export const GroupIdParams = z.object({ groupId: queryInt().min(1) });
export type GroupIdParams = z.infer<typeof GroupIdParams>;

export const IncidentIdParams = z.object({ incidentId: z.string().min(1) });
export type IncidentIdParams = z.infer<typeof IncidentIdParams>;

export const StatusPageIdParams = z.object({ statusPageId: z.string().min(1) });
export type StatusPageIdParams = z.infer<typeof StatusPageIdParams>;

export const AccountIdParams = z.object({ accountId: z.string().min(1) });
export type AccountIdParams = z.infer<typeof AccountIdParams>;
