/**
 * Maintenance windows: create, list, get, update (merge; the merged window must still end after it
 * starts), delete; each a unit of work over the storage ports (see the top of index.ts).
 */
import { ENDPOINTS, maintenanceWindowOrderProblem } from '@vigil/schema';
import type { Hono } from 'hono';
import { mergeUpdate } from '../domain/documents.js';
import { badRequest, notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { StoredDoc } from '../store/index.js';
import type { TransactionPorts } from '../store/ports.js';
import type { RouteContext } from './index.js';

/**
 * The fields a window stored before the service knew them reads back with: their create defaults,
 * so a window reads the same whenever it was written.
 */
const READ_DEFAULTS = { timezone: null, pauseAllChecks: false, silenceAllAlerts: false, silenceAlertsTags: [], description: null };
const withReadDefaults = (doc: StoredDoc): StoredDoc => ({ ...READ_DEFAULTS, ...doc });

/** Integer ids the ports accept; any other id names no window (the ports would refuse it as a bug). */
const isWindowNumber = (id: unknown): id is number => typeof id === 'number' && Number.isSafeInteger(id) && id >= 1;

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const find = async (tx: TransactionPorts, accountId: string, id: number): Promise<StoredDoc> => {
    const doc = isWindowNumber(id) ? await tx.documents.get('maintenance_windows', accountId, id) : undefined;
    if (!doc) throw notFound('Maintenance window', id);
    return withReadDefaults(doc as StoredDoc);
  };

  ctx.routeUnit(ENDPOINTS['maintenanceWindows.create'], async ({ tx, account, body }) => {
    const now = new Date().toISOString();
    return (await tx.documents.insert('maintenance_windows', account.id, (id) => ({ ...body, id, created_at: now, updated_at: null }))) as StoredDoc;
  });
  ctx.routeUnit(ENDPOINTS['maintenanceWindows.list'], async ({ tx, account, query }) => {
    const page = await tx.documents.page('maintenance_windows', account.id, { limit: query.limit, page: query.page });
    return { total: page.total, items: page.items.map((doc) => withReadDefaults(doc as StoredDoc)) };
  });
  ctx.routeUnit(ENDPOINTS['maintenanceWindows.get'], ({ tx, account, params }) => find(tx, account.id, params.id));
  ctx.routeUnit(ENDPOINTS['maintenanceWindows.update'], async ({ tx, account, params, body }) => {
    const merged = mergeUpdate(await find(tx, account.id, params.id), body);
    const problem = maintenanceWindowOrderProblem(String(merged['startsAt']), String(merged['endsAt']));
    if (problem !== undefined) throw badRequest(problem, { source: 'payload', keys: ['endsAt'] });
    merged['updated_at'] = new Date().toISOString();
    await tx.documents.replace('maintenance_windows', account.id, merged);
    return merged;
  });
  ctx.routeUnit(ENDPOINTS['maintenanceWindows.delete'], async ({ tx, account, params }) => {
    if (!isWindowNumber(params.id) || !(await tx.documents.remove('maintenance_windows', account.id, params.id))) throw notFound('Maintenance window', params.id);
  });
}
