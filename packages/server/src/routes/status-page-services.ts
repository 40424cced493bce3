/**
 * Status-page services: create, list, get, update, delete. A service's `checks` are the checks whose
 * `triggerIncident.serviceId` points at it; deleting a service those checks still use is refused
 * (409, naming them), the same rule as for groups, so no check is left pointing at nothing. So is
 * deleting a service a status page's card shows (the real document says nothing of either), naming
 * the pages, so no card is left showing nothing in its place.
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { mergeUpdate } from '../domain/documents.js';
import { badRequest, conflict, notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { StoredDoc } from '../store/index.js';
import { ServiceQueries } from '../store/sqlite/service-queries.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const { store } = ctx;
  const services = store.services;
  const queries = new ServiceQueries(store.db);
  const present = (accountId: string, doc: StoredDoc): StoredDoc => ({
    ...doc,
    accountId,
    checks: queries.checksOfService(accountId, String(doc.id)),
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
  // Oldest first, as every list; the cursor is the row's insertion sequence, so a service created or
  // deleted meanwhile never makes a later page skip or repeat one.
  ctx.route(ENDPOINTS['statusPageServices.list'], ({ account, query }) => {
    const after = query.nextId === undefined ? 0 : Number(Buffer.from(query.nextId, 'base64url').toString('utf8'));
    if (!Number.isSafeInteger(after) || (query.nextId !== undefined && after < 1)) {
      throw badRequest('"nextId" is not a cursor this service gave out; pass the nextId of the previous page', { source: 'query', keys: ['nextId'] });
    }
    const rows = queries.servicesAfter(account.id, after, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      length: page.length,
      entries: page.map((row) => present(account.id, JSON.parse(row.doc) as StoredDoc)),
      nextId: rows.length > query.limit && last ? Buffer.from(String(last.seq), 'utf8').toString('base64url') : null,
    };
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
    const users = queries.checksOfService(account.id, params.id);
    if (users.length > 0) {
      throw conflict(`Status-page service ${params.id} is still used by checks: ${users.map((check) => check.id).join(', ')}`);
    }
    const pages = ctx.repositories.readSide.pages.statusPagesShowing(account.id, params.id);
    if (pages.length > 0) {
      throw conflict(`Status-page service ${params.id} is still shown on status pages: ${pages.map((page) => `${JSON.stringify(page.name)} (${page.id})`).join(', ')}`);
    }
    services.remove(account.id, params.id);
  });
}
