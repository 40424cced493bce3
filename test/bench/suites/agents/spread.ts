/**
 * Many API checks every minute spread over three runner agents, against the same checks run by
 * the service's in-process runner, measured in the same invocation. Both variants: a fresh
 * `vigil server` (own process, own data directory), the same loopback target, the same checks
 * (one location, eu-west-1, every check every minute), the same measured window.
 *
 * - in-process: the server runs eu-west-1 itself, as without any agent flag;
 * - agents: the same server with `--local-locations none` and an agent key for eu-west-1, and
 *   three `vigil agent` processes (packages/cli/bin/vigil.mjs) of that one location, so every run
 *   is offered to three agents polling one queue: the spread is the server's leasing, and a run
 *   handed to two agents would show as a doubled slot.
 *
 * Read per run: start lag p50/p99 (the result's startedAt minus its slot's moment), slots lost or
 * doubled (the run fails if there is any), the server's CPU time per 1,000 runs, and for the agents
 * the runs each completed (the lease table, read after the server stopped), their CPU time
 * (utime + stime) and their peak resident memory (sampled every second).
 *
 * Size: `VIGIL_BENCH_AGENT_CHECKS` checks (default 5,000; 10,000 with `--full`), each agent with
 * `--concurrency VIGIL_BENCH_AGENT_CONCURRENCY` (default 10), `VIGIL_BENCH_MINUTES` measured
 * minutes (default 1).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Store } from '../../../../packages/server/src/store/index.js';
import { REPO_ROOT, startServiceProcess, VIGIL_BIN, type ServiceProcess } from '../../lib/service-process.js';
import { api, benchMinutes, cpuMsOf, createApiChecks, nextWholeMinutes, percentile, readWindowResults, rssMbOf, startLoopbackTarget, waitUntil, type MeasuredWindow } from '../../lib/scheduled-checks.js';
import { median, type BenchContext, type BenchFigure } from '../../harness.js';

const LOCATION = 'eu-west-1';
const AGENTS = 3;
/** An operator's key for the bench's location (at least 16 characters); never printed. */
const AGENT_KEY = 'bench-agent-key-eu-west-1';
const METRICS_TOKEN = 'bench-metrics-token';
/** After the window, how long the last slots' runs get to finish before results are counted. */
const SETTLE_LIMIT_MS = 60_000;

export interface SpreadSize {
  readonly checks: number;
  readonly concurrency: number;
  readonly minutes: number;
}

interface AgentUsage {
  readonly id: string;
  readonly runs: number;
  readonly cpuMs: number;
  readonly peakRssMb: number;
}

interface VariantMeasurement {
  readonly lagP50: number;
  readonly lagP99: number;
  readonly ran: number;
  readonly lostOrDoubled: number;
  readonly serverCpuMs: number;
  readonly serverPeakRssMb: number;
  readonly windowMs: number;
  /** Agents only. */
  readonly agents: readonly AgentUsage[];
  /** Agents only: runs handed out more than once (a lease expired before the report). */
  readonly handedOutAgain: number;
  /** The server and agents started from the CLI bundle (not the sources through tsx). */
  readonly fromBundle: boolean;
}

/**
 * Whether bin/vigil.mjs runs the CLI bundle now, or the sources through tsx (an edit newer than the
 * bundle): tsx costs every process memory and start-up time, so the figures say which ran.
 */
async function cliRunsFromBundle(): Promise<boolean> {
  if (process.env['VIGIL_FROM_SOURCE'] === '1') return false;
  const sources = (await import(path.join(REPO_ROOT, 'packages/cli/scripts/sources.mjs'))) as { bundleIsFresh(): boolean };
  return sources.bundleIsFresh();
}

function positiveInteger(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${process.env[name]}"`);
  return value;
}

export function spreadSize(context: BenchContext): SpreadSize {
  return {
    checks: positiveInteger('VIGIL_BENCH_AGENT_CHECKS', context.full ? 10_000 : 5_000),
    concurrency: positiveInteger('VIGIL_BENCH_AGENT_CONCURRENCY', 10),
    minutes: benchMinutes(1),
  };
}

interface AgentProcess {
  readonly id: string;
  readonly child: ChildProcess;
  /** What it wrote to stderr, for the error when something goes wrong. */
  readonly output: () => string;
  stop(): Promise<void>;
}

