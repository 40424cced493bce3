/**
 * Dashboards: create, list, get, update (merge), delete. The service stores a dashboard and serves
 * it through these calls only; it does not render dashboards as web pages. Each is a unit of work
 * over the dashboards port (store/dashboard-ports.ts).
 *
 * A dashboard has a numeric `id` (counted per account, like groups) and a `dashboardId`, the id its
 * paths take. `customUrl` (a subdomain) and `customDomain` (a host name) each name one dashboard
 * across the whole service, not per account, because the page is reached by that name alone: a
 * value any other dashboard holds, another tenant's included, is refused with 409. They are compared
 * without case, as DNS names are.
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { mergeUpdate } from '../domain/documents.js';
import { conflict, notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import { DASHBOARD_NAMES, dashboardNameKey, DashboardNameTaken, type DashboardDocument, type DashboardName } from '../store/dashboard-ports.js';
import { uuidV7 } from '../store/formats/uuid-v7.js';
import type { TransactionPorts } from '../store/ports.js';
import type { RouteContext } from './index.js';

/** Ids the port accepts; any other names no dashboard (the port would refuse it as a bug). */
const isStoredId = (id: string): boolean => id.length > 0 && id.length <= 255;

const takenMessage = (field: DashboardName, value: unknown) => `${field} ${JSON.stringify(value)} is already taken by another dashboard`;

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  /** The account's dashboard named `key`: its dashboardId, or its customUrl / customDomain when `type` says. */
  const find = async (tx: TransactionPorts, accountId: string, key: string, type?: DashboardName): Promise<DashboardDocument> => {
    const name = dashboardNameKey(key);
    const found =
      type === undefined ? (isStoredId(key) ? await tx.dashboards.get(accountId, key) : undefined)
      : name === null ? undefined
      : await tx.dashboards.named(accountId, type, name);
    if (!found) throw notFound('Dashboard', key);
    return found;
  };

  /** 409 when another dashboard of the service (`self` excepted) holds the doc's customUrl or customDomain. */
  const refuseTaken = async (tx: TransactionPorts, doc: Record<string, unknown>, self: string | undefined): Promise<void> => {
    for (const field of DASHBOARD_NAMES) {
      const key = dashboardNameKey(doc[field]);
      if (key === null) continue;
      const holder = await tx.dashboards.holder(field, key);
      if (holder !== undefined && holder !== self) throw conflict(takenMessage(field, doc[field]));
    }
  };

  /**
   * A name another replica's dashboard took after `refuseTaken` read it: the unique index refused the
   * write, and the answer is the one `refuseTaken` gives.
   */
  const takenRace = (doc: Record<string, unknown>) => (error: unknown) => {
    if (error instanceof DashboardNameTaken) throw conflict(takenMessage(error.field, doc[error.field]));
    throw error;
  };

  ctx.routeUnit(ENDPOINTS['dashboards.create'], async ({ tx, account, body }) => {
    await refuseTaken(tx, body, undefined);
    const now = new Date().toISOString();
    return tx.dashboards.insert(account.id, (id) => ({ ...body, id, dashboardId: uuidV7(), created_at: now })).catch(takenRace(body));
  });
  ctx.routeUnit(ENDPOINTS['dashboards.list'], async ({ tx, account, query }) => tx.dashboards.page(account.id, { limit: query.limit, page: query.page }));
  ctx.routeUnit(ENDPOINTS['dashboards.get'], async ({ tx, account, params, query }) => find(tx, account.id, params.dashboardId, query.type));
  ctx.routeUnit(ENDPOINTS['dashboards.update'], async ({ tx, account, params, body }) => {
    const stored = await find(tx, account.id, params.dashboardId);
    const merged = mergeUpdate(stored, body) as DashboardDocument;
    await refuseTaken(tx, merged, stored.dashboardId);
    await tx.dashboards.replace(account.id, merged).catch(takenRace(merged));
    return merged;
  });
  ctx.routeUnit(ENDPOINTS['dashboards.delete'], async ({ tx, account, params }) => {
    const stored = await find(tx, account.id, params.dashboardId);
    await tx.dashboards.remove(account.id, stored.dashboardId);
  });
}
