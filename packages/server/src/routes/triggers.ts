/**
 * The deprecated `GET /v1/triggers/check-groups/{groupId}`: the group's trigger, made on first read
 * and stable afterwards (readside/pages-store.ts explains why). Another tenant's group is 404.
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const { pages } = ctx.repositories.readSide;

  ctx.route(ENDPOINTS['triggers.getCheckGroup'], ({ account, params }) => {
    if (!ctx.store.checkGroups.get(account.id, params.groupId)) throw notFound('Check group', params.groupId);
    return pages.triggerOf(account.id, params.groupId, new Date());
  });
}
