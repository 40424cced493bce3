/**
 * How a route module plugs in (read this before adding one)
 * ---------------------------------------------------------
 * A route module is `src/routes/<collection>.ts` exporting
 *
 *     export function register(app: Hono<AppEnv>, ctx: RouteContext): void
 *
 * and is listed once in `ROUTE_MODULES` below. Inside `register`, declare each endpoint with
 *
 *     ctx.route(ENDPOINTS['<endpoint id>'], ({ account, params, query, body, c }) => ...)
 *
 * which registers the method and path of that `ENDPOINTS` entry (@vigil/schema), validates params,
 * query and body with its schemas (400 + `validation.keys` on failure), and answers with the entry's
 * `status`. The handler returns the response body; for a `list: true` entry it returns
 * `{ items, total }` (`Page`) and the route sets the JSON array body, `content-range` and `link`
 * (it reads `limit`/`page` from the validated query). Status 204 sends no body. A handler may return
 * `new RawJson(text)` (`../domain/json-text.js`; or list items of it) to send JSON text it already has.
 *
 * Already done for every route before the handler runs: authentication (401), `x-service-account`
 * (403), rate limits (429), fault injection, the request log. `account.id` is the tenant: every read
 * and write MUST filter on it, and an id of another tenant is answered exactly like a missing id
 * (`throw notFound('Check', id)` → 404). Errors: domain rules throw `DomainError`
 * (`../domain/errors.js`: invalid → 400 naming the fields, not found → 404, conflict → 409); a
 * handler may throw `HttpError` or `badRequest`/`notFound`/`conflict` from `../http/errors.js` for
 * what only HTTP knows. Anything else becomes a 500.
 *
 * Write handlers (POST, PUT, PATCH, DELETE) come in two kinds:
 *
 * - `ctx.route`: MUST be synchronous. Each runs in its own savepoint of SQLite's group commit
 *   (`store.writeBatched`), so a throw undoes only its own writes, and the response is sent after the
 *   shared COMMIT. POSTs honour `Idempotency-Key` automatically (the stored response is written in
 *   the same savepoint). GET handlers may be async. A service on PostgreSQL has no such commit: a
 *   write registered this way refuses to start it, so new writes are `routeUnit`s.
 * - `ctx.routeUnit(ENDPOINTS[...], async ({ tx, account, params, query, body }) => ...)`: async over
 *   the storage ports (store/ports.ts). A write runs as one unit of work (`ports.transaction`): every
 *   call through `tx` is one transaction, a throw rolls all of it back, and the response is sent once
 *   it committed; a POST's `Idempotency-Key` response is stored through `tx.idempotency` in that same
 *   unit (same replay, 409 and 422 rules). Write only through `tx` and await only its methods: a
 *   synchronous collection or a port outside `tx` is not part of the unit (on SQLite, awaiting one
 *   waits for the unit to end, which never comes). A GET gets the replica's ports as `tx`. This is
 *   the kind that runs on PostgreSQL too; checks and check groups are written this way.
 *
 * Storage: no SQL here (layers.test.ts fails on it): what a route reads or writes goes through the
 * storage ports (`ctx.repositories.ports`, or the unit's `tx`), whose engines (store/sqlite/,
 * store/postgres/) hold every statement; a new table is a step appended to each engine's migrations.
 * The `--seed` file is loaded by createApp (readside/seed.ts), not by a route module.
 */
