/**
 * Private locations: create, list, get, update (merge; the slug cannot change), delete. The slug is
 * unique per account, since checks name a private location by it (`privateLocations: ['dc-1']`).
 * Each is a unit of work over the private-location port (store/agent-ports.ts).
 *
 * Each location has agent keys (`/v1/private-locations/{id}/keys`): made here, the key shown once;
 * revoked here, its agents refused from the revoke's commit on (agents/private-keys.ts, agents/hub.ts).
 * A location as returned lists its keys masked and its agents as the database knows them, whichever
 * replica they poll (`lastSeen`, `agentCount`, `minAgentVersion`, `runningAgents`, the real service's fields).
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Context, Hono } from 'hono';
import { createPrivateLocationKey, listPrivateLocationKeys } from '../agents/private-keys.js';
import { mergeUpdate } from '../domain/documents.js';
import { conflict, notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import { PrivateLocationSlugTaken, type PrivateLocationDocument } from '../store/agent-ports.js';
import { uuidV7 } from '../store/formats/uuid-v7.js';
import type { TransactionPorts } from '../store/ports.js';
import type { RouteContext } from './index.js';

/** Keys a request's unit revoked, told to the hub once the response (after the commit) is ready. */
const revokedBy = new WeakMap<Context<AppEnv>, string[]>();

export function register(app: Hono<AppEnv>, ctx: RouteContext): void {
  const { hub } = ctx.agents;
  // Around the routes below: their polls are ended only once the revoke committed, so an agent whose
  // poll ends looks its key up again and finds it gone, on any replica.
  app.use('/v1/private-locations/*', async (c, next) => {
    await next();
    const revoked = revokedBy.get(c);
    if (revoked && c.res.status < 300) for (const keyId of revoked) hub.revokeKey(keyId);
  });
  const find = async (tx: TransactionPorts, accountId: string, id: string): Promise<PrivateLocationDocument> => {
    const doc = storableId(id) ? await tx.privateLocations.get(accountId, id) : undefined;
    if (!doc) throw notFound('Private location', id);
    return doc;
  };
  const withAgents = async (tx: TransactionPorts, accountId: string, doc: PrivateLocationDocument) => {
    const id = String(doc['id']);
    const agents = await hub.agentsOfPrivateLocation(accountId, id);
    const live = agents.filter((agent) => agent.live);
    const versions = [...new Set(live.map((agent) => agent.agentVersion))].sort(compareVersions);
    return {
      ...doc,
      keys: await listPrivateLocationKeys(tx.privateLocations, accountId, id),
      lastSeen: agents.map((agent) => agent.lastSeenAt).sort().at(-1) ?? null,
      agentCount: live.length,
      minAgentVersion: versions[0] ?? null,
      runningAgents: versions.map((version) => {
        const ofVersion = live.filter((agent) => agent.agentVersion === version);
        return { version, isOutdated: false, count: ofVersion.length, agents: ofVersion.map((agent) => ({ id: agent.agentId, lastSeenAt: agent.lastSeenAt, runsInFlight: agent.runsInFlight })) };
      }),
    };
  };

  ctx.routeUnit(ENDPOINTS['privateLocations.create'], async ({ tx, account, body }) => {
    const location: PrivateLocationDocument = { ...body, id: uuidV7(), created_at: new Date().toISOString(), updated_at: null };
    try {
      await tx.privateLocations.insert(account.id, location);
    } catch (error) {
      if (error instanceof PrivateLocationSlugTaken) throw conflict(`A private location with slugName "${body.slugName}" already exists`);
      throw error;
    }
    return withAgents(tx, account.id, location);
  });
  ctx.routeUnit(ENDPOINTS['privateLocations.list'], async ({ tx, account, query }) => {
    const page = await tx.privateLocations.page(account.id, { limit: query.limit, page: query.page });
    const items = [];
    for (const doc of page.items) items.push(await withAgents(tx, account.id, doc));
    return { items, total: page.total };
  });
  ctx.routeUnit(ENDPOINTS['privateLocations.get'], async ({ tx, account, params }) => withAgents(tx, account.id, await find(tx, account.id, params.id)));
  ctx.routeUnit(ENDPOINTS['privateLocations.update'], async ({ tx, account, params, body }) => {
    const merged = mergeUpdate(await find(tx, account.id, params.id), body) as PrivateLocationDocument;
    merged['updated_at'] = new Date().toISOString();
    await tx.privateLocations.replace(account.id, merged);
    return withAgents(tx, account.id, merged);
  });
  ctx.routeUnit(ENDPOINTS['privateLocations.delete'], async ({ c, tx, account, params }) => {
    const keyIds = storableId(params.id) ? await tx.privateLocations.remove(account.id, params.id) : undefined;
    if (keyIds === undefined) throw notFound('Private location', params.id);
    revokedBy.set(c, keyIds);
  });

  ctx.routeUnit(ENDPOINTS['privateLocations.createKey'], async ({ tx, account, params }) =>
    createPrivateLocationKey(tx.privateLocations, account.id, String((await find(tx, account.id, params.id))['id'])),
  );
  ctx.routeUnit(ENDPOINTS['privateLocations.listKeys'], async ({ tx, account, params }) =>
    listPrivateLocationKeys(tx.privateLocations, account.id, String((await find(tx, account.id, params.id))['id'])),
  );
  ctx.routeUnit(ENDPOINTS['privateLocations.deleteKey'], async ({ c, tx, account, params }) => {
    const locationId = String((await find(tx, account.id, params.id))['id']);
    if (!storableId(params.keyId) || !(await tx.privateLocations.removeKey(account.id, locationId, params.keyId))) throw notFound('Private location key', params.keyId);
    revokedBy.set(c, [params.keyId]);
  });
}

/** Whether an id from a path could name a stored location or key at all (a longer one names none). */
function storableId(id: string): boolean {
  return id.length > 0 && id.length <= 255;
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
