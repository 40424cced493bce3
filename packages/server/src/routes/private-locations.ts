/**
 * Private locations: create, list, get, update (merge; the slug cannot change), delete. The slug is
 * unique per account, since checks name a private location by it (`privateLocations: ['dc-1']`).
 * The table is this module's own (step 26 of store/sqlite/migrations/).
 *
 * Each location has agent keys (`/v1/private-locations/{id}/keys`): made here, the key shown once;
 * revoked here, its agents refused at once (agents/private-keys.ts, agents/hub.ts). A location as
 * returned lists its keys masked and its agents as this service process knows them (`lastSeen`,
 * `agentCount`, `minAgentVersion`, `runningAgents`, the real service's fields).
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
  const { hub, privateKeys } = ctx.agents;
  const locations = new Collection<StoredDoc>(store.db, TABLE, 'uuid');
  const find = (accountId: string, id: string): StoredDoc => {
    const doc = locations.get(accountId, id);
    if (!doc) throw notFound('Private location', id);
    return doc;
  };
  const withAgents = (accountId: string, doc: StoredDoc) => {
    const id = String(doc['id']);
    const agents = hub.agentsOfPrivateLocation(accountId, id);
    const live = agents.filter((agent) => agent.live);
    const versions = [...new Set(live.map((agent) => agent.agentVersion))].sort(compareVersions);
    return {
      ...doc,
      keys: privateKeys.list(accountId, id),
      lastSeen: agents.map((agent) => agent.lastSeenAt).sort().at(-1) ?? null,
      agentCount: live.length,
      minAgentVersion: versions[0] ?? null,
      runningAgents: versions.map((version) => {
        const ofVersion = live.filter((agent) => agent.agentVersion === version);
        return { version, isOutdated: false, count: ofVersion.length, agents: ofVersion.map((agent) => ({ id: agent.agentId, lastSeenAt: agent.lastSeenAt, runsInFlight: agent.runsInFlight })) };
      }),
    };
  };

  ctx.route(ENDPOINTS['privateLocations.create'], ({ account, body }) => {
    if (locations.all(account.id).some((doc) => doc['slugName'] === body.slugName)) {
      throw conflict(`A private location with slugName "${body.slugName}" already exists`);
    }
    const now = new Date().toISOString();
    return withAgents(account.id, locations.insert(account.id, (id) => ({ ...body, id, created_at: now, updated_at: null })));
  });
  ctx.route(ENDPOINTS['privateLocations.list'], ({ account, query }) => {
    const page = locations.page(account.id, { limit: query.limit, page: query.page });
    return { ...page, items: page.items.map((doc) => withAgents(account.id, doc)) };
  });
  ctx.route(ENDPOINTS['privateLocations.get'], ({ account, params }) => withAgents(account.id, find(account.id, params.id)));
  ctx.route(ENDPOINTS['privateLocations.update'], ({ account, params, body }) => {
    const merged = mergeUpdate(find(account.id, params.id), body);
    merged['updated_at'] = new Date().toISOString();
    locations.replace(account.id, merged);
    return withAgents(account.id, merged);
  });
  ctx.route(ENDPOINTS['privateLocations.delete'], ({ account, params }) => {
    if (!locations.remove(account.id, params.id)) throw notFound('Private location', params.id);
    for (const keyId of privateKeys.revokeAll(account.id, params.id)) hub.revokeKey(keyId);
  });

  ctx.route(ENDPOINTS['privateLocations.createKey'], ({ account, params }) => privateKeys.create(account.id, String(find(account.id, params.id)['id'])));
  ctx.route(ENDPOINTS['privateLocations.listKeys'], ({ account, params }) => privateKeys.list(account.id, String(find(account.id, params.id)['id'])));
  ctx.route(ENDPOINTS['privateLocations.deleteKey'], ({ account, params }) => {
    const locationId = String(find(account.id, params.id)['id']);
    if (!privateKeys.revoke(account.id, locationId, params.keyId)) throw notFound('Private location key', params.keyId);
    // Its agents' polls end now and answer 401: the key is gone from this write on (same connection).
    hub.revokeKey(params.keyId);
  });
}

/** Agent versions in release order (`0.10.0` after `0.9.0`), text after the numbers as a tie-break. */
function compareVersions(a: string, b: string): number {
  const parts = (version: string) => version.split(/[.+-]/).map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  const [left, right] = [parts(a), parts(b)];
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const [x, y] = [left[index], right[index]];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x).localeCompare(String(y));
  }
  return 0;
}
