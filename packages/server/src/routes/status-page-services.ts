/**
 * Status-page services: create, list, get, update, delete. A service's `checks` are the checks whose
 * `triggerIncident.serviceId` points at it; deleting a service those checks still use is refused
 * (409, naming them), the same rule as for groups, so no check is left pointing at nothing.
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { mergeUpdate } from '../domain/documents.js';
import { conflict, notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { StoredDoc } from '../store/index.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const { store } = ctx;
  const services = store.services;
  const usersOf = store.db.prepare(
    "SELECT id, json_extract(doc, '$.name') AS name FROM checks WHERE account_id = ? AND service_id = ? ORDER BY seq",
  );
  const present = (accountId: string, doc: StoredDoc): StoredDoc => ({
    ...doc,
    accountId,
    checks: usersOf.all(accountId, String(doc.id)) as Array<{ id: string; name: string }>,
  });
  const find = (accountId: string, id: string): StoredDoc => {
    const doc = services.get(accountId, id);
    if (!doc) throw notFound('Status-page service', id);
    return doc;
  };

  ctx.route(ENDPOINTS['statusPageServices.create'], ({ account, body }) => {
    const now = new Date().toISOString();
    return present(account.id, services.insert(account.id, (id) => ({ ...body, id, created_at: now, updated_at: null })));
  });
  ctx.route(ENDPOINTS['statusPageServices.list'], ({ account, query }) => {
    const page = services.page(account.id, { limit: query.limit, page: query.page });
    return { items: page.items.map((doc) => present(account.id, doc)), total: page.total };
  });
  ctx.route(ENDPOINTS['statusPageServices.get'], ({ account, params }) => present(account.id, find(account.id, params.id)));
  ctx.route(ENDPOINTS['statusPageServices.update'], ({ account, params, body }) => {
    const merged = mergeUpdate(find(account.id, params.id), body);
    merged['updated_at'] = new Date().toISOString();
    services.replace(account.id, merged);
    return present(account.id, merged);
  });
  ctx.route(ENDPOINTS['statusPageServices.delete'], ({ account, params }) => {
    find(account.id, params.id);
    const users = usersOf.all(account.id, params.id) as Array<{ id: string }>;
    if (users.length > 0) {
      throw conflict(`Status-page service ${params.id} is still used by checks: ${users.map((check) => check.id).join(', ')}`);
    }
    services.remove(account.id, params.id);
  });
}
