/**
 * `GET /v1/status-pages/{statusPageId}/subscriptions`: a status page's e-mail subscriptions, in order
 * of creation. Subscriptions come from `--seed` (the contract cannot create them) and from the
 * public page's form (public-pages/subscribe-routes.ts), on pages from `--seed` or
 * `/v1/status-pages`; another tenant's status page is 404. A unit of work over the status-page port,
 * so the page and its subscriptions are read in one transaction whichever replica wrote them.
 */
import { ENDPOINTS, type Subscription } from '@vigil/schema';
import type { Hono } from 'hono';
import { getStatusPage } from '../domain/status-pages.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  ctx.routeUnit(ENDPOINTS['subscriptions.list'], async ({ tx, account, params, query }) => {
    await getStatusPage(tx, account.id, params.statusPageId);
    const { items, total } = await tx.statusPages.subscriptionPage(account.id, params.statusPageId, { page: query.page, limit: query.limit });
    return { items: items as Subscription[], total };
  });
}
