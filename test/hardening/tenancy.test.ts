/**
 * Tenant isolation matrix: two accounts, each with one resource of every kind (plus the read-side
 * seed). Every id-taking endpoint of ENDPOINTS is called by one tenant with the other tenant's ids,
 * with a valid body and query so nothing but the id can fail: always 404 with the error body. The
 * victim's complete data (every listing, every page, every detail read) is compared before and after.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINT_IDS, ENDPOINTS, ErrorBody, fillPath, type EndpointDef, type EndpointId } from '@vigil/schema';
import { TENANTS, createResources, integrityCheck, send, sendOk, startService, type Service } from './harness.js';
import { SAMPLE_BODIES, sampleQuery, validParams, type ResourceIds } from './samples.js';

type Tenant = (typeof TENANTS)[number];

let service: Service;
const idsOf = new Map<string, ResourceIds>();

/**
 * Integer ids are counted per account, so both tenants' first group would be group 1 and each could
 * read its own "1". The first tenant burns (creates and deletes) one id of each integer kind first:
 * its ids start at 2, the other's at 1, and neither has the other's number.
 */
async function burnFirstIntegerIds(tenant: Tenant): Promise<void> {
  for (const [create, remove] of [
    ['checkGroups.create', 'checkGroups.delete'],
    ['alertChannels.create', 'alertChannels.delete'],
    ['maintenanceWindows.create', 'maintenanceWindows.delete'],
  ] as const) {
    const created = await sendOk(service.server.url, tenant.apiKey, create, {}, SAMPLE_BODIES[create]);
    await sendOk(service.server.url, tenant.apiKey, remove, { id: created.id });
  }
}

beforeAll(async () => {
  service = await startService();
  await burnFirstIntegerIds(TENANTS[0]);
  for (const tenant of TENANTS) idsOf.set(tenant.accountId, await createResources(service.server.url, tenant));
});

afterAll(async () => {
  await service.server.close();
  await rm(service.dataDir, { recursive: true, force: true });
});

const ID_TAKING = ENDPOINT_IDS.filter((id) => ENDPOINTS[id].path.includes('{'));
const LISTS = ENDPOINT_IDS.filter((id) => !ENDPOINTS[id].path.includes('{') && ENDPOINTS[id].method === 'GET');

function queryString(query: Record<string, string>): string {
  const text = new URLSearchParams(query).toString();
  return text === '' ? '' : `?${text}`;
}

/** The seed fixture's absolute results sit in this hour; a fixed window keeps reads comparable over time. */
const T0 = Date.parse('2026-01-05T10:00:00.000Z') / 1000;
const FIXED_WINDOW = { from: String(T0), to: String(T0 + 3600) };

async function readAll(tenant: Tenant, id: EndpointId, params: Record<string, string | number>): Promise<unknown[]> {
  const endpoint = ENDPOINTS[id];
  const pages: unknown[] = [];
  for (let page = 1; page < 100; page += 1) {
    const window = id.startsWith('analytics.') || id === 'checkResults.list' ? FIXED_WINDOW : {};
    const query = { ...sampleQuery(id), ...window, ...('list' in endpoint && endpoint.list && id !== 'heartbeats.listEvents' ? { limit: '100', page: String(page) } : {}) };
    const reply = await send(service.server.url, 'GET', `${fillPath(endpoint.path, params)}${queryString(query)}`, { apiKey: tenant.apiKey });
    pages.push({ status: reply.status, body: reply.json });
    if (!('list' in endpoint && endpoint.list) || !Array.isArray(reply.json) || reply.json.length < 100 || id === 'heartbeats.listEvents') break;
  }
  return pages;
}

/** Everything a tenant can read: every list (all pages) and every GET of its own ids. */
async function snapshot(tenant: Tenant): Promise<Record<string, unknown>> {
  const ids = idsOf.get(tenant.accountId)!;
  const view: Record<string, unknown> = {};
  for (const id of LISTS) view[id] = await readAll(tenant, id, {});
  for (const id of ID_TAKING.filter((id) => ENDPOINTS[id].method === 'GET')) view[id] = await readAll(tenant, id, validParams(id, ids));
  return view;
}

function requestOf(id: EndpointId, params: Record<string, string | number>): { path: string; body?: string; headers: Record<string, string> } {
  const endpoint: EndpointDef = ENDPOINTS[id];
  const query = { ...sampleQuery(id), ...(endpoint.query && 'autoAssignAlerts' in endpoint.query.shape ? { autoAssignAlerts: 'false' } : {}) };
  const body = SAMPLE_BODIES[id];
  return {
    path: `${fillPath(endpoint.path, params)}${queryString(query)}`,
    ...(body ? { body: JSON.stringify(body) } : {}),
    headers: body ? { 'content-type': 'application/json' } : {},
  };
}

