/**
 * `GET /metrics`: the Prometheus text exposition of the service (metrics/index.ts).
 *
 * Who sees what: an account's API key sees that account's checks and incidents only (as every
 * other route, so a tenant learns nothing of another); the operator's metrics token (`vigil
 * server --metrics-token`) sees every configured account's, plus the scheduler, notifications,
 * HTTP and process metrics, which describe the whole service and so belong to no tenant.
 * The auth middleware in app.ts tells the two apart (`operator`).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { routePath } from 'hono/route';
import type { AccountRegistry } from '../accounts.js';
import type { AppEnv } from '../http/types.js';
import { expositionStream } from '../metrics/exposition.js';
import type { MetricsView, ServiceMetrics } from '../metrics/index.js';

export const METRICS_PATH = '/metrics';

/** Whether `token` is the metrics token; compares digests so the time taken says nothing of the token. */
export function isMetricsToken(token: string, metricsToken: string | undefined): boolean {
  if (metricsToken === undefined) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(token), digest(metricsToken));
}

/**
 * The route a request matched as registered (`/v1/checks/:id`), `unmatched` when none did: a label
 * value per route, never per URL, so neither ids nor unknown paths a client sends add series.
 */
export function routeTemplateOf(c: Context<AppEnv>): string {
  const path = routePath(c, -1);
  return path === '' || path.includes('*') ? 'unmatched' : path;
}

export function register(app: Hono<AppEnv>, metrics: ServiceMetrics, accounts: AccountRegistry): void {
  app.get(METRICS_PATH, async (c) => {
    const view: MetricsView = c.get('operator') === true
      ? { kind: 'operator', accountIds: accounts.all().map((account) => account.id) }
      : { kind: 'account', accountId: c.get('account').id };
    const { contentType, chunks } = await metrics.scrape(view);
    // Streamed, not joined: the pieces are kept between scrapes, and one body of tens of MiB
    // would be a copy made before the first byte leaves and collected after the last.
    return c.body(expositionStream(chunks), 200, { 'content-type': contentType, 'cache-control': 'no-store' });
  });
}
