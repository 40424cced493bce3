/**
 * Private locations: create, list, get, update (merge; the slug cannot change), delete. The slug is
 * unique per account, since checks name a private location by it (`privateLocations: ['dc-1']`).
 * The table is this module's own (step 26 of store/sqlite/migrations/).
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { mergeUpdate } from '../domain/documents.js';
import { conflict, notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import { Collection } from '../store/collection.js';
import type { StoredDoc } from '../store/index.js';
import type { RouteContext } from './index.js';

const TABLE = 'private_locations';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const { store } = ctx;
  const locations = new Collection<StoredDoc>(store.db, TABLE, 'uuid');
  const find = (accountId: string, id: string): StoredDoc => {
    const doc = locations.get(accountId, id);
    if (!doc) throw notFound('Private location', id);
    return doc;
  };

  ctx.route(ENDPOINTS['privateLocations.create'], ({ account, body }) => {
    if (locations.all(account.id).some((doc) => doc['slugName'] === body.slugName)) {
      throw conflict(`A private location with slugName "${body.slugName}" already exists`);
    }
    const now = new Date().toISOString();
    return locations.insert(account.id, (id) => ({ ...body, id, created_at: now, updated_at: null }));
  });
  ctx.route(ENDPOINTS['privateLocations.list'], ({ account, query }) => locations.page(account.id, { limit: query.limit, page: query.page }));
  ctx.route(ENDPOINTS['privateLocations.get'], ({ account, params }) => find(account.id, params.id));
  ctx.route(ENDPOINTS['privateLocations.update'], ({ account, params, body }) => {
    const merged = mergeUpdate(find(account.id, params.id), body);
    merged['updated_at'] = new Date().toISOString();
    locations.replace(account.id, merged);
    return merged;
  });
  ctx.route(ENDPOINTS['privateLocations.delete'], ({ account, params }) => {
    if (!locations.remove(account.id, params.id)) throw notFound('Private location', params.id);
  });
}
