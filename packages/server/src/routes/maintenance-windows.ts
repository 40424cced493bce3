/** Maintenance windows: create, list, get, update (merge; the merged window must still end after it starts), delete. */
import { ENDPOINTS, maintenanceWindowOrderProblem } from '@vigil/schema';
import type { Hono } from 'hono';
import { mergeUpdate } from '../domain/documents.js';
import { badRequest, notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { StoredDoc } from '../store/index.js';
import type { RouteContext } from './index.js';

/**
 * The fields a window stored before the service knew them reads back with: their create defaults,
 * so a window reads the same whenever it was written.
 */
const READ_DEFAULTS = { timezone: null, pauseAllChecks: false, silenceAllAlerts: false, silenceAlertsTags: [], description: null };
const withReadDefaults = (doc: StoredDoc): StoredDoc => ({ ...READ_DEFAULTS, ...doc });

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const { store } = ctx;
  const windows = store.maintenanceWindows;
  const find = (accountId: string, id: number): StoredDoc => {
    const doc = windows.get(accountId, id);
    if (!doc) throw notFound('Maintenance window', id);
    return withReadDefaults(doc);
  };

  ctx.route(ENDPOINTS['maintenanceWindows.create'], ({ account, body }) => {
    const now = new Date().toISOString();
    return windows.insert(account.id, (id) => ({ ...body, id, created_at: now, updated_at: null }));
  });
  ctx.route(ENDPOINTS['maintenanceWindows.list'], ({ account, query }) => {
    const page = windows.page(account.id, { limit: query.limit, page: query.page });
    return { ...page, items: page.items.map(withReadDefaults) };
  });
  ctx.route(ENDPOINTS['maintenanceWindows.get'], ({ account, params }) => find(account.id, params.id));
  ctx.route(ENDPOINTS['maintenanceWindows.update'], ({ account, params, body }) => {
    const merged = mergeUpdate(find(account.id, params.id), body);
    const problem = maintenanceWindowOrderProblem(String(merged['startsAt']), String(merged['endsAt']));
    if (problem !== undefined) throw badRequest(problem, { source: 'payload', keys: ['endsAt'] });
    merged['updated_at'] = new Date().toISOString();
    windows.replace(account.id, merged);
    return merged;
  });
  ctx.route(ENDPOINTS['maintenanceWindows.delete'], ({ account, params }) => {
    if (!windows.remove(account.id, params.id)) throw notFound('Maintenance window', params.id);
  });
}
