/** Checks: create and update per type (one pair of routes per variant row), generic calls, list, get, delete. */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { CHECK_VARIANTS, type CheckVariant } from '../domain/check-variants.js';
import { checkFilters, createCheck, deleteCheck, getCheck, presentCheck, presentCheckPage, updateCheck } from '../domain/checks.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const { store } = ctx;
  const writes = (variant: CheckVariant, endpoints: { create: typeof ENDPOINTS['checks.create']; update: typeof ENDPOINTS['checks.update'] }) => {
    ctx.route(endpoints.create, ({ account, query, body }) =>
      presentCheck(store, account.id, createCheck(store, account.id, { variant, body, autoAssignAlerts: query.autoAssignAlerts }), ctx.publicUrl()),
    );
    ctx.route(endpoints.update, ({ account, params, query, body }) =>
      presentCheck(store, account.id, updateCheck(store, account.id, { id: params.id, variant, body, autoAssignAlerts: query.autoAssignAlerts }), ctx.publicUrl()),
    );
  };
  // The typed calls first: their static paths must win over `/v1/checks/{id}`.
  for (const variant of CHECK_VARIANTS) {
    writes(variant, { create: ENDPOINTS[variant.create] as unknown as typeof ENDPOINTS['checks.create'], update: ENDPOINTS[variant.update] as unknown as typeof ENDPOINTS['checks.update'] });
  }
  writes('generic', { create: ENDPOINTS['checks.create'], update: ENDPOINTS['checks.update'] });

  ctx.route(ENDPOINTS['checks.list'], ({ account, query }) => {
    const status = query.status === undefined ? undefined : { accountId: account.id, state: query.status };
    return presentCheckPage(store, account.id, { limit: query.limit, page: query.page, filters: checkFilters(query, status) }, ctx.publicUrl());
  });
  ctx.route(ENDPOINTS['checks.get'], ({ account, params }) => presentCheck(store, account.id, getCheck(store, account.id, params.id), ctx.publicUrl()));
  ctx.route(ENDPOINTS['checks.delete'], ({ account, params }) => deleteCheck(store, ctx.repositories.deletedCheckIncidents, account.id, params.id));
}
