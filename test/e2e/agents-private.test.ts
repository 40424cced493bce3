/**
 * Private locations' agents end to end: an account makes a key for its private location through
 * the API (shown once, then masked), `vigil agent --private-location` runs the location's checks
 * with it, the location lists its agent, another account sees none of it, the runs count in
 * `/metrics` like the service's own, a revoked key ends the agent's poll in flight with 401, and
 * bad agent keys are limited per client like bad API keys (429).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_WIRE_VERSION } from '@vigil/schema';
import { startVigilServer, VIGIL_BIN, waitFor } from '../support/cli.js';

const ACME_KEY = 'acme-api-key-0123456789';
const GLOBEX_KEY = 'globex-api-key-0123456789';
const METRICS_TOKEN = 'metrics-token-0123456789';

let target: Server;
let targetUrl: string;
let service: Awaited<ReturnType<typeof startVigilServer>> | undefined;
let agent: { child: ChildProcess; stderr(): string; exited: Promise<number | null> } | undefined;

async function api(method: string, route: string, apiKey = ACME_KEY, body?: unknown): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(`${service!.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown), headers: response.headers };
}

const agentPoll = (key: string, agentId = 'probe', location = 'office-dc') =>
  fetch(`${service!.url}/v1/agent/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agentId, wireVersion: RUN_WIRE_VERSION, agentVersion: 'probe', location, capacity: 0, leases: [] }),
  });

beforeAll(async () => {
  target = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/health`;
  service = await startVigilServer([
    '--data', ':memory:', '--agent-lease', '3s', '--metrics-token', METRICS_TOKEN,
    '--api-key', ACME_KEY, '--account-id', 'acme', '--api-key', GLOBEX_KEY, '--account-id', 'globex',
  ]);
});

afterAll(async () => {
  agent?.child.kill('SIGKILL');
  service?.child.kill('SIGKILL');
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
});

describe('private locations and their agents', () => {
  it('makes a key shown once, runs the location’s checks on its agent, lists the agent, counts its runs, and refuses the revoked key at once', async () => {
    const created = await api('POST', '/v1/private-locations', ACME_KEY, { name: 'Office', slugName: 'office-dc' });
    expect(created.status).toBe(201);
    const locationId = (created.body as { id: string }).id;
    expect(created.body).toMatchObject({ keys: [], agentCount: 0, lastSeen: null, minAgentVersion: null, runningAgents: [] });
    // Globex has a location of the same slug: its agents must never get Acme's runs, nor see Acme's agents.
    expect((await api('POST', '/v1/private-locations', GLOBEX_KEY, { name: 'Office', slugName: 'office-dc' })).status).toBe(201);

    const made = await api('POST', `/v1/private-locations/${locationId}/keys`);
    expect(made.status).toBe(201);
    const key = made.body as { id: string; rawKey: string; maskedKey: string; created_at: string; updated_at: null };
    expect(key.rawKey).toMatch(/^pl_[0-9a-f]{32}$/);
    expect(key).toEqual({ id: key.id, rawKey: key.rawKey, maskedKey: `...${key.rawKey.slice(-4)}`, created_at: key.created_at, updated_at: null });
    // Never shown again: listed masked, in the location and on its own.
    const masked = { id: key.id, maskedKey: key.maskedKey, created_at: key.created_at, updated_at: null };
    expect((await api('GET', `/v1/private-locations/${locationId}/keys`)).body).toEqual([masked]);
    expect(((await api('GET', `/v1/private-locations/${locationId}`)).body as { keys: unknown }).keys).toEqual([masked]);
    expect(JSON.stringify((await api('GET', '/v1/private-locations')).body)).not.toContain(key.rawKey);
    // Another account's key cannot reach the location's keys.
    expect((await api('GET', `/v1/private-locations/${locationId}/keys`, GLOBEX_KEY)).body).toEqual({ statusCode: 404, error: 'Not Found', message: `Private location ${locationId} not found` });

    const check = await api('POST', '/v1/checks/api', ACME_KEY, {
      name: 'Intranet', activated: true, frequency: 0, frequencyOffset: 10, locations: [], privateLocations: ['office-dc'],
      request: { method: 'GET', url: targetUrl, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', property: '' }] },
    });
    expect(check.status).toBe(201);
    const checkId = (check.body as { id: string }).id;

    const child = spawn(process.execPath, [VIGIL_BIN, 'agent', '--server', service!.url, '--private-location', 'office-dc', '--id', 'office-1', '--concurrency', '2'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, VIGIL_AGENT_KEY: key.rawKey, NO_COLOR: '1' },
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    agent = { child, stderr: () => stderr, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
    await waitFor('the private location’s agent to connect', async () => (stderr.includes('connected to') ? true : undefined));

    const result = await waitFor('a result of the check from the private location', async () => {
      const results = (await api('GET', `/v1/check-results/${checkId}?resultType=FINAL`)).body as Array<Record<string, unknown>>;
      return results.find((entry) => entry['notExecuted'] === undefined);
    });
    expect(result).toMatchObject({ runLocation: 'office-dc', hasFailures: false, hasErrors: false });

    const location = (await api('GET', `/v1/private-locations/${locationId}`)).body as Record<string, unknown>;
    const version = (location['runningAgents'] as Array<{ version: string }>)[0]?.version;
    expect(location).toMatchObject({ agentCount: 1, minAgentVersion: version, runningAgents: [{ version, isOutdated: false, count: 1, agents: [{ id: 'office-1' }] }] });
    expect(typeof location['lastSeen']).toBe('string');
    const listedAgent = (location['runningAgents'] as Array<{ agents: Array<Record<string, unknown>> }>)[0]!.agents[0]!;
    expect(Object.keys(listedAgent).sort()).toEqual(['id', 'lastSeenAt', 'runsInFlight']);
    expect((await api('GET', '/v1/agent/agents')).body).toMatchObject([{ agentId: 'office-1', location: 'office-dc', privateLocationId: locationId, state: 'live' }]);
    expect((await api('GET', '/v1/agent/agents', GLOBEX_KEY)).body).toEqual([]);
    // Globex's office-dc has no agent: nothing of Acme's ever ran there, and its location lists no agent.
    const globexLocations = (await api('GET', '/v1/private-locations', GLOBEX_KEY)).body as Array<Record<string, unknown>>;
    expect(globexLocations).toMatchObject([{ slugName: 'office-dc', agentCount: 0, lastSeen: null }]);

    // The agent's runs count as started in the scheduler's metrics, as the service's own runs do.
    const metrics = await (await fetch(`${service!.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    const started = Number(/^vigil_scheduler_start_lag_seconds_count (\d+)$/m.exec(metrics)?.[1]);
    expect(started).toBeGreaterThanOrEqual(1);

    // Revoked while a poll of its is open: that poll is answered 401, and the agent stops with the server's answer.
    const inFlight = agentPoll(key.rawKey, 'office-2');
    await waitFor('the second poll to be held open', async () => {
      const agents = (await api('GET', '/v1/agent/agents')).body as Array<{ agentId: string }>;
      return agents.some((entry) => entry.agentId === 'office-2') ? true : undefined;
    });
    expect((await api('DELETE', `/v1/private-locations/${locationId}/keys/${key.id}`)).status).toBe(204);
    const ended = await inFlight;
    expect(ended.status).toBe(401);
    expect(await ended.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Bad Token' });
    expect(await agent.exited).toBe(1);
    expect(agent.stderr()).toContain('vigil agent office-1 (office-dc): the server refused this agent (401): Bad Token');
    const report = await fetch(`${service!.url}/v1/agent/results`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.rawKey}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(report.status).toBe(401);
    expect(await report.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Bad Token' });
    expect((await api('GET', `/v1/private-locations/${locationId}/keys`)).body).toEqual([]);
    expect((await api('DELETE', `/v1/private-locations/${locationId}/keys/${key.id}`)).body).toEqual({ statusCode: 404, error: 'Not Found', message: `Private location key ${key.id} not found` });
  }, 180_000);

  it('answers 429 to a client past the limit of bad agent keys, and still lets a good key in', async () => {
    const bad = () => agentPoll('pl_00000000000000000000000000000000');
    let answer = await bad();
    for (let tries = 0; answer.status === 401 && tries < 50; tries++) answer = await bad();
    expect(answer.status).toBe(429);
    const retryAfter = answer.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(await answer.json()).toEqual({ statusCode: 429, error: 'Too Many Requests', message: `Too many failed authentication attempts from this address; retry in ${retryAfter} s` });

    // A good key from the same address is never held back by others' failures.
    const locations = (await api('GET', '/v1/private-locations')).body as Array<{ id: string }>;
    const made = (await api('POST', `/v1/private-locations/${locations[0]!.id}/keys`)).body as { rawKey: string };
    expect((await agentPoll(made.rawKey, 'office-3')).status).toBe(204);
  }, 60_000);
});
