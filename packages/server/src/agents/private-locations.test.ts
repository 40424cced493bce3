import { RUN_WIRE_VERSION, type RunJob as WireRunJob } from '@vigil/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type SqliteServiceApp } from '../app.js';
import { reportRecorder } from '../scheduler/execute.js';
import { AgentKeyRing } from './keys.js';
import { registerAgentRoutes } from './routes.js';

const LEASE_MS = 1500;
const ACCOUNTS = [
  { apiKey: 'acme-api-key-0123456789', accountId: 'acme' },
  { apiKey: 'globex-api-key-0123456789', accountId: 'globex' },
];

const services: SqliteServiceApp[] = [];
afterEach(() => {
  for (const service of services.splice(0)) {
    service.agents.hub.stop();
    service.close();
  }
});

interface Tenant {
  apiKey: string;
  accountId: string;
  locationId: string;
  rawKey: string;
  keyId: string;
  checkId: string;
}

async function call(service: SqliteServiceApp, method: string, path: string, key: string, body?: unknown): Promise<Response> {
  return service.app.request(path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function world(leaseMs = LEASE_MS): Promise<{ service: SqliteServiceApp; tenants: Tenant[] }> {
  const service = createApp({ accounts: ACCOUNTS, agentLeaseMs: leaseMs });
  services.push(service);
  const { hub, privateKeys, authFailures } = service.agents;
  registerAgentRoutes(service.app, { hub, keys: () => new AgentKeyRing([]), privateKeys, ...(authFailures ? { authFailures } : {}) });
  hub.start(reportRecorder({ repositories: service.repositories }));
  const tenants: Tenant[] = [];
  // Both accounts name their private location dc-1.
  for (const { apiKey, accountId } of ACCOUNTS) {
    const location = (await (await call(service, 'POST', '/v1/private-locations', apiKey, { name: 'DC', slugName: 'dc-1' })).json()) as { id: string };
    const key = (await (await call(service, 'POST', `/v1/private-locations/${location.id}/keys`, apiKey)).json()) as { id: string; rawKey: string };
    const check = service.store.checks.insert(accountId, (id) => ({ id, name: `${accountId} intranet`, checkType: 'API', activated: true, locations: [], privateLocations: ['dc-1'] }));
    tenants.push({ apiKey, accountId, locationId: location.id, rawKey: key.rawKey, keyId: key.id, checkId: String(check.id) });
  }
  return { service, tenants };
}

function enqueue(service: SqliteServiceApp, tenant: Tenant, dueMs: number): string {
  const key = `${tenant.checkId}@${dueMs}@dc-1`;
  service.agents.hub.enqueue({ slot: { accountId: tenant.accountId, checkId: tenant.checkId, dueMs, location: 'dc-1', key }, check: { id: tenant.checkId, name: 'Intranet', checkType: 'API', locations: [], privateLocations: ['dc-1'] } });
  return key;
}

function poll(service: SqliteServiceApp, key: string, agentId: string, capacity = 5): Promise<Response> {
  return call(service, 'POST', '/v1/agent/jobs', key, { agentId, wireVersion: RUN_WIRE_VERSION, agentVersion: '1.2.3', location: 'dc-1', capacity, leases: [] });
}

describe('private locations’ agents', () => {
  it('hands an agent the runs of its own account’s private location only, though another account’s has the same slug', async () => {
    const { service, tenants } = await world();
    const [acme, globex] = tenants as [Tenant, Tenant];
    const acmeRun = enqueue(service, acme, 1_700_000_000_000);
    const globexRun = enqueue(service, globex, 1_700_000_000_000);
    const answer = await poll(service, acme.rawKey, 'acme-agent');
    expect(answer.status).toBe(200);
    const { jobs } = (await answer.json()) as { jobs: Array<{ job: WireRunJob }> };
    expect(jobs.map((leased) => leased.job.key)).toEqual([acmeRun]);
    const other = (await (await poll(service, globex.rawKey, 'globex-agent')).json()) as { jobs: Array<{ job: WireRunJob }> };
    expect(other.jobs.map((leased) => [leased.job.accountId, leased.job.key])).toEqual([['globex', globexRun]]);
  });

  it('refuses a poll naming another location than its key’s with 403', async () => {
    const { service, tenants } = await world();
    const response = await call(service, 'POST', '/v1/agent/jobs', tenants[0]!.rawKey, { agentId: 'a', wireVersion: RUN_WIRE_VERSION, agentVersion: '1', location: 'dc-2', capacity: 1, leases: [] });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ statusCode: 403, error: 'Forbidden', message: 'this agent key is for private location dc-1, not dc-2' });
  });

  it('ends a poll in flight with 401 when its key is revoked, and the next poll too', async () => {
    // A 60 s lease holds an empty poll open 20 s, past this test's time limit: only the revocation ends it in time.
    const { service, tenants } = await world(60_000);
    const acme = tenants[0]!;
    const inFlight = poll(service, acme.rawKey, 'acme-agent');
    // Waiting for the hub to see the poll: it is then open, waiting for work.
    while (!(await service.agents.hub.agents('acme')).some((agent) => agent.agentId === 'acme-agent')) await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await call(service, 'DELETE', `/v1/private-locations/${acme.locationId}/keys/${acme.keyId}`, acme.apiKey)).status).toBe(204);
    const ended = await inFlight;
    expect(ended.status).toBe(401);
    expect(await ended.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Bad Token' });
    const next = await poll(service, acme.rawKey, 'acme-agent');
    expect(await next.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Bad Token' });
    // Gone at once: the location lists no agent, and its runs are not held for one.
    expect(await service.agents.hub.agents('acme')).toMatchObject([{ agentId: 'acme-agent', state: 'gone' }]);
    const location = (await (await call(service, 'GET', `/v1/private-locations/${acme.locationId}`, acme.apiKey)).json()) as Record<string, unknown>;
    expect(location).toMatchObject({ agentCount: 0, runningAgents: [] });
  });

  it('hands the runs a revoked agent held to the location’s other agent at once', async () => {
    const { service, tenants } = await world();
    const acme = tenants[0]!;
    const second = (await (await call(service, 'POST', `/v1/private-locations/${acme.locationId}/keys`, acme.apiKey)).json()) as { rawKey: string };
    const run = enqueue(service, acme, 1_700_000_000_000);
    expect((await poll(service, acme.rawKey, 'revoked-agent')).status).toBe(200);
    expect((await call(service, 'DELETE', `/v1/private-locations/${acme.locationId}/keys/${acme.keyId}`, acme.apiKey)).status).toBe(204);
    const taken = (await (await poll(service, second.rawKey, 'other-agent')).json()) as { jobs: Array<{ job: WireRunJob }> };
    expect(taken.jobs.map((leased) => leased.job.key)).toEqual([run]);
  });

  it('revokes every key of a private location that is deleted', async () => {
    const { service, tenants } = await world();
    const acme = tenants[0]!;
    expect((await call(service, 'DELETE', `/v1/private-locations/${acme.locationId}`, acme.apiKey)).status).toBe(204);
    expect(await (await poll(service, acme.rawKey, 'acme-agent')).json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Bad Token' });
  });

  it('records a private location’s run as not executed after a lease period with no agent of it', async () => {
    const { service, tenants } = await world();
    const acme = tenants[0]!;
    const dueMs = Date.now() - 10 * LEASE_MS;
    enqueue(service, acme, dueMs);
    const stored = await new Promise<Record<string, unknown>>((resolve) => {
      const look = async () => {
        const { checkResults } = service.repositories.ports;
        const facts = await checkResults.facts('acme', acme.checkId, 0, Date.now() + 1);
        if (facts.length > 0) resolve((await checkResults.find('acme', acme.checkId, facts[0]!.id)) as Record<string, unknown>);
        else setTimeout(() => void look(), 50);
      };
      void look();
    });
    expect(stored).toMatchObject({ runLocation: 'dc-1', hasErrors: true, hasFailures: false, notExecuted: { reason: 'no agent of private location dc-1 is connected' } });
  });

  it('lists a private location’s agents to its account only, in the location and in /v1/agent/agents', async () => {
    const { service, tenants } = await world();
    const [acme, globex] = tenants as [Tenant, Tenant];
    expect((await poll(service, acme.rawKey, 'acme-agent', 0)).status).toBe(204);
    const location = (await (await call(service, 'GET', `/v1/private-locations/${acme.locationId}`, acme.apiKey)).json()) as Record<string, unknown>;
    expect(location).toMatchObject({ agentCount: 1, minAgentVersion: '1.2.3', runningAgents: [{ version: '1.2.3', isOutdated: false, count: 1, agents: [{ id: 'acme-agent', runsInFlight: 0 }] }] });
    expect(await (await call(service, 'GET', '/v1/agent/agents', acme.apiKey)).json()).toMatchObject([{ agentId: 'acme-agent', location: 'dc-1', privateLocationId: acme.locationId }]);
    expect(await (await call(service, 'GET', '/v1/agent/agents', globex.apiKey)).json()).toEqual([]);
    const theirs = (await (await call(service, 'GET', `/v1/private-locations/${globex.locationId}`, globex.apiKey)).json()) as Record<string, unknown>;
    expect(theirs).toMatchObject({ agentCount: 0, lastSeen: null, runningAgents: [] });
  });

  it('documents the key routes and the agents’ extension field in /openapi.json', async () => {
    const { service } = await world();
    const document = (await (await service.app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(document.paths['/v1/private-locations/{id}/keys'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(document.paths['/v1/private-locations/{id}/keys/{keyId}'] ?? {})).toEqual(['delete']);
    expect(JSON.stringify(document)).toContain('Vigil extension: the runs the agent said it was executing at its last poll');
  });
});
