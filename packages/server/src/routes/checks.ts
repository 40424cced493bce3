/** Checks: create (API, multi-step, generic), list, get, update (per variant) and delete. */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { checkFilters, createCheck, deleteCheck, getCheck, presentCheck, presentCheckPage, updateCheck } from '../domain/checks.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const { store } = ctx;

  ctx.route(ENDPOINTS['checks.createApi'], ({ account, query, body }) =>
    presentCheck(store, account.id, createCheck(store, account.id, { variant: 'api', body, autoAssignAlerts: query.autoAssignAlerts })),
  );
  ctx.route(ENDPOINTS['checks.createMultiStep'], ({ account, query, body }) =>
    presentCheck(store, account.id, createCheck(store, account.id, { variant: 'multistep', body, autoAssignAlerts: query.autoAssignAlerts })),
  );
  ctx.route(ENDPOINTS['checks.create'], ({ account, query, body }) =>
    presentCheck(store, account.id, createCheck(store, account.id, { variant: 'generic', body, autoAssignAlerts: query.autoAssignAlerts })),
  );

  ctx.route(ENDPOINTS['checks.list'], ({ account, query }) =>
    presentCheckPage(store, account.id, { limit: query.limit, page: query.page, filters: checkFilters(query) }),
  );
  ctx.route(ENDPOINTS['checks.get'], ({ account, params }) => presentCheck(store, account.id, getCheck(store, account.id, params.id)));

  ctx.route(ENDPOINTS['checks.updateApi'], ({ account, params, query, body }) =>
    presentCheck(store, account.id, updateCheck(store, account.id, { id: params.id, variant: 'api', body, autoAssignAlerts: query.autoAssignAlerts })),
  );
  ctx.route(ENDPOINTS['checks.updateMultiStep'], ({ account, params, query, body }) =>
    presentCheck(store, account.id, updateCheck(store, account.id, { id: params.id, variant: 'multistep', body, autoAssignAlerts: query.autoAssignAlerts })),
  );
  ctx.route(ENDPOINTS['checks.update'], ({ account, params, query, body }) =>
    presentCheck(store, account.id, updateCheck(store, account.id, { id: params.id, variant: 'generic', body, autoAssignAlerts: query.autoAssignAlerts })),
  );

  ctx.route(ENDPOINTS['checks.delete'], ({ account, params }) => deleteCheck(store, account.id, params.id));
}
