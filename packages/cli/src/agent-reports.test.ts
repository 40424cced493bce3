// The service's agent routes are not part of @vigil/server's API, so they are imported by path.
import { createApp } from '@vigil/server';
import { RUN_WIRE_VERSION, type RunJob as WireRunJob, type RunReport } from '@vigil/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { reportRecorder } from '../../server/src/scheduler/execute.js';
import { AgentHub } from '../../server/src/agents/hub.js';
import { AgentKeyRing } from '../../server/src/agents/keys.js';
import { registerAgentRoutes } from '../../server/src/agents/routes.js';
import { ReportCourier } from './agent-reports.js';

const KEY = 'eu-agent-key-0123456789';
const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A service with its agent routes, `runs` runs (of as many checks) leased to agent-1, and a courier posting to it. */
async function world(runs: number) {
  const service = createApp();
  const hub = new AgentHub({ ports: service.repositories.ports, leaseMs: 30_000 });
  const keys = new AgentKeyRing([{ location: 'eu-west-1', key: KEY }]);
  registerAgentRoutes(service.app, { hub, keys: () => keys });
  hub.start(reportRecorder({ store: service.store }));
  closers.push(() => {
    hub.stop();
    service.close();
  });
  // A check each: a newer slot of the same check replaces one no agent started yet.
  const checkIds: string[] = [];
  for (let run = 0; run < runs; run++) {
    const checkId = String(service.store.checks.insert('local', (id) => ({ id, name: 'Shop', checkType: 'API', activated: true, locations: ['eu-west-1'] })).id);
    checkIds.push(checkId);
    const dueMs = 1_700_000_000_000 + run * 60_000;
    hub.enqueue({ slot: { accountId: 'local', checkId, dueMs, location: 'eu-west-1', key: `${checkId}@${dueMs}@eu-west-1` }, check: { id: checkId, name: 'Shop', checkType: 'API' } });
  }
  const leased = await hub.poll({ agentId: 'agent-1', wireVersion: RUN_WIRE_VERSION, agentVersion: 't', location: 'eu-west-1', capacity: runs, leases: [] }, { queue: 'eu-west-1', location: 'eu-west-1' });
  const bodies: Array<Record<string, unknown>> = [];
  const lines: string[] = [];
  const courier = new ReportCourier({
    agentId: 'agent-1',
    post: async (body, signal) => {
      bodies.push(JSON.parse(body) as Record<string, unknown>);
      return service.app.request('/v1/agent/results', { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body, signal });
    },
    leaseMs: () => 30_000,
    maxBackoffMs: 1000,
    label: 'agent-1',
    log: (line) => lines.push(line),
  });
  const stored = async () => (await Promise.all(checkIds.map((checkId) => service.repositories.ports.checkResults.facts('local', checkId, 0, Date.now() + 1)))).reduce((sum, facts) => sum + facts.length, 0);
  return { leased, courier, bodies, lines, stored };
}

function reportOf(job: WireRunJob): RunReport {
  const at = new Date(job.dueMs).toISOString();
  const final = {
    id: 'r1', name: 'Shop', checkId: job.checkId, hasFailures: false, hasErrors: false, isDegraded: false, overMaxResponseTime: false,
    runLocation: 'eu-west-1', startedAt: at, stoppedAt: at, created_at: at, responseTime: 12,
    apiCheckResult: null, browserCheckResult: null, multiStepCheckResult: null,
    checkRunId: Math.floor(job.dueMs / 1000), attempts: 0, resultType: 'FINAL' as const, sequenceId: null, error: null,
  };
  return { wireVersion: RUN_WIRE_VERSION, key: job.key, attempts: [], final };
}

describe('ReportCourier', () => {
  it('sends the first report at once and those that finish meanwhile together in the next request, each recorded once', async () => {
    const { leased, courier, bodies, lines, stored } = await world(3);
    courier.reportsPerRequest = 50;
    const never = new AbortController().signal;
    await Promise.all(leased.map((run) => courier.deliver(run.leaseId, reportOf(run.job), never)));
    expect(bodies.map((body) => (body['reports'] as Array<{ leaseId: string }>).map((entry) => entry.leaseId))).toEqual([[leased[0]!.leaseId], [leased[1]!.leaseId, leased[2]!.leaseId]]);
    expect(await stored()).toBe(3);
    expect(lines).toEqual([]);
    // A repeated report is answered 409 on its own and dropped with a line.
    await courier.deliver(leased[1]!.leaseId, reportOf(leased[1]!.job), never);
    expect(lines).toEqual([`agent-1: result of ${leased[1]!.job.key} not recorded: run ${leased[1]!.job.key} already has its result; this one is not recorded`]);
    expect(await stored()).toBe(3);
  });

  it("posts one report per request in the single-report body to a service that did not say it takes several", async () => {
    const { leased, courier, bodies, stored } = await world(2);
    const never = new AbortController().signal;
    await Promise.all(leased.map((run) => courier.deliver(run.leaseId, reportOf(run.job), never)));
    expect(bodies.map((body) => [body['leaseId'], 'report' in body])).toEqual(leased.map((run) => [run.leaseId, true]));
    expect(await stored()).toBe(2);
  });
});
