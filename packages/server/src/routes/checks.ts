/**
 * Checks: create and update per type (one pair of routes per variant row), generic calls, list, get,
 * delete, each a unit of work over the storage ports (see the top of index.ts). A delete resolves the
 * check's open incident in its unit (alerting/incidents.ts).
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { resolveDeletedCheckIncident } from '../alerting/incidents.js';
import { CHECK_VARIANTS, type CheckVariant } from '../domain/check-variants.js';
import { AccountChannels, checkQuery, createCheck, deleteCheck, getCheck, presentCheck, presentCheckPage, updateCheck } from '../domain/checks.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const writes = (variant: CheckVariant, endpoints: { create: typeof ENDPOINTS['checks.create']; update: typeof ENDPOINTS['checks.update'] }) => {
    ctx.routeUnit(endpoints.create, async ({ tx, account, query, body }) => {
      const channels = new AccountChannels(tx, account.id);
      return presentCheck(channels, await createCheck(tx, account.id, { variant, body, autoAssignAlerts: query.autoAssignAlerts, channels }), ctx.publicUrl());
    });
    ctx.routeUnit(endpoints.update, async ({ tx, account, params, query, body }) => {
      const channels = new AccountChannels(tx, account.id);
      return presentCheck(channels, await updateCheck(tx, account.id, { id: params.id, variant, body, autoAssignAlerts: query.autoAssignAlerts, channels }), ctx.publicUrl());
    });
  };
  // The typed calls first: their static paths must win over `/v1/checks/{id}`.
  for (const variant of CHECK_VARIANTS) {
    writes(variant, { create: ENDPOINTS[variant.create] as unknown as typeof ENDPOINTS['checks.create'], update: ENDPOINTS[variant.update] as unknown as typeof ENDPOINTS['checks.update'] });
  }
  writes('generic', { create: ENDPOINTS['checks.create'], update: ENDPOINTS['checks.update'] });

  ctx.routeUnit(ENDPOINTS['checks.list'], ({ tx, account, query }) =>
    presentCheckPage(tx, account.id, { limit: query.limit, page: query.page, ...checkQuery(query) }, ctx.publicUrl()),
  );
  ctx.routeUnit(ENDPOINTS['checks.get'], async ({ tx, account, params }) =>
    presentCheck(new AccountChannels(tx, account.id), await getCheck(tx, account.id, params.id), ctx.publicUrl()),
  );
  ctx.routeUnit(ENDPOINTS['checks.delete'], async ({ tx, account, params }) => {
    const check = await deleteCheck(tx, account.id, params.id);
    // In the delete's unit: the check and its open incident go together, or neither does.
    await resolveDeletedCheckIncident(tx, account.id, check, Date.now());
  });
}
