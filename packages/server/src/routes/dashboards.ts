/**
 * Dashboards: create, list, get, update (merge), delete. The service stores a dashboard and serves
 * it through these calls only; it does not render dashboards as web pages.
 *
 * A dashboard has a numeric `id` (counted per account, like groups) and a `dashboardId`, the id its
 * paths take. `customUrl` (a subdomain) and `customDomain` (a host name) each name one dashboard
 * across the whole service, not per account, because the page is reached by that name alone: a
 * value any other dashboard holds, another tenant's included, is refused with 409. They are compared
 * without case, as DNS names are. The table is this module's own (step 24 of store/sqlite/migrations/).
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { mergeUpdate } from '../domain/documents.js';
import { conflict, notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import { uuidV7, type IndexedColumn } from '../store/sqlite/collection.js';
import { DASHBOARD_NAME_COLUMNS, DashboardTable, type DashboardNameField } from '../store/sqlite/dashboards.js';
import type { StoredDoc } from '../store/index.js';
import type { RouteContext } from './index.js';

type NameField = DashboardNameField;
const NAME_FIELDS = Object.keys(DASHBOARD_NAME_COLUMNS) as NameField[];

/** The value a name is compared by: lower case, and absent when empty. */
function nameKey(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value.toLowerCase() : null;
}

const COLUMNS: readonly IndexedColumn[] = [
  { column: 'dashboard_id', value: (doc) => String(doc['dashboardId']) },
  ...NAME_FIELDS.map((field): IndexedColumn => ({ column: DASHBOARD_NAME_COLUMNS[field], value: (doc) => nameKey(doc[field]) })),
];

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const { store } = ctx;
  const table = new DashboardTable(store.db, COLUMNS);
  const dashboards = table.collection;

  /** The account's dashboard named `key`: its dashboardId, or its customUrl / customDomain when `type` says. */
  const find = (accountId: string, key: string, type?: NameField): StoredDoc => {
    const text = type === undefined ? table.byDashboardId(accountId, key) : table.byName(accountId, type, nameKey(key));
    if (typeof text !== 'string') throw notFound('Dashboard', key);
    return JSON.parse(text) as StoredDoc;
  };

  /** 409 when another dashboard of the service (`self` excepted) holds the doc's customUrl or customDomain. */
  const refuseTaken = (doc: Record<string, unknown>, self: unknown): void => {
    for (const field of NAME_FIELDS) {
      const key = nameKey(doc[field]);
      if (key === null) continue;
      const holder = table.holderOf(field, key);
      if (holder !== undefined && holder !== self) throw conflict(`${field} ${JSON.stringify(doc[field])} is already taken by another dashboard`);
    }
  };

  ctx.route(ENDPOINTS['dashboards.create'], ({ account, body }) => {
    refuseTaken(body, undefined);
    const now = new Date().toISOString();
    return dashboards.insert(account.id, (id) => ({ ...body, id, dashboardId: uuidV7(), created_at: now }));
  });
  ctx.route(ENDPOINTS['dashboards.list'], ({ account, query }) => dashboards.page(account.id, { limit: query.limit, page: query.page }));
  ctx.route(ENDPOINTS['dashboards.get'], ({ account, params, query }) => find(account.id, params.dashboardId, query.type));
  ctx.route(ENDPOINTS['dashboards.update'], ({ account, params, body }) => {
    const stored = find(account.id, params.dashboardId);
    const merged = mergeUpdate(stored, body);
    refuseTaken(merged, stored['dashboardId']);
    dashboards.replace(account.id, merged);
    return merged;
  });
  ctx.route(ENDPOINTS['dashboards.delete'], ({ account, params }) => {
    dashboards.remove(account.id, find(account.id, params.dashboardId).id);
  });
}