/** An id of the same shape as `value` that names nothing (last character changed). */
function missingLike(value: string | number): string | number {
  if (typeof value === 'number') return value + 100_000;
  const last = value.slice(-1);
  const replacement = /[0-9a-f]/.test(last) ? ((parseInt(last, 16) + 1) % 16).toString(16) : last === 'z' ? 'y' : 'z';
  return `${value.slice(0, -1)}${replacement}`;
}

describe.each([
  [TENANTS[0], TENANTS[1]],
  [TENANTS[1], TENANTS[0]],
])('%o calling with the ids of %o', (attacker, victim) => {
  it(`answers 404 on each of the ${ID_TAKING.length} id-taking endpoints and leaves the victim's data as it was`, async () => {
    const before = await snapshot(victim);
    const victimIds = idsOf.get(victim.accountId)!;
    const outcomes: Record<string, string> = {};
    for (const id of ID_TAKING) {
      const request = requestOf(id, validParams(id, victimIds));
      const reply = await send(service.server.url, ENDPOINTS[id].method, request.path, { apiKey: attacker.apiKey, ...request });
      const body = ErrorBody.safeParse(reply.json);
      outcomes[id] = `${reply.status} ${body.success ? body.data.error : reply.text.slice(0, 120)}`;
    }
    expect(outcomes).toEqual(Object.fromEntries(ID_TAKING.map((id) => [id, '404 Not Found'])));
    expect(await snapshot(victim)).toEqual(before);
  });

  it('answers every method on every id-taking path exactly as it answers an id that does not exist', async () => {
    const victimIds = idsOf.get(victim.accountId)!;
    const paths = [...new Set(ID_TAKING.map((id) => ENDPOINTS[id].path))];
    const differences: string[] = [];
    for (const template of paths) {
      const owner = ID_TAKING.find((id) => ENDPOINTS[id].path === template)!;
      const real = validParams(owner, victimIds);
      const fake = Object.fromEntries(Object.entries(real).map(([name, value]) => [name, missingLike(value)]));
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        const match = ID_TAKING.find((id) => ENDPOINTS[id].path === template && ENDPOINTS[id].method === method) ?? owner;
        const answer = async (params: Record<string, string | number>): Promise<string> => {
          const { body, headers, path: url } = requestOf(match, params);
          const reply = await send(service.server.url, method, url, { apiKey: attacker.apiKey, ...(method === 'GET' ? {} : { body, headers }) });
          let text = reply.text;
          for (const value of Object.values(params)) {
            const escaped = String(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
            text = text.replace(new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, 'g'), '<id>');
          }
          return `${reply.status} ${text}`;
        };
        const [forVictim, forMissing] = [await answer(real), await answer(fake)];
        if (forVictim !== forMissing) differences.push(`${method} ${template}: victim's id → ${forVictim}; missing id → ${forMissing}`);
      }
    }
    expect(differences).toEqual([]);
  });

  it("refuses bodies that point at the victim's resources and leaves the victim's data as it was", async () => {
    const before = await snapshot(victim);
    const victimIds = idsOf.get(victim.accountId)!;
    const attempts: Array<[EndpointId, Record<string, unknown>]> = [
      ['checks.createApi', { ...SAMPLE_BODIES['checks.createApi'], groupId: victimIds.group }],
      ['checks.createApi', { ...SAMPLE_BODIES['checks.createApi'], alertChannelSubscriptions: [{ alertChannelId: victimIds.alertChannel, activated: true }] }],
      ['checks.createApi', { ...SAMPLE_BODIES['checks.createApi'], triggerIncident: { serviceId: victimIds.service, severity: 'MINOR', name: 'x', description: 'y', notifySubscribers: false } }],
      ['incidents.create', { ...SAMPLE_BODIES['incidents.create'], services: [{ id: victimIds.service }] }],
    ];
    const statuses = [];
    for (const [id, body] of attempts) {
      const reply = await send(service.server.url, ENDPOINTS[id].method, `${ENDPOINTS[id].path}?autoAssignAlerts=false`, {
        apiKey: attacker.apiKey, body: JSON.stringify(body), headers: { 'content-type': 'application/json' },
      });
      statuses.push(`${id} ${reply.status >= 400 && reply.status < 500 ? '4xx' : reply.status}`);
    }
    expect(statuses).toEqual(attempts.map(([id]) => `${id} 4xx`));
    expect(await snapshot(victim)).toEqual(before);
  });

  it("answers 403 when the attacker's key names the victim's account in x-service-account", async () => {
    const reply = await send(service.server.url, 'GET', '/v1/checks', { apiKey: attacker.apiKey, headers: { 'x-service-account': victim.accountId } });
    expect(reply.status).toBe(403);
    expect(ErrorBody.parse(reply.json)).toMatchObject({ statusCode: 403, error: 'Forbidden' });
  });
});

describe('after the matrix', () => {
  it('leaves a database that passes integrity_check', async () => {
    await service.server.close();
    expect(integrityCheck(service.dataDir)).toBe('ok');
  });
});
