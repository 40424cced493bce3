/**
 * The public status pages' routes, served without an API key (app.ts lets `isPublicPagePath` through
 * before authentication):
 *
 *     GET /status-assets/{file}               CSS and the fallback favicon
 *     GET /status/{url}                       the page (HTML)
 *     GET /status/{url}/summary.json          Statuspage-shaped summary
 *     GET /status/{url}/feed.atom             incidents as Atom
 *     GET /status/{url}/badge/{serviceId}.svg one service's state
 *     GET /                                   the page whose customDomain is the request's Host
 *     POST /status/{url}/subscribe, GET|POST …/verify, …/unsubscribe   e-mail subscriptions (subscribe-routes.ts)
 *
 * A page that does not exist, or one asked for on another page's custom domain, is a 404: HTML for
 * `/status/{url}`, the API's JSON error for the rest (`/` on a host that is no page's domain is the
 * dashboard's, registered before these: dashboard/index.ts). These are not endpoints of the monitoring API, so
 * they are registered on the app directly rather than through `ctx.route` and the ENDPOINTS table.
 */
import type { Context, Hono } from 'hono';
import { HttpError } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from '../routes/index.js';
import { ASSET_PREFIX, ASSETS } from './assets.js';
import { acceptsGzip, gzipText } from './compression.js';
import { atomFeed, badgeSvg, summaryJson } from './feeds.js';
import { findPage, loadPageView, PAGE_VIEW, type FoundPage, type PageView, type PublicPageDeps, type ViewOptions } from './page-data.js';
import { RenderedPageCache } from './page-cache.js';
import { renderNotFound, renderPage } from './render-html.js';
import { subscribeForm } from './render-subscribe.js';
import { SubscriptionKey } from './subscription-store.js';
import { registerSubscriptions, SUBSCRIBE_POST_PATH } from './subscribe-routes.js';

/** Whether a request is for a public page, served without authentication: reads, and the subscription forms' POSTs. */
export function isPublicPagePath(method: string, path: string): boolean {
  if (method === 'POST') return SUBSCRIBE_POST_PATH.test(path);
  if (method !== 'GET' && method !== 'HEAD') return false;
  return path === '/' || path.startsWith('/status/') || path.startsWith(ASSET_PREFIX);
}

/** The feed reaches further back than the page's list of past incidents. */
const FEED_VIEW: Omit<ViewOptions, 'nowMs'> = { historyDays: 90, uptimeDays: 0, maintenanceAheadDays: 30 };
/** summary.json and badges need states, not bars. */
const STATE_VIEW: Omit<ViewOptions, 'nowMs'> = { ...PAGE_VIEW, uptimeDays: 0 };

const PAGE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  // States change with every run: a visitor reloading must see the current one.
  'cache-control': 'no-cache',
};

