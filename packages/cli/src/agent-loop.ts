/**
 * The loop of `vigil agent`: one long poll at a time for jobs (which also renews the leases of the
 * runs in flight), each job run with `runJob` and its report posted under its lease.
 *
 * - A poll asks for as many jobs as there are free run slots. With none free it is a heartbeat
 *   (capacity 0); when a run ends, that poll is cut short so the freed slot is offered at once.
 * - Reports go through a ReportCourier (agent-reports.ts): several per request when the service
 *   takes that, retried (network errors, 5xx) while their lease could still be current; a 409 means
 *   the run went to a peer or already has its result, and the report is dropped.
 * - The server unreachable: the poll is retried after a wait that doubles up to `maxBackoffMs`.
 */
import { AgentJobs, RUN_WIRE_VERSION, type AgentLeasedJob, type RunReport } from '@vigil/schema';
import { createRunner, runJob } from '@vigil/runner';
import { messageOf, ReportCourier } from './agent-reports.js';
import { CliError } from './errors.js';

export interface AgentLoopOptions {
  serverUrl: string;
  key: string;
  location: string;
  agentId: string;
  concurrency: number;
  denyNetworks: readonly string[];
  /** On stop, how long runs in flight get before they are abandoned. */
  drainMs: number;
  maxBackoffMs: number;
  version: string;
  stop: AbortSignal;
  log: (line: string) => void;
}

interface InFlight {
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

/** A refusal that no retry mends: the agent stops with it. */
class Refused extends CliError {}

export async function runAgent(options: AgentLoopOptions): Promise<void> {
  const { log } = options;
  // An agent runs the same tenants' checks all day: multi-step and browser runs reuse a warm
  // Playwright worker per tenant (as many as runs may be in flight, at least two).
  const runner = createRunner({ denyNetworks: options.denyNetworks, playwrightWarmWorkers: Math.max(2, options.concurrency) });
  const inFlight = new Map<string, InFlight>();
  let leaseMs = 30_000;
  let backoffMs = 500;
  let connected = false;
  /** Cuts short a heartbeat poll when a slot frees up. */
  let heartbeat: AbortController | undefined;
  const label = `vigil agent ${options.agentId} (${options.location})`;

  const post = (path: string, body: string, signal: AbortSignal) =>
    fetch(`${options.serverUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' },
      body,
      signal,
    });
  const courier = new ReportCourier({
    agentId: options.agentId,
    post: (body, signal) => post('/v1/agent/results', body, signal),
    leaseMs: () => leaseMs,
    maxBackoffMs: options.maxBackoffMs,
    label,
    log,
  });

  const start = (leased: AgentLeasedJob) => {
    const controller = new AbortController();
    const done = (async () => {
      try {
        const report = await runJob(runner, leased.job, controller.signal);
        if (controller.signal.aborted) return;
        await courier.deliver(leased.leaseId, report as RunReport, controller.signal);
      } catch (error) {
        if (!controller.signal.aborted) log(`${label}: run ${leased.job.key} failed inside the agent: ${(error as Error).message}`);
      } finally {
        inFlight.delete(leased.leaseId);
        heartbeat?.abort();
      }
    })();
    inFlight.set(leased.leaseId, { controller, done });
  };

  try {
    while (!options.stop.aborted) {
      const capacity = options.concurrency - inFlight.size;
      const poll = new AbortController();
      if (capacity === 0) heartbeat = poll;
      const onStop = () => poll.abort();
      options.stop.addEventListener('abort', onStop, { once: true });
      try {
        const response = await post('/v1/agent/jobs', JSON.stringify({ agentId: options.agentId, wireVersion: RUN_WIRE_VERSION, agentVersion: options.version, location: options.location, capacity, leases: [...inFlight.keys()] }), poll.signal);
        if (!connected) {
          connected = true;
          log(`${label}: connected to ${options.serverUrl}, running up to ${options.concurrency} at once`);
        }
        backoffMs = 500;
        if (response.status === 204) continue;
        if (response.ok) {
          const answer = AgentJobs.safeParse(await response.json());
          if (!answer.success) throw new Error('the server answered jobs this agent cannot read; is it another vigil version?');
          leaseMs = answer.data.leaseMs;
          courier.reportsPerRequest = answer.data.reportsPerRequest ?? 0;
          for (const leased of answer.data.jobs) start(leased);
          continue;
        }
        const message = await messageOf(response);
        if (response.status === 400 || response.status === 401 || response.status === 403) {
          throw new Refused(`${label}: the server refused this agent (${response.status}): ${message}`);
        }
        throw new Error(`HTTP ${response.status}: ${message}`);
      } catch (error) {
        if (error instanceof Refused) throw error;
        if (options.stop.aborted || (poll.signal.aborted && heartbeat === poll)) continue;
        connected = false;
        log(`${label}: cannot reach ${options.serverUrl} (${(error as Error).message}); retrying in ${(backoffMs / 1000).toFixed(1)} s`);
        await sleep(backoffMs, options.stop);
        backoffMs = Math.min(backoffMs * 2, options.maxBackoffMs);
      } finally {
        options.stop.removeEventListener('abort', onStop);
        if (heartbeat === poll) heartbeat = undefined;
      }
    }
    log(`${label}: stopping; ${inFlight.size} run(s) in flight get ${options.drainMs / 1000} s to finish`);
  } finally {
    await drain(inFlight, options.drainMs, log, label);
    courier.close();
    await runner.close();
  }
}

/** Waits for the runs in flight up to `drainMs`, then abandons the rest (their leases expire). */
async function drain(inFlight: Map<string, InFlight>, drainMs: number, log: (line: string) => void, label: string): Promise<void> {
  if (inFlight.size === 0) return;
  const all = Promise.all([...inFlight.values()].map((run) => run.done));
  const timedOut = await Promise.race([all.then(() => false), sleep(drainMs).then(() => true)]);
  if (!timedOut) return;
  log(`${label}: abandoned ${inFlight.size} run(s); their leases expire and another agent of the location runs them`);
  for (const run of inFlight.values()) run.controller.abort();
  await Promise.race([all, sleep(1000)]);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
