/** Check groups: v2 create and update, v1 list, get and delete (409 while the group holds checks). */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { createGroup, deleteGroup, getGroup, presentGroup, updateGroup } from '../domain/check-groups.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const { store } = ctx;

  ctx.route(ENDPOINTS['checkGroups.create'], ({ account, query, body }) =>
    presentGroup(createGroup(store, account.id, { body, autoAssignAlerts: query.autoAssignAlerts })),
  );
  ctx.route(ENDPOINTS['checkGroups.update'], ({ account, params, query, body }) =>
    presentGroup(updateGroup(store, account.id, { id: params.id, body, autoAssignAlerts: query.autoAssignAlerts })),
  );
  ctx.route(ENDPOINTS['checkGroups.list'], ({ account, query }) => {
    const page = store.checkGroups.page(account.id, { limit: query.limit, page: query.page });
    return { items: page.items.map(presentGroup), total: page.total };
  });
  ctx.route(ENDPOINTS['checkGroups.get'], ({ account, params }) => presentGroup(getGroup(store, account.id, params.id)));
  ctx.route(ENDPOINTS['checkGroups.delete'], ({ account, params }) => deleteGroup(store, account.id, params.id));
}
