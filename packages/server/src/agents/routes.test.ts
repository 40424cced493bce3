import { RUN_WIRE_VERSION, type RunJob as WireRunJob, type RunReport } from '@vigil/schema';
import { serve } from '@hono/node-server';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type SqliteServiceApp } from '../app.js';
import { reportRecorder } from '../scheduler/execute.js';
import { AgentHub } from './hub.js';
import { AgentKeyRing } from './keys.js';
import { registerAgentRoutes } from './routes.js';

const KEY = 'eu-agent-key-0123456789';
const OTHER_KEY = 'us-agent-key-0123456789';
const LEASE_MS = 1500;

interface World {
  service: SqliteServiceApp;
  hub: AgentHub;
  checkId: string;
}

const worlds: World[] = [];
afterEach(() => {
  for (const world of worlds.splice(0)) {
    world.hub.stop();
    world.service.close();
  }
});

function world(): World {
  const service = createApp();
  const hub = new AgentHub({ ports: service.repositories.ports, leaseMs: LEASE_MS });
  const keys = new AgentKeyRing([
    { location: 'eu-west-1', key: KEY },
    { location: 'us-east-1', key: OTHER_KEY },
  ]);
  registerAgentRoutes(service.app, { hub, keys: () => keys });
  hub.start(reportRecorder({ store: service.store }));
  const check = service.store.checks.insert('local', (id) => ({ id, name: 'Shop', checkType: 'API', activated: true, locations: ['eu-west-1'] }));
  const created = { service, hub, checkId: String(check.id) };
  worlds.push(created);
  return created;
}

function post(target: World, path: string, body: unknown, key: string | null = KEY): Promise<Response> {
  return Promise.resolve(
    target.service.app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key === null ? {} : { authorization: `Bearer ${key}` }) },
      body: JSON.stringify(body),
    }),
  );
}

const poll = (overrides: Record<string, unknown> = {}) => ({ agentId: 'agent-1', wireVersion: RUN_WIRE_VERSION, agentVersion: '0.0.0-test', location: 'eu-west-1', capacity: 1, leases: [], ...overrides });

function queue(target: World, dueMs = 1_700_000_000_000): string {
  const key = `${target.checkId}@${dueMs}@eu-west-1`;
  target.hub.enqueue({ slot: { accountId: 'local', checkId: target.checkId, dueMs, location: 'eu-west-1', key }, check: { id: target.checkId, name: 'Shop', checkType: 'API' } });
  return key;
}

function reportOf(job: WireRunJob, hasFailures = false): RunReport {
  const at = new Date(job.dueMs).toISOString();
  const final = {
    id: 'r1', name: 'Shop', checkId: job.checkId, hasFailures, hasErrors: false, isDegraded: false, overMaxResponseTime: false,
    runLocation: 'somewhere-else', startedAt: at, stoppedAt: at, created_at: at, responseTime: 12,
    apiCheckResult: null, browserCheckResult: null, multiStepCheckResult: null,
    checkRunId: Math.floor(job.dueMs / 1000), attempts: 0, resultType: 'FINAL' as const, sequenceId: null, error: null,
  };
  return { wireVersion: RUN_WIRE_VERSION, key: job.key, attempts: [], final };
}

/** Polls until a job is handed out (204s while none is claimable, e.g. until a lease expires). */
async function leaseOne(target: World, agentId = 'agent-1'): Promise<{ leaseId: string; job: WireRunJob }> {
  let response = await post(target, '/v1/agent/jobs', poll({ agentId }));
  while (response.status === 204) response = await post(target, '/v1/agent/jobs', poll({ agentId }));
  expect(response.status).toBe(200);
  const body = (await response.json()) as { jobs: Array<{ leaseId: string; leaseExpiresAt: string; job: WireRunJob }>; leaseMs: number };
  expect(body.leaseMs).toBe(LEASE_MS);
  expect(body).toMatchObject({ reportsPerRequest: 50 });
  expect(body.jobs).toHaveLength(1);
  return body.jobs[0]!;
}

