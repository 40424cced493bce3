/**
 * The scheduler against a slow target: 2,000 API checks every 20 s (100 runs due a second) against
 * a loopback target that answers each request after one second. The runs wait on the network, not
 * on the CPU, so keeping up takes about 100 runs in flight (Little's law: 100/s × 1 s).
 *
 * Figures: the share of due slots that ran, start lag p50/p99 (from each result's `startedAt` to its
 * slot's moment), the most runs in flight and queued (sampled from `GET /metrics` every second), the
 * server's resident memory (peak, and its growth across the window) and its CPU.
 *
 * Baseline in the same run: the same service held at a fixed 50 runs in flight
 * (`--max-runs-in-flight 50`). `VIGIL_BENCH_SLOW_BASELINE=off` skips it (to measure a build that
 * has no such flag). `VIGIL_BENCH_MINUTES` sets the measured minutes per run (default 1).
 * `VIGIL_BENCH_SLOW_ENGINE=postgres` runs each service on a database of its own on a durable embedded
 * PostgreSQL on loopback; its CPU is then the service process's only, PostgreSQL's reported apart.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../../packages/server/src/store/postgres/embedded.js';
import { nextDueMs } from '../../../packages/server/src/scheduler/slots.js';
import { startServiceProcess } from '../lib/service-process.js';
import { api, benchMinutes, cpuMsOf, cpuMsOfTree, percentile, postmasterPid, rssMbOf } from '../lib/scheduled-checks.js';
import type { BenchContext, BenchFigure, BenchSuite } from '../harness.js';

const METRICS_TOKEN = 'bench-metrics-token';
const CHECKS = 2_000;
const PERIOD_MS = 20_000;
const TARGET_DELAY_MS = 1_000;
const ENGINE = process.env['VIGIL_BENCH_SLOW_ENGINE'] === 'postgres' ? 'postgres' : 'sqlite';

const TARGET_SOURCE = `
const http = require('node:http');
const body = JSON.stringify({ status: 'up' });
const server = http.createServer((request, response) => {
  setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end(body), ${TARGET_DELAY_MS});
});
server.keepAliveTimeout = 1;
server.maxConnections = 10000;
server.listen(0, '127.0.0.1', 1024, () => process.stdout.write(server.address().port + '\\n'));
`;

async function startTarget(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', TARGET_SOURCE], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return { url: `http://127.0.0.1:${chunk.toString().trim()}`, child };
}

/** A gauge's value in a Prometheus text body (the service-wide families have no labels). */
function gauge(body: string, name: string): number {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(body);
  return match ? Number(match[1]) : Number.NaN;
}

interface Measurement {
  ranPercent: number;
  lagP50: number;
  lagP99: number;
  mostInFlight: number;
  mostQueued: number;
  peakRssMb: number;
  rssGrowthMbPerMin: number;
  cpuPercent: number;
  databaseCpuPercent: number;
}

const FIGURES: ReadonlyArray<{ key: keyof Measurement; label: string; unit: string; better: 'lower' | 'higher'; goal?: BenchFigure['goal'] }> = [
  { key: 'ranPercent', label: 'due slots that ran', unit: '%', better: 'higher', goal: { text: '100 %', met: (value) => value >= 100 } },
  { key: 'lagP50', label: 'start lag p50', unit: 'ms', better: 'lower' },
  { key: 'lagP99', label: 'start lag p99', unit: 'ms', better: 'lower', goal: { text: '≤ 1,000 ms', met: (value) => value <= 1000 } },
  { key: 'mostInFlight', label: 'most runs in flight (sampled every second)', unit: 'runs', better: 'higher' },
  { key: 'mostQueued', label: 'most runs queued (sampled every second)', unit: 'runs', better: 'lower' },
  { key: 'peakRssMb', label: 'server peak resident memory', unit: 'MB', better: 'lower' },
  { key: 'rssGrowthMbPerMin', label: 'server resident memory growth across the window', unit: 'MB/min', better: 'lower' },
  { key: 'cpuPercent', label: 'server CPU while scheduling', unit: '%', better: 'lower' },
  ...(ENGINE === 'postgres' ? [{ key: 'databaseCpuPercent' as const, label: 'PostgreSQL CPU while scheduling (the postmaster and its children)', unit: '%', better: 'lower' as const }] : []),
];

export const suite: BenchSuite = {
  name: 'scheduler-slow',
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const minutes = benchMinutes(1);
    const withBaseline = process.env['VIGIL_BENCH_SLOW_BASELINE'] !== 'off';
    const ours: Measurement[] = [];
    const fixed: Measurement[] = [];
    for (let run = 0; run < context.runs; run++) {
      context.log(`scheduler-slow: run ${run + 1} of ${context.runs}`);
      ours.push(await measure(context, minutes, path.join(context.tmpDir, `data-${run}`), []));
      if (withBaseline) fixed.push(await measure(context, minutes, path.join(context.tmpDir, `fixed-${run}`), ['--max-runs-in-flight', '50']));
    }
    const storage = ENGINE === 'postgres' ? 'durable embedded PostgreSQL on loopback' : 'SQLite (on-disk WAL)';
    const note = `${CHECKS} API checks every 20 s (100 runs due a second), target answering after ${TARGET_DELAY_MS} ms, ${minutes} measured minute(s) per run, ${storage}`;
    return FIGURES.map(({ key, label, unit, better, goal }) => ({
      id: `scheduler-slow.${key}`,
      label,
      unit,
      better,
      runs: ours.map((one) => one[key]),
      ...(withBaseline ? { baseline: { label: 'fixed 50 runs in flight', runs: fixed.map((one) => one[key]) } } : {}),
      ...(goal ? { goal } : {}),
      note: key === 'cpuPercent' || key === 'databaseCpuPercent' ? `${note}; 100 % = one core` : note,
    }));
  },
};

