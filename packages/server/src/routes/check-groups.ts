/**
 * Check groups: v2 create and update, v1 list, get and delete (409 while the group holds checks),
 * each a unit of work over the storage ports (see the top of index.ts).
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { createGroup, deleteGroup, getGroup, listGroups, presentGroup, updateGroup } from '../domain/check-groups.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  ctx.routeUnit(ENDPOINTS['checkGroups.create'], async ({ tx, account, query, body }) =>
    presentGroup(await createGroup(tx, account.id, { body, autoAssignAlerts: query.autoAssignAlerts })),
  );
  ctx.routeUnit(ENDPOINTS['checkGroups.update'], async ({ tx, account, params, query, body }) =>
    presentGroup(await updateGroup(tx, account.id, { id: params.id, body, autoAssignAlerts: query.autoAssignAlerts })),
  );
  ctx.routeUnit(ENDPOINTS['checkGroups.list'], ({ tx, account, query }) => listGroups(tx, account.id, { limit: query.limit, page: query.page }));
  ctx.routeUnit(ENDPOINTS['checkGroups.get'], async ({ tx, account, params }) => presentGroup(await getGroup(tx, account.id, params.id)));
  ctx.routeUnit(ENDPOINTS['checkGroups.delete'], ({ tx, account, params }) => deleteGroup(tx, account.id, params.id));
}