async function startAgent(serverUrl: string, id: string, concurrency: number): Promise<AgentProcess> {
  const child = spawn(process.execPath, [VIGIL_BIN, 'agent', '--server', serverUrl, '--location', LOCATION, '--concurrency', String(concurrency), '--id', id], {
    // The environment keeps the key out of ps.
    env: { ...process.env, VIGIL_AGENT_KEY: AGENT_KEY },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('connected to')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`vigil agent ${id} exited with ${code} before connecting: ${output}`)));
  });
  return {
    id,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A gauge's value in a Prometheus text body (the service-wide families have no labels). */
function gauge(body: string, name: string): number {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(body);
  return match ? Number(match[1]) : Number.NaN;
}

/** Waits until the service has no run executing or waiting (the window's last runs done), or the limit passed. */
async function settle(service: ServiceProcess): Promise<void> {
  const giveUpAt = Date.now() + SETTLE_LIMIT_MS;
  while (Date.now() < giveUpAt) {
    const body = await (await api(`${service.url}/metrics`, {}, METRICS_TOKEN)).text();
    if (gauge(body, 'vigil_scheduler_runs_in_flight') === 0 && gauge(body, 'vigil_scheduler_runs_queued') === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Runs each agent reported whose report was recorded within the window, and runs handed out more than once. */
function agentRunsOf(dataDir: string, { from, to }: MeasuredWindow): { runsByAgent: Map<string, number>; handedOutAgain: number } {
  const store = new Store(dataDir);
  try {
    const rows = store.db
      .prepare(`SELECT agent_id AS agentId, count(*) AS runs FROM agent_runs WHERE outcome = 'reported' AND finished_ms >= ? AND finished_ms < ? GROUP BY agent_id`)
      .all(from, to) as Array<{ agentId: string; runs: number }>;
    const again = store.db.prepare('SELECT count(*) AS count FROM agent_runs WHERE handouts > 1').get() as { count: number };
    return { runsByAgent: new Map(rows.map((row) => [row.agentId, row.runs])), handedOutAgain: again.count };
  } finally {
    store.close();
  }
}

async function measureVariant(context: BenchContext, size: SpreadSize, dataDir: string, variant: 'in-process' | 'agents'): Promise<VariantMeasurement> {
  const fromBundle = await cliRunsFromBundle();
  const target = await startLoopbackTarget();
  const agentFlags = variant === 'agents' ? ['--agent-key', `${LOCATION}=${AGENT_KEY}`, '--local-locations', 'none'] : [];
  const service = await startServiceProcess({ dataDir, scheduler: true, extraArgs: ['--metrics-token', METRICS_TOKEN, ...agentFlags] });
  const agents: AgentProcess[] = [];
  let serviceStopped = false;
  try {
    if (variant === 'agents') {
      for (let index = 1; index <= AGENTS; index++) agents.push(await startAgent(service.url, `bench-agent-${index}`, size.concurrency));
    }
    context.log(`agents (${variant}): creating ${size.checks} API checks every minute in ${LOCATION}`);
    const created = await createApiChecks(service.url, target.url, Array.from({ length: size.checks }, () => ({ frequency: 1, perMinute: 1 })), [LOCATION]);
    const window = nextWholeMinutes(size.minutes);
    context.log(`agents (${variant}): measuring ${size.minutes} minute(s) from ${new Date(window.from).toISOString()}${variant === 'agents' ? `, ${AGENTS} agents at --concurrency ${size.concurrency}` : ''}`);
    await waitUntil(window.from);
    const serverCpuBefore = cpuMsOf(service.pid!);
    const agentCpuBefore = agents.map((agent) => cpuMsOf(agent.child.pid!));
    const agentPeakRss = agents.map((agent) => rssMbOf(agent.child.pid!));
    let serverPeakRssMb = rssMbOf(service.pid!);
    while (Date.now() < window.to) {
      agents.forEach((agent, index) => (agentPeakRss[index] = Math.max(agentPeakRss[index]!, rssMbOf(agent.child.pid!))));
      serverPeakRssMb = Math.max(serverPeakRssMb, rssMbOf(service.pid!));
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000, Math.max(0, window.to - Date.now()))));
    }
    const serverCpuMs = cpuMsOf(service.pid!) - serverCpuBefore;
    const agentCpuMs = agents.map((agent, index) => cpuMsOf(agent.child.pid!) - agentCpuBefore[index]!);
    await settle(service);

    const slots = await readWindowResults(service.url, created, window);
    const lostOrDoubled = slots.missed + slots.doubled + slots.notExecuted;
    if (lostOrDoubled > 0) {
      throw new Error(`agents (${variant}): of ${size.checks * size.minutes} slots, ${slots.missed} have no result, ${slots.doubled} have more than one and ${slots.notExecuted} were recorded as not executed${agents.map((agent) => `\n${agent.id}: ${agent.output().slice(-2000)}`).join('')}`);
    }
    await Promise.all(agents.map((agent) => agent.stop()));
    serviceStopped = true;
    await service.stop();
    const { runsByAgent, handedOutAgain } = variant === 'agents' ? agentRunsOf(dataDir, window) : { runsByAgent: new Map<string, number>(), handedOutAgain: 0 };
    return {
      lagP50: percentile(slots.lags, 50),
      lagP99: percentile(slots.lags, 99),
      ran: slots.ran,
      lostOrDoubled,
      serverCpuMs,
      serverPeakRssMb,
      windowMs: window.to - window.from,
      agents: agents.map((agent, index) => ({ id: agent.id, runs: runsByAgent.get(agent.id) ?? 0, cpuMs: agentCpuMs[index]!, peakRssMb: agentPeakRss[index]! })),
      handedOutAgain,
      // Checked again at the end: an edit meanwhile makes the processes started after it run the sources.
      fromBundle: fromBundle && (await cliRunsFromBundle()),
    };
  } finally {
    await Promise.all(agents.map((agent) => agent.stop()));
    if (!serviceStopped) await service.stop();
    target.child.kill();
  }
}

export async function measureSpread(context: BenchContext): Promise<BenchFigure[]> {
  const size = spreadSize(context);
  const inProcess: VariantMeasurement[] = [];
  const withAgents: VariantMeasurement[] = [];
  for (let run = 0; run < context.runs; run++) {
    context.log(`agents: spread run ${run + 1} of ${context.runs}`);
    inProcess.push(await measureVariant(context, size, path.join(context.tmpDir, `in-process-${run}`), 'in-process'));
    withAgents.push(await measureVariant(context, size, path.join(context.tmpDir, `agents-${run}`), 'agents'));
    const last = withAgents.at(-1)!;
    context.log(
      `agents: run ${run + 1}: lag p99 ${inProcess.at(-1)!.lagP99} ms in-process, ${last.lagP99} ms with agents; ` +
        `per agent ${last.agents.map((agent) => `${agent.id} ${agent.runs} runs, ${(agent.cpuMs / 1000).toFixed(1)} CPU s, ${agent.peakRssMb.toFixed(0)} MB`).join('; ')}; handed out again ${last.handedOutAgain}; CLI from ${last.fromBundle ? 'the bundle' : 'the sources'}`,
    );
  }

  const all = [...inProcess, ...withAgents];
  const cli = all.every((one) => one.fromBundle) ? 'the CLI bundle' : all.some((one) => one.fromBundle) ? 'in some runs the CLI bundle, in others the sources through tsx' : 'the sources through tsx';
  const note = `${size.checks.toLocaleString('en-US')} API checks every minute in one location, ${size.minutes} measured minute(s) per run, loopback target; agents: ${AGENTS} vigil agent processes of that location at --concurrency ${size.concurrency}, the server with --local-locations none; server and agents ran ${cli}`;
  const baseline = (label: string, runs: number[]) => ({ label, runs });
  const inProcessLabel = 'the same checks run in-process';
  /** Per run, the median over the agents: one agent's share. */
  const perAgent = (pick: (agent: AgentUsage, measurement: VariantMeasurement) => number) => withAgents.map((measurement) => median(measurement.agents.map((agent) => pick(agent, measurement))));
  const serverCpuPer1000 = (measurement: VariantMeasurement) => (measurement.serverCpuMs / 1000) / (measurement.ran / 1000);
  return [
    { id: 'agents.spread-lag-p50', issue: 29, label: 'start lag p50, three agents', unit: 'ms', better: 'lower', runs: withAgents.map((one) => one.lagP50), baseline: baseline(inProcessLabel, inProcess.map((one) => one.lagP50)), note },
    { id: 'agents.spread-lag-p99', issue: 29, label: 'start lag p99, three agents', unit: 'ms', better: 'lower', runs: withAgents.map((one) => one.lagP99), baseline: baseline(inProcessLabel, inProcess.map((one) => one.lagP99)), note },
    { id: 'agents.spread-lost-or-doubled', issue: 29, label: 'slots lost or doubled, three agents', unit: 'slots', better: 'lower', runs: withAgents.map((one) => one.lostOrDoubled), baseline: baseline(inProcessLabel, inProcess.map((one) => one.lostOrDoubled)), goal: { text: '0', met: (value) => value === 0 }, note: 'every slot of the window counted: no result, more than one, or not executed; any fails the suite' },
    { id: 'agents.spread-runs-per-agent', issue: 29, label: 'runs completed per second, per agent', unit: 'runs/s', better: 'higher', runs: perAgent((agent, measurement) => agent.runs / (measurement.windowMs / 1000)), note: 'median of the three agents per run; reports recorded within the window (lease table)' },
    { id: 'agents.spread-runs-per-agent-core', issue: 29, label: 'runs per agent CPU-second (runs/s per agent core)', unit: 'runs', better: 'higher', runs: perAgent((agent) => agent.runs / (agent.cpuMs / 1000)), note: 'an agent\'s runs in the window over its utime + stime in the window; median of the three agents' },
    { id: 'agents.spread-agent-rss', issue: 29, label: 'agent resident memory, peak', unit: 'MB', better: 'lower', runs: withAgents.map((one) => Math.max(...one.agents.map((agent) => agent.peakRssMb))), note: 'VmRSS sampled every second over the window, the largest of the three agents' },
    { id: 'agents.spread-server-cpu', issue: 29, label: 'server CPU per 1,000 runs, three agents', unit: 's', better: 'lower', runs: withAgents.map(serverCpuPer1000), baseline: baseline(inProcessLabel, inProcess.map(serverCpuPer1000)), goal: { text: 'lower than in-process', met: (ours, theirs) => theirs !== undefined && ours < theirs }, note: 'utime + stime of the server process over the window per 1,000 runs of the window' },
    { id: 'agents.spread-server-rss', issue: 29, label: 'server resident memory, peak, three agents', unit: 'MB', better: 'lower', runs: withAgents.map((one) => one.serverPeakRssMb), baseline: baseline(inProcessLabel, inProcess.map((one) => one.serverPeakRssMb)), note: 'VmRSS sampled every second over the window' },
  ];
}