async function measure(context: BenchContext, minutes: number, dataDir: string, extraArgs: readonly string[]): Promise<Measurement> {
  // Under the system's temp directory: as root, PostgreSQL runs as its own user, who cannot enter the run's private one.
  const pgDir = ENGINE === 'postgres' ? await mkdtemp(path.join(os.tmpdir(), 'vigil-bench-slow-pg-')) : undefined;
  const postgres = pgDir ? await startEmbeddedPostgres({ dir: pgDir, port: 0, durable: true }) : undefined;
  try {
    const storage = postgres ? { database: await postgres.createDatabase('bench') } : { dataDir };
    const postmaster = pgDir ? postmasterPid(pgDir) : undefined;
    return await measureOn(context, minutes, storage, extraArgs, postmaster === undefined ? () => 0 : () => cpuMsOfTree(postmaster));
  } finally {
    await postgres?.stop();
    if (pgDir) await rm(pgDir, { recursive: true, force: true });
  }
}

async function measureOn(
  context: BenchContext,
  minutes: number,
  storage: { dataDir: string } | { database: string },
  extraArgs: readonly string[],
  databaseCpuMs: () => number,
): Promise<Measurement> {
  const target = await startTarget();
  const service = await startServiceProcess({ ...storage, scheduler: true, extraArgs: ['--metrics-token', METRICS_TOKEN, ...extraArgs] });
  try {
    context.log(`scheduler-slow: creating ${CHECKS} API checks every 20 s${extraArgs.length > 0 ? ` (${extraArgs.join(' ')})` : ''}`);
    const created: Array<{ id: string; frequencyOffset?: number }> = [];
    for (let index = 0; index < CHECKS; index += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, CHECKS - index) }, async (_, offset) => {
          const response = await api(`${service.url}/v1/checks/api?autoAssignAlerts=false`, {
            method: 'POST',
            body: JSON.stringify({
              name: `slow${index + offset}`,
              frequency: 0,
              frequencyOffset: PERIOD_MS / 1000,
              locations: ['eu-west-1'],
              doubleCheck: false,
              retryStrategy: null,
              maxResponseTime: 10_000,
              request: { method: 'GET', url: `${target.url}/c/${index + offset}`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
            }),
          });
          if (response.status !== 201) throw new Error(`create answered ${response.status}: ${await response.text()}`);
          const stored = (await response.json()) as { id: string; frequencyOffset?: number };
          return { id: stored.id, ...(stored.frequencyOffset !== undefined ? { frequencyOffset: stored.frequencyOffset } : {}) };
        }),
      );
      created.push(...batch);
    }
    // A whole period of warm-up at least, so the window starts with the service in its steady state.
    const from = Math.ceil((Date.now() + PERIOD_MS) / PERIOD_MS) * PERIOD_MS;
    const to = from + minutes * 60_000;
    context.log(`scheduler-slow: measuring ${minutes} minute(s) from ${new Date(from).toISOString()}`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, from - Date.now())));
    const pid = service.pid!;
    const cpuBefore = cpuMsOf(pid);
    const databaseCpuBefore = databaseCpuMs();
    const rssBefore = rssMbOf(pid);
    let peakRssMb = rssBefore;
    let mostInFlight = 0;
    let mostQueued = 0;
    while (Date.now() < to) {
      const body = await (await api(`${service.url}/metrics`, {}, METRICS_TOKEN)).text();
      mostInFlight = Math.max(mostInFlight, gauge(body, 'vigil_scheduler_runs_in_flight'));
      mostQueued = Math.max(mostQueued, gauge(body, 'vigil_scheduler_runs_queued'));
      peakRssMb = Math.max(peakRssMb, rssMbOf(pid));
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const cpuMs = cpuMsOf(pid) - cpuBefore;
    const databaseCpu = databaseCpuMs() - databaseCpuBefore;
    const rssGrowthMbPerMin = (rssMbOf(pid) - rssBefore) / minutes;
    // Runs of the window's last slots may still be going or waiting: give them time to end.
    await new Promise((resolve) => setTimeout(resolve, 3 * TARGET_DELAY_MS + 2_000));

    const lags: number[] = [];
    let ran = 0;
    for (const { id, frequencyOffset } of created) {
      const results = (await (await api(`${service.url}/v1/check-results/${id}?limit=100&from=${Math.floor(from / 1000) - 60}&to=${Math.ceil(to / 1000) + 60}`)).json()) as Array<{ startedAt: string; checkRunId: number }>;
      for (const result of results) {
        if (result.checkRunId * 1000 < from || result.checkRunId * 1000 >= to) continue;
        ran++;
        const dueMs = nextDueMs({ id, frequency: 0, frequencyOffset: frequencyOffset ?? PERIOD_MS / 1000 }, result.checkRunId * 1000);
        lags.push(Date.parse(result.startedAt) - dueMs);
      }
    }
    const due = CHECKS * ((to - from) / PERIOD_MS);
    return {
      ranPercent: (100 * ran) / due,
      lagP50: percentile(lags, 50),
      lagP99: percentile(lags, 99),
      mostInFlight,
      mostQueued,
      peakRssMb,
      rssGrowthMbPerMin,
      cpuPercent: (100 * cpuMs) / (to - from),
      databaseCpuPercent: (100 * databaseCpu) / (to - from),
    };
  } finally {
    await service.stop();
    target.child.kill();
  }
}