/** The page's policy: everything from this service; images also from the page's own logo and favicon hosts. */
function contentSecurityPolicy(view: PageView | undefined): string {
  const images = new Set(["'self'"]);
  for (const url of [view?.logo, view?.favicon]) if (url) images.add(url.origin);
  return `default-src 'self'; img-src ${[...images].join(' ')}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;
}

function notFoundError(what: string): HttpError {
  return new HttpError(404, `Status page ${what} not found`);
}

export function register(app: Hono<AppEnv>, ctx: RouteContext): void {
  const { ports } = ctx.repositories;
  const deps: PublicPageDeps = { ports };
  const origin = (c: Context<AppEnv>) => ctx.publicUrl() ?? new URL(c.req.url).origin;
  const find = (c: Context<AppEnv>, slug?: string): Promise<FoundPage | undefined> =>
    findPage(ports, { host: c.req.header('host'), ...(slug === undefined ? {} : { slug }) });
  const view = (found: FoundPage, options: Omit<ViewOptions, 'nowMs'>) => loadPageView(deps, found, { ...options, nowMs: Date.now() });

  const pageCache = new RenderedPageCache();
  /**
   * What a kept page is checked against: the database's status-page revision (pages and incidents)
   * and the documents' change feed position (services, maintenance windows, checks, groups), both
   * moved by a write of any replica. Two indexed reads, and neither grows with the page.
   */
  const written = async () => {
    const [pages, documents] = await Promise.all([ports.statusPages.revision(), ports.documents.latestPosition()]);
    return `${pages}:${documents}`;
  };
  const html = async (c: Context<AppEnv>, found: FoundPage | undefined) => {
    if (!found) return c.html(renderNotFound(), 404, { ...PAGE_HEADERS, 'content-security-policy': contentSecurityPolicy(undefined) });
    const key = `${found.accountId}\u0000${found.page.id}`;
    // Read before what the page shows is: a write after it renders the page again.
    const fingerprint = await written();
    let rendered = pageCache.kept(key, fingerprint);
    if (!rendered) {
      const shown = await view(found, PAGE_VIEW);
      const form = ctx.subscriptionMail && typeof found.page.url === 'string' ? subscribeForm(found.page.url) : '';
      rendered = pageCache.keep(key, fingerprint, { html: renderPage(shown, form), policy: contentSecurityPolicy(shown) });
    }
    const headers = { ...PAGE_HEADERS, 'content-security-policy': rendered.policy };
    const gzipped = acceptsGzip(c.req.header('accept-encoding')) ? RenderedPageCache.gzipped(rendered) : null;
    if (gzipped === null) return c.html(rendered.html, 200, headers);
    // Sent as the compression middleware would send it, gzipped once per rendering instead of per visitor.
    return c.body(gzipped, 200, { ...headers, 'content-type': 'text/html; charset=UTF-8', 'content-encoding': 'gzip', vary: 'accept-encoding' });
  };

  // Before the routes, so it wraps them (`/` on a custom domain is wrapped by the dashboard's).
  const compression = gzipText();
  for (const path of ['/status/*', `${ASSET_PREFIX}*`]) app.use(path, compression);

  const key = new SubscriptionKey(ports.subscribers);
  // Read as the service opens, so the first form or link does not wait for it (a failed read is read again then).
  void key.secret().catch(() => undefined);
  registerSubscriptions(app, {
    ports,
    key,
    publicUrl: ctx.publicUrl,
    mail: ctx.subscriptionMail,
    find: (c, slug) => find(c, slug),
    // A link's token is in the URL: kept out of caches and of the Referer of the link back to the page.
    html: (c, body, status) => c.html(body, status, { ...PAGE_HEADERS, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'content-security-policy': contentSecurityPolicy(undefined) }),
  });

  app.get(`${ASSET_PREFIX}:file`, (c) => {
    const asset = Object.hasOwn(ASSETS, c.req.param('file')) ? ASSETS[c.req.param('file')] : undefined;
    if (!asset) throw new HttpError(404, `Route GET ${c.req.path} not found`);
    return c.body(asset.body, 200, { 'content-type': asset.type, 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' });
  });

  // `/` is a page only on a page's custom domain; the dashboard answers it on any other host and
  // passes it on only for a custom domain, so the 404 below is for a page removed in between.
  app.get('/', async (c) => {
    const found = await find(c);
    if (!found) throw new HttpError(404, `Route ${c.req.method} ${c.req.path} not found`);
    return html(c, found);
  });
  app.get('/status/:slug', async (c) => html(c, await find(c, c.req.param('slug'))));

  app.get('/status/:slug/summary.json', async (c) => {
    const found = await find(c, c.req.param('slug'));
    if (!found) throw notFoundError(c.req.param('slug'));
    // Widgets on the owner's other sites read it from the browser.
    return c.json(summaryJson(await view(found, STATE_VIEW), origin(c)), 200, { ...PAGE_HEADERS, 'access-control-allow-origin': '*' });
  });

  app.get('/status/:slug/feed.atom', async (c) => {
    const found = await find(c, c.req.param('slug'));
    if (!found) throw notFoundError(c.req.param('slug'));
    return c.body(atomFeed(await view(found, FEED_VIEW), origin(c)), 200, { ...PAGE_HEADERS, 'content-type': 'application/atom+xml; charset=utf-8' });
  });

  app.get('/status/:slug/badge/:file', async (c) => {
    const found = await find(c, c.req.param('slug'));
    if (!found) throw notFoundError(c.req.param('slug'));
    const file = c.req.param('file');
    const service = file.endsWith('.svg') ? (await view(found, STATE_VIEW)).services.get(file.slice(0, -'.svg'.length)) : undefined;
    if (!service) throw new HttpError(404, `Service ${file.replace(/\.svg$/, '')} is not on status page ${c.req.param('slug')}`);
    return c.body(badgeSvg(service), 200, {
      ...PAGE_HEADERS,
      'content-type': 'image/svg+xml; charset=utf-8',
      'content-security-policy': "default-src 'none'",
      'access-control-allow-origin': '*',
    });
  });
}
