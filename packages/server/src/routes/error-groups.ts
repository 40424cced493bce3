/**
 * Error groups: listed per check, archived with PATCH. Groups are folded from stored
 * results when they are recorded (readside/results-store.ts); cleaning, hashing and archive rules
 * live in readside/error-groups.ts.
 */
import { ENDPOINTS, type ErrorGroup } from '@vigil/schema';
import type { Hono } from 'hono';
import { notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { ErrorGroupState } from '../readside/error-groups.js';
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
  const { results } = ctx.repositories.readSide;

  ctx.route(ENDPOINTS['errorGroups.listForCheck'], ({ account, params, query }) => {
    if (!ctx.store.checks.get(account.id, params.checkId)) throw notFound('Check', params.checkId);
    const page = results.errorGroupsOf(account.id, params.checkId, { page: query.page, limit: query.limit });
    return { items: page.items.map(present), total: page.total };
  });

  ctx.route(ENDPOINTS['errorGroups.patch'], ({ account, params, body }) => {
    const group = results.patchErrorGroup(account.id, params.id, body, Date.now());
    if (!group) throw notFound('Error group', params.id);
    return present(group);
  });
}