describe('agent routes', () => {
  it('answers a poll without a key 401 Missing authentication, and a wrong key 401 Bad Token, at once', async () => {
    const target = world();
    const missing = await post(target, '/v1/agent/jobs', poll(), null);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Missing authentication' });
    const wrong = await post(target, '/v1/agent/jobs', poll(), 'not-the-key-0123456789');
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Bad Token' });
    const wrongReport = await post(target, '/v1/agent/results', {}, 'vigil-local');
    expect(await wrongReport.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Bad Token' });
  });

  it('refuses an agent of another run wire version, naming both versions', async () => {
    const target = world();
    const response = await post(target, '/v1/agent/jobs', poll({ wireVersion: RUN_WIRE_VERSION + 1 }));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: `the agent speaks run wire version ${RUN_WIRE_VERSION + 1}; this side speaks version ${RUN_WIRE_VERSION}`,
      validation: { source: 'payload', keys: ['wireVersion'] },
    });
  });

  it('refuses a report of another run wire version the same way', async () => {
    const target = world();
    const response = await post(target, '/v1/agent/results', { agentId: 'agent-1', leaseId: 'x', report: { wireVersion: 7 } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe(`the agent speaks run wire version 7; this side speaks version ${RUN_WIRE_VERSION}`);
  });

  it('answers a malformed poll 400 naming the fields', async () => {
    const target = world();
    const response = await post(target, '/v1/agent/jobs', poll({ capacity: -1, agentId: 'has space' }));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { message: string; validation: { keys: string[] } };
    expect(body.validation.keys.sort()).toEqual(['agentId', 'capacity']);
    expect(body.message).toBe('"agentId" has an invalid format. "capacity" must be greater than or equal to 0');
  });

  it("refuses a poll for a location that is not the key's", async () => {
    const target = world();
    const response = await post(target, '/v1/agent/jobs', poll({ location: 'us-east-1' }));
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ statusCode: 403, error: 'Forbidden', message: 'this agent key is for location eu-west-1, not us-east-1' });
  });

  it('answers 204 when no job comes within the poll time', async () => {
    const target = world();
    const response = await post(target, '/v1/agent/jobs', poll());
    expect(response.status).toBe(204);
  });

  it('hands a queued job under a lease, records its report once with the location of the lease, and refuses the duplicate 409', async () => {
    const target = world();
    const key = queue(target);
    const { leaseId, job } = await leaseOne(target);
    expect(job.key).toBe(key);
    const first = await post(target, '/v1/agent/results', { agentId: 'agent-1', leaseId, report: reportOf(job) });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ recorded: true, key });
    const again = await post(target, '/v1/agent/results', { agentId: 'agent-1', leaseId, report: reportOf(job, true) });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ statusCode: 409, error: 'Conflict', message: `run ${key} already has its result; this one is not recorded` });
    const stored = await target.service.repositories.ports.checkResults.facts('local', target.checkId, 0, Date.now() + 1);
    expect(stored.map((facts) => [facts.hasFailures, facts.runLocation])).toEqual([[false, 'eu-west-1']]);
  });

  it('refuses 409 the report of an agent whose lease expired and went to a peer, and records the peer\'s', async () => {
    const target = world();
    queue(target);
    const stale = await leaseOne(target, 'agent-1');
    // Held until the lease expires: then the peer's poll gets the run.
    const fresh = await leaseOne(target, 'agent-2');
    expect(fresh.job.key).toBe(stale.job.key);
    const late = await post(target, '/v1/agent/results', { agentId: 'agent-1', leaseId: stale.leaseId, report: reportOf(stale.job, true) });
    expect(late.status).toBe(409);
    expect(await late.json()).toEqual({
      statusCode: 409,
      error: 'Conflict',
      message: `lease ${stale.leaseId} is not held: its run was handed to another agent after the lease expired, or it never existed; this result is not recorded`,
    });
    const current = await post(target, '/v1/agent/results', { agentId: 'agent-2', leaseId: fresh.leaseId, report: reportOf(fresh.job) });
    expect(current.status).toBe(200);
  });

  it('answers each report of a batch as if posted alone and records only the good one', async () => {
    const target = world();
    // Run B: reported already, so its report again is a duplicate.
    const earlier = queue(target, 1_700_000_000_000);
    const done = await leaseOne(target, 'agent-2');
    expect((await post(target, '/v1/agent/results', { agentId: 'agent-2', leaseId: done.leaseId, report: reportOf(done.job) })).status).toBe(200);
    // Run A: agent-1's lease expired and went to agent-2, so agent-1's report is stale.
    const key = queue(target, 1_700_000_060_000);
    const stale = await leaseOne(target, 'agent-1');
    const fresh = await leaseOne(target, 'agent-2');
    expect(fresh.job.key).toBe(key);
    const response = await post(target, '/v1/agent/results', {
      agentId: 'agent-2',
      reports: [
        { leaseId: stale.leaseId, report: reportOf(stale.job, true) },
        { leaseId: fresh.leaseId, report: reportOf(fresh.job) },
        { leaseId: done.leaseId, report: reportOf(done.job, true) },
        // The same lease twice in one batch: the second finds the run recorded by the first.
        { leaseId: fresh.leaseId, report: reportOf(fresh.job, true) },
        { leaseId: fresh.leaseId, report: { ...reportOf(fresh.job), attempts: 'none' } },
      ],
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      results: [
        { leaseId: stale.leaseId, status: 409, message: `lease ${stale.leaseId} is not held: its run was handed to another agent after the lease expired, or it never existed; this result is not recorded` },
        { leaseId: fresh.leaseId, status: 200, key },
        { leaseId: done.leaseId, status: 409, message: `run ${earlier} already has its result; this one is not recorded` },
        { leaseId: fresh.leaseId, status: 409, message: `run ${key} already has its result; this one is not recorded` },
        { leaseId: fresh.leaseId, status: 400, message: '"attempts" must be an array' },
      ],
    });
    const stored = await target.service.repositories.ports.checkResults.facts('local', target.checkId, 0, Date.now() + 1);
    expect(stored.map((facts) => [facts.hasFailures, facts.runLocation])).toEqual([
      [false, 'eu-west-1'],
      [false, 'eu-west-1'],
    ]);
  });

  it('refuses a batch holding a report of another run wire version whole, naming both versions', async () => {
    const target = world();
    const response = await post(target, '/v1/agent/results', { agentId: 'agent-1', reports: [{ leaseId: 'x', report: { wireVersion: 7 } }] });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe(`the agent speaks run wire version 7; this side speaks version ${RUN_WIRE_VERSION}`);
  });

  it('answers a batch of no reports, or of more than 50, 400 naming reports', async () => {
    const target = world();
    const tooMany = Array.from({ length: 51 }, () => ({ leaseId: 'x', report: { wireVersion: RUN_WIRE_VERSION } }));
    for (const [reports, message] of [[[], '"reports" must contain at least 1 items'], [tooMany, '"reports" must contain less than or equal to 50 items']] as const) {
      const response = await post(target, '/v1/agent/results', { agentId: 'agent-1', reports });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ statusCode: 400, error: 'Bad Request', message, validation: { source: 'payload', keys: ['reports'] } });
    }
  });

  it('leases nothing to an agent whose poll was cut off while it waited over HTTP: the next agent gets the run', async () => {
    const target = world();
    const sockets = new Set<Socket>();
    const server = serve({ fetch: target.service.app.fetch, port: 0, hostname: '127.0.0.1' });
    server.on('connection', (socket: Socket) => sockets.add(socket));
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/agent/jobs`;
    try {
      const cut = new AbortController();
      const waiting = fetch(url, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(poll()), signal: cut.signal }).catch(() => 'cut off');
      // The poll is in: the hub knows the agent.
      while ((await target.hub.agents()).length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      cut.abort();
      expect(await waiting).toBe('cut off');
      // The server saw the connection close (its response's close, which ends the poll, comes with it).
      await Promise.all([...sockets].map((socket) => (socket.closed ? undefined : new Promise((resolve) => socket.once('close', resolve)))));
      const key = queue(target);
      // One poll: had the cut-off poll still waited, it would have taken the run for agent-1.
      const next = await post(target, '/v1/agent/jobs', poll({ agentId: 'agent-2' }));
      expect(next.status).toBe(200);
      expect(((await next.json()) as { jobs: Array<{ job: WireRunJob }> }).jobs.map((leased) => leased.job.key)).toEqual([key]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("refuses a report of another location's key 409", async () => {
    const target = world();
    queue(target);
    const { leaseId, job } = await leaseOne(target);
    const response = await post(target, '/v1/agent/results', { agentId: 'agent-9', leaseId, report: reportOf(job) }, OTHER_KEY);
    expect(response.status).toBe(409);
    expect(((await response.json()) as { message: string }).message).toBe(`lease ${leaseId} is for location eu-west-1, not us-east-1`);
  });

  it('lists the agents it heard from for an account key', async () => {
    const target = world();
    await post(target, '/v1/agent/jobs', poll({ capacity: 0 }));
    const response = await target.service.app.request('/v1/agent/agents', { headers: { authorization: 'Bearer vigil-local' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      { agentId: 'agent-1', location: 'eu-west-1', agentVersion: '0.0.0-test', wireVersion: RUN_WIRE_VERSION, lastSeenAt: expect.any(String), runsInFlight: 0, state: 'live' },
    ]);
    const anonymous = await target.service.app.request('/v1/agent/agents');
    expect(anonymous.status).toBe(401);
  });

  it('lists, through one server, the agent polling another server of the same database file', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-agents-'));
    const [polled, asked] = [0, 1].map(() => createApp({ databaseFile: path.join(dir, 'vigil.db'), agentLeaseMs: LEASE_MS }));
    try {
      const keys = new AgentKeyRing([{ location: 'eu-west-1', key: KEY }]);
      registerAgentRoutes(polled!.app, { hub: polled!.agents.hub, keys: () => keys });
      registerAgentRoutes(asked!.app, { hub: asked!.agents.hub, keys: () => keys });
      const answer = await polled!.app.request('/v1/agent/jobs', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(poll({ capacity: 0, agentVersion: '2.0.0' })) });
      expect(answer.status).toBe(204);
      const response = await asked!.app.request('/v1/agent/agents', { headers: { authorization: 'Bearer vigil-local' } });
      expect(await response.json()).toEqual([
        { agentId: 'agent-1', location: 'eu-west-1', agentVersion: '2.0.0', wireVersion: RUN_WIRE_VERSION, lastSeenAt: expect.any(String), runsInFlight: 0, state: 'live' },
      ]);
    } finally {
      for (const service of [polled, asked]) {
        service!.agents.hub.stop();
        service!.close();
      }
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('agent hub', () => {
  it('lists the agent routes in /openapi.json', async () => {
    const target = world();
    const document = (await (await target.service.app.request('/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/v1/agent/jobs', '/v1/agent/results', '/v1/agent/agents']));
  });

  it('records a run as not executed once it waited a lease period with no live agent of its location, and never while one is live', async () => {
    const service = createApp();
    let clock = 1_700_000_000_000;
    const hub = new AgentHub({ ports: service.repositories.ports, leaseMs: LEASE_MS, now: () => clock });
    worlds.push({ service, hub, checkId: '' });
    hub.start(reportRecorder({ store: service.store }));
    const check = service.store.checks.insert('local', (id) => ({ id, name: 'Shop', checkType: 'API', activated: true, locations: ['eu-west-1', 'us-east-1'] }));
    const checkId = String(check.id);
    const enqueue = (location: string) =>
      hub.enqueue({ slot: { accountId: 'local', checkId, dueMs: clock, location, key: `${checkId}@${clock}@${location}` }, check: { id: checkId, name: 'Shop', checkType: 'API' } });
    // An agent of us-east-1 polls (a heartbeat, gone at once: this clock does not move by itself): its location is live.
    await hub.poll({ agentId: 'us-agent', wireVersion: RUN_WIRE_VERSION, agentVersion: 't', location: 'us-east-1', capacity: 0, leases: [] }, { queue: 'us-east-1', location: 'us-east-1' }, AbortSignal.abort());
    enqueue('eu-west-1');
    enqueue('us-east-1');
    clock += LEASE_MS - 1;
    void hub.sweep();
    clock += 1;
    await hub.sweep();
    const stored = await service.repositories.ports.checkResults.facts('local', checkId, 0, clock + 1);
    expect(stored.map((facts) => facts.runLocation)).toEqual(['eu-west-1']);
    const result = (await service.repositories.ports.checkResults.find('local', checkId, stored[0]!.id)) as Record<string, unknown>;
    expect(result).toMatchObject({
      hasErrors: true,
      hasFailures: false,
      attempts: 0,
      notExecuted: { reason: 'no agent of location eu-west-1 is connected and the location is not run by the service itself' },
    });
    expect((await hub.agents()).map((agent) => [agent.agentId, agent.state])).toEqual([['us-agent', 'live']]);
    clock += 2 * LEASE_MS;
    expect((await hub.agents()).map((agent) => [agent.agentId, agent.state])).toEqual([['us-agent', 'gone']]);
  });
});
