/**
 * Error groups: listed per check, archived with PATCH (one unit of work). Groups are folded from
 * stored results when a run is recorded (the error-groups port); cleaning, hashing and archive rules
 * live in store/error-group-rules.ts.
 */
import { ENDPOINTS, type ErrorGroup } from '@vigil/schema';
import type { Hono } from 'hono';
import { getCheck } from '../domain/checks.js';
import { notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { ErrorGroupState } from '../store/error-group-rules.js';
import type { RouteContext } from './index.js';

/** The wire shape: bookkeeping fields (`archivedForever`, `archivedAt`) stay inside the server. */
export function present(group: ErrorGroupState): ErrorGroup {
  return {
    id: group.id,
    checkId: group.checkId,
    errorHash: group.errorHash,
    rawErrorMessage: group.rawErrorMessage,
    cleanedErrorMessage: group.cleanedErrorMessage,
    firstSeen: new Date(group.firstSeen).toISOString(),
    lastSeen: new Date(group.lastSeen).toISOString(),
    archivedUntilNextEvent: group.archivedUntilNextEvent,
  };
}

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  ctx.routeUnit(ENDPOINTS['errorGroups.listForCheck'], async ({ tx, account, params, query }) => {
    await getCheck(tx, account.id, params.checkId);
    const page = await tx.errorGroups.ofCheck(account.id, params.checkId, { page: query.page, limit: query.limit });
    return { items: page.items.map(present), total: page.total };
  });

  ctx.routeUnit(ENDPOINTS['errorGroups.patch'], async ({ tx, account, params, body }) => {
    const group = await tx.errorGroups.archive(account.id, params.id, body, Date.now());
    if (!group) throw notFound('Error group', params.id);
    return present(group);
  });
}
