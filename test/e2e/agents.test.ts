/**
 * Runner agents end to end: a `vigil server` that runs no location itself (`--local-locations
 * none`, a 3 s lease), two `vigil agent`s for eu-west-1 and one for us-east-1, and a project of API
 * checks against a loopback target. Every result names its agent's location; an agent killed with
 * `kill -9` in the middle of a run loses that run to its peer once the lease expires, which runs it
 * once, and no result is lost or doubled; a location with no agent gets "not executed" results.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigilServer, targetEnv, VIGIL_BIN, vigil, waitFor, writeProject } from '../support/cli.js';

const API_KEY = 'vigil-local';
const EU_KEY = 'eu-west-1-agent-key-e2e';
const US_KEY = 'us-east-1-agent-key-e2e';
const LEASE_MS = 3000;

let target: Server;
let slowHits = 0;
let okHits = 0;
/** The first /slow request is held open (its agent is then mid-run) until the test releases it. */
let heldSlow: (() => void) | undefined;
let project: string;
let service: Awaited<ReturnType<typeof startVigilServer>> | undefined;
const agents = new Map<string, { child: ChildProcess; stderr(): string; exited: Promise<number | null> }>();

type Result = Record<string, unknown> & { checkRunId: number; runLocation: string; resultType: string };

async function results(checkId: string): Promise<Result[]> {
  const response = await fetch(`${service!.url}/v1/check-results/${checkId}?limit=100&resultType=FINAL`, { headers: { authorization: `Bearer ${API_KEY}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as Result[];
}

async function agentList(): Promise<Array<{ agentId: string; location: string; state: string; runsInFlight: number }>> {
  const response = await fetch(`${service!.url}/v1/agent/agents`, { headers: { authorization: `Bearer ${API_KEY}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as Array<{ agentId: string; location: string; state: string; runsInFlight: number }>;
}

/** Starts `vigil agent` and resolves once it says it is connected. */
async function startAgent(id: string, location: string, key: string): Promise<void> {
  const child = spawn(process.execPath, [VIGIL_BIN, 'agent', '--server', service!.url, '--location', location, '--id', id, '--concurrency', '2'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, VIGIL_AGENT_KEY: key, NO_COLOR: '1' },
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  agents.set(id, { child, stderr: () => stderr, exited });
  await waitFor(`agent ${id} to connect`, async () => (stderr.includes('connected to') ? true : undefined));
}

beforeAll(async () => {
  target = createServer((request, response) => {
    if (request.url === '/slow') {
      slowHits++;
      if (slowHits === 1) {
        heldSlow = () => response.writeHead(200).end('{}');
        return;
      }
    } else {
      okHits++;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  project = await writeProject('vigil-agents-', {
    'vigil.config.ts': "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Agents', logicalId: 'agents' });\n",
    'checks/agents.monitor.ts': `import { ApiCheck, AssertionBuilder, Frequency, RetryStrategyBuilder } from 'vigil/constructs';
new ApiCheck('both', {
  name: 'Both locations',
  frequency: Frequency.EVERY_10S,
  locations: ['eu-west-1', 'us-east-1'],
  runParallel: true,
  retryStrategy: RetryStrategyBuilder.noRetries(),
  request: { url: '${base}/ok', assertions: [AssertionBuilder.statusCode().equals(200)] },
});
new ApiCheck('slow', {
  name: 'Slow once',
  frequency: Frequency.EVERY_10S,
  locations: ['eu-west-1'],
  retryStrategy: RetryStrategyBuilder.noRetries(),
  request: { url: '${base}/slow' },
});
new ApiCheck('orphan', {
  name: 'Nobody runs me',
  frequency: Frequency.EVERY_10S,
  locations: ['ap-south-1'],
  retryStrategy: RetryStrategyBuilder.noRetries(),
  request: { url: '${base}/ok' },
});
`,
  });
});

afterAll(async () => {
  for (const agent of agents.values()) agent.child.kill('SIGKILL');
  service?.child.kill('SIGKILL');
  heldSlow?.();
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
  await rm(project, { recursive: true, force: true });
});

describe('vigil agent', () => {
  it('runs each location on its agents, re-runs a killed agent’s run once on its peer, and records runs of a location without agents as not executed', async () => {
    service = await startVigilServer(['--data', ':memory:', '--local-locations', 'none', '--agent-lease', '3s', '--agent-key', `eu-west-1=${EU_KEY}`, '--agent-key', `us-east-1=${US_KEY}`]);
    await startAgent('agent-a', 'eu-west-1', EU_KEY);
    await startAgent('agent-c', 'us-east-1', US_KEY);
    const applied = await vigil(['apply', '--auto-approve'], { cwd: project, env: targetEnv(service.url) });
    expect(applied.code).toBe(0);
    const state = JSON.parse(await readFile(path.join(project, '.vigil', 'state.json'), 'utf8')) as { resources: Record<string, { remoteId: string }> };
    const [bothId, slowId, orphanId] = ['both', 'slow', 'orphan'].map((name) => state.resources[`api-check.${name}`]!.remoteId);

    // agent-a, the only eu-west-1 agent so far, is now in the middle of the slow run.
    await waitFor('the first /slow request', async () => (heldSlow ? true : undefined));
    await startAgent('agent-b', 'eu-west-1', EU_KEY);
    const killed = agents.get('agent-a')!;
    killed.child.kill('SIGKILL');
    await killed.exited;

    // Its lease expires, agent-b gets the run: a result started a lease period or more after it was due.
    const rerun = await waitFor('the killed run re-executed by agent-b', async () => {
      const found = (await results(slowId!)).find((result) => Date.parse(String(result.startedAt)) - result.checkRunId * 1000 >= LEASE_MS);
      return found;
    });
    expect(rerun).toMatchObject({ runLocation: 'eu-west-1', hasFailures: false, hasErrors: false });

    const both = await waitFor('results of the two-location check from both locations', async () => {
      const found = await results(bothId!);
      return new Set(found.map((result) => result.runLocation)).size === 2 ? found : undefined;
    });
    expect(new Set(both.map((result) => result.runLocation))).toEqual(new Set(['eu-west-1', 'us-east-1']));

    // No agent serves ap-south-1: its runs are recorded, as not executed, and alert nobody.
    const orphan = await waitFor('a not-executed result of the check in a location without agents', async () => (await results(orphanId!))[0]);
    expect(orphan).toMatchObject({
      runLocation: 'ap-south-1',
      hasFailures: false,
      hasErrors: true,
      notExecuted: { reason: 'no agent of location ap-south-1 is connected and the location is not run by the service itself' },
      attempts: 0,
      startedAt: null,
      error: 'not executed: no agent of location ap-south-1 is connected and the location is not run by the service itself',
    });
    const statuses = (await (await fetch(`${service.url}/v1/check-statuses/${orphanId}`, { headers: { authorization: `Bearer ${API_KEY}` } })).json()) as Record<string, unknown>;
    expect(statuses).toMatchObject({ hasErrors: true, hasFailures: false, lastRunLocation: 'ap-south-1' });

    const status = await vigil(['status'], { cwd: project, env: targetEnv(service.url) });
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/^api-check\.orphan\s+Nobody runs me\s+not executed\s+\S+\s+ap-south-1$/m);
    expect(status.stdout).toContain('  api-check.orphan: not executed: no agent of location ap-south-1 is connected and the location is not run by the service itself');

    // The killed agent is reported gone after two lease periods; the others are live.
    await waitFor('agent-a reported gone', async () => ((await agentList()).find((agent) => agent.agentId === 'agent-a')?.state === 'gone' ? true : undefined));
    const listed = await vigil(['status', '--agents'], { cwd: project, env: targetEnv(service.url) });
    expect(listed.code).toBe(1);
    const rows = listed.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^AGENT\s+LOCATION\s+STATE\s+LAST SEEN\s+IN FLIGHT\s+VERSION$/);
    expect(rows.slice(1).map((row) => row.split(/\s+/).slice(0, 3).join(' '))).toEqual(['agent-a eu-west-1 gone', 'agent-b eu-west-1 live', 'agent-c us-east-1 live']);

    // SIGTERM: the agents finish what they run, report it and exit 0; after that no result changes.
    for (const id of ['agent-b', 'agent-c']) {
      const agent = agents.get(id)!;
      agent.child.kill('SIGTERM');
      expect(await agent.exited).toBe(0);
      expect(agent.stderr()).toContain(`vigil agent ${id} (${id === 'agent-c' ? 'us-east-1' : 'eu-west-1'}): stopping`);
    }

    // Nothing lost, nothing doubled: one result per slot (and location), slots 10 s apart without a gap.
    const slow = (await results(slowId!)).sort((a, b) => a.checkRunId - b.checkRunId);
    const executed = slow.filter((result) => result.notExecuted === undefined);
    expect(new Set(slow.map((result) => result.checkRunId)).size).toBe(slow.length);
    expect(slow.slice(1).map((result, index) => result.checkRunId - slow[index]!.checkRunId)).toEqual(slow.slice(1).map(() => 10));
    expect(executed.every((result) => result.runLocation === 'eu-west-1')).toBe(true);
    // The killed run hit the target twice (agent-a, then agent-b); every other executed run once.
    expect(slowHits).toBe(executed.length + 1);
    const allBoth = await results(bothId!);
    const runs = allBoth.map((result) => `${result.checkRunId}@${result.runLocation}`);
    expect(new Set(runs).size).toBe(runs.length);
    expect(okHits).toBeGreaterThanOrEqual(allBoth.filter((result) => result.notExecuted === undefined).length);
  }, 240_000);
});
