/**
 * The signed-in web dashboard of `vigil server`: server-rendered HTML pages over the same storage
 * ports the API reads, with a little script only where it earns its place (the charts).
 *
 *     GET  /                                   sign in (on a status page's custom domain: that page)
 *     POST /dashboard/sign-in, /dashboard/sign-out, GET|POST /dashboard/account     sign-in.ts
 *     GET  /dashboard/checks                   the checks list (checks-list.ts)
 *     GET  /dashboard/checks/{id}[...]         a check, its analytics, results and error groups (check-page.ts)
 *     GET  /dashboard/incidents[...]           incidents, with updates and resolving (incidents.ts)
 *     GET  /dashboard/maintenance-windows, alert-channels, status-pages     read-only lists (resources.ts)
 *     GET  /dashboard/assets/{file}            CSS, script, uPlot
 *
 * app.ts lets these paths through without an API key: the dashboard authenticates with its own
 * session cookie (web.ts, sessions.ts), and a request without one never reaches an account's data.
 */
import type { Hono } from 'hono';
import type { AccountRegistry } from '../accounts.js';
import { NotificationLog } from '../alerting/notifications.js';
import type { AppEnv } from '../http/types.js';
import { gzipText } from '../public-pages/compression.js';
import { findPage } from '../public-pages/page-data.js';
import type { Repositories } from '../repositories.js';
import { dashboardAsset, DASHBOARD_ASSET_PREFIX } from './assets.js';
import { registerCheckPage } from './check-page.js';
import { registerChecksList } from './checks-list.js';
import { registerIncidents } from './incidents.js';
import { messagePage } from './layout.js';
import { PageReads } from './page-reads.js';
import { registerResources } from './resources.js';
import { SessionStore } from './sessions.js';
import { registerSignIn } from './sign-in.js';
import type { RateLimitOptions } from '../http/rate-limit.js';
import { page, signedIn, viewerOf, type DashboardDeps } from './web.js';

const PREFIX = '/dashboard/';

/** Whether the auth middleware lets the request through for the dashboard to authenticate itself. */
export function isDashboardPath(method: string, path: string): boolean {
  if (path === '/') return method === 'GET' || method === 'HEAD';
  return path.startsWith(PREFIX) && (method === 'GET' || method === 'HEAD' || method === 'POST');
}

export interface DashboardOptions {
  /** What the service keeps, built once for the app (../repositories.ts). */
  readonly repositories: Repositories;
  readonly accounts: AccountRegistry;
  readonly publicUrl: () => string | undefined;
  /** Sign-in attempts per client address (default DEFAULT_SIGN_IN_LIMIT). */
  readonly signInLimit?: RateLimitOptions | undefined;
}

/** Registers the dashboard; call before the public pages' routes, so `/` on a custom domain falls through to them. */
export function registerDashboard(app: Hono<AppEnv>, options: DashboardOptions): void {
  const notificationLog = new NotificationLog(options.repositories.ports.outbox);
  const deps: DashboardDeps = {
    sessions: new SessionStore(),
    accounts: options.accounts,
    publicUrl: options.publicUrl,
    isStatusPageHost: async (c) => c.req.header('host') !== undefined && (await findPage(options.repositories.ports, { host: c.req.header('host') })) !== undefined,
  };
  const { ports } = options.repositories;
  const reads = new PageReads(ports.dashboardReads);
  // `/` too: the sign-in page, or on a custom domain the status page the handlers below pass it on to.
  const compression = gzipText();
  for (const path of ['/', `${PREFIX}*`]) app.use(path, compression);

  app.get(`${DASHBOARD_ASSET_PREFIX}:file`, (c) => {
    let asset;
    try {
      asset = dashboardAsset(c.req.param('file'));
    } catch {
      // uPlot's package is missing (a bundle shipped without it): the page keeps its tables, without charts.
      asset = undefined;
    }
    if (!asset) return page(c, messagePage('Not found', 'There is no such file.'), 404);
    return c.body(asset.body, 200, { 'content-type': asset.type, 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' });
  });
  registerSignIn(app, deps, options.signInLimit);
  registerChecksList(app, { ...deps, reads, ports });
  registerCheckPage(app, { ...deps, notificationLog, reads, ports });
  registerIncidents(app, { ...deps, reads, ports });
  registerResources(app, { ...deps, ports });

  // Anything else under /dashboard/ is a page that does not exist, said in HTML rather than the API's JSON.
  app.all(`${PREFIX}*`, (c) => {
    const who = signedIn(c, deps);
    if (who instanceof Response) return who;
    return page(c, messagePage('Page not found', 'There is no such page in the dashboard.', viewerOf(deps, who.session)), 404);
  });
}
