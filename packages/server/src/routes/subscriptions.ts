/**
 * `GET /v1/status-pages/{statusPageId}/subscriptions`: a status page's e-mail subscriptions, in order
 * of creation. Subscriptions come from `--seed` (the contract cannot create them) and from the
 * public page's form (public-pages/subscribe-routes.ts), on pages from `--seed` or
 * `/v1/status-pages`; another tenant's status page is 404.
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const { pages } = ctx.repositories.readSide;

  ctx.route(ENDPOINTS['subscriptions.list'], ({ account, params, query }) => {
    if (!pages.statusPage(account.id, params.statusPageId)) throw notFound('Status page', params.statusPageId);
    return pages.subscriptionsOf(account.id, params.statusPageId, { page: query.page, limit: query.limit });
  });
}