import type { Hono } from 'hono';
import type { AccountRegistry } from '../accounts.js';
import type { AgentHub } from '../agents/hub.js';
import type { PrivateLocationKeys } from '../agents/private-keys.js';
import { registerRoute, registerUnitRoute, type EndpointSpec, type RouteHandler, type UnitRouteHandler } from '../http/route.js';
import type { AppEnv } from '../http/types.js';
import type { Store } from '../store/index.js';
import type { Repositories } from '../repositories.js';
import * as alertChannels from './alert-channels.js';
import * as checkGroups from './check-groups.js';
import * as checks from './checks.js';
import * as dashboards from './dashboards.js';
import * as maintenanceWindows from './maintenance-windows.js';
import * as privateLocations from './private-locations.js';
import * as openapi from './openapi.js';
import * as services from './status-page-services.js';
// Read side (check results, analytics, error groups, heartbeats, incidents, subscriptions, accounts, triggers).
import * as health from './health.js';
import * as accountsRoutes from './accounts.js';
import * as analytics from './analytics.js';
import * as checkResults from './check-results.js';
import * as checkStatuses from './check-statuses.js';
import * as alertNotifications from './alert-notifications.js';
import * as errorGroups from './error-groups.js';
import * as heartbeats from './heartbeats.js';
import * as pings from './pings.js';
import * as incidents from './incidents.js';
import * as subscriptions from './subscriptions.js';
import * as statusPages from './status-pages.js';
import * as triggers from './triggers.js';
import * as clientReads from './client-reads.js';
import * as state from './state.js';
import * as publicPages from '../public-pages/routes.js';
import type { SubscriptionMailOptions } from '../public-pages/subscription-store.js';

export interface RouteContext {
  /** What the service keeps, built once for the app (../repositories.ts). */
  readonly repositories: Repositories;
  readonly accounts: AccountRegistry;
  /**
   * The URL this service is reached at (`--public-url`, else the one it listens on), for URLs the
   * responses carry (a heartbeat's `pingUrl`); undefined for an app served without a socket.
   */
  publicUrl(): string | undefined;
  /** Present when the service sends e-mail to status-page subscribers: the public pages then offer the subscription form. */
  readonly subscriptionMail?: SubscriptionMailOptions | undefined;
  /** Runner agents: their hub (who is connected; ending a revoked key's polls) and private locations' keys. */
  readonly agents: { readonly hub: AgentHub; readonly privateKeys: PrivateLocationKeys };
  /** Registers one endpoint of the contract; see the comment at the top of this file. */
  route<E extends EndpointSpec>(endpoint: E, handler: RouteHandler<E>): void;
  /** Registers one endpoint whose async handler works over the storage ports `tx`, a write as one unit of work. */
  routeUnit<E extends EndpointSpec>(endpoint: E, handler: UnitRouteHandler<E>): void;
}

export interface RouteModule {
  register(app: Hono<AppEnv>, ctx: RouteContext): void;
}

/** Every route module, in registration order (static paths are matched before parameters anyway). */
export const ROUTE_MODULES: readonly RouteModule[] = [
  health, openapi, alertChannels, checkGroups, checks, maintenanceWindows, privateLocations, services, dashboards,
  checkResults, checkStatuses, alertNotifications, heartbeats, pings, analytics, errorGroups, incidents, subscriptions, statusPages, accountsRoutes, triggers, clientReads, state, publicPages,
];

export function buildRouteContext(options: {
  app: Hono<AppEnv>;
  repositories: Repositories;
  /** SQLite's store, for `route`'s synchronous writes; undefined on PostgreSQL. */
  store: Store | undefined;
  accounts: AccountRegistry;
  checkResponses: boolean;
  publicUrl?: () => string | undefined;
  subscriptionMail?: SubscriptionMailOptions | undefined;
  agents: { hub: AgentHub; privateKeys: PrivateLocationKeys };
}): RouteContext {
  const { app, repositories, store } = options;
  const idempotencyInFlight = new Set<string>();
  const routeOptions = { app, store, ports: repositories.ports, idempotencyInFlight, checkResponses: options.checkResponses };
  return {
    repositories,
    accounts: options.accounts,
    publicUrl: options.publicUrl ?? (() => undefined),
    subscriptionMail: options.subscriptionMail,
    agents: options.agents,
    route: (endpoint, handler) => registerRoute(routeOptions, endpoint, handler),
    routeUnit: (endpoint, handler) => registerUnitRoute(routeOptions, endpoint, handler),
  };
}
