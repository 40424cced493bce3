/**
 * The service monitors: `vigil server` with its scheduler on, N API checks every minute
 * against a loopback target in its own process. Figures: start lag (when a run started minus the
 * moment its slot was due, to the millisecond) p50/p99, missed slots, the server's CPU, `GET /v1/checks` and
 * check-results p99 while it runs, and the size of a passing result: stored (table and index pages
 * per result, SQLite dbstat, read from the data directory after the server stopped) and as served.
 *
 * Quick mode: the issue's mix, 1,000 checks every minute plus 100 every 10 seconds, measured for
 * one minute, or for `VIGIL_BENCH_MINUTES` minutes (the issue asks for 10). `--full`: 10,000 checks
 * every minute (167 runs/s) for four measured minutes (or `VIGIL_BENCH_MINUTES`). Each of `--runs`
 * is a whole measurement of its own (a fresh service, data directory and target); figures are medians. Checks are created before the measured window
 * opens; the window starts at the next whole minute after that.
 */
import path from 'node:path';
import { Store } from '../../../packages/server/src/store/index.js';
import { startServiceProcess } from '../lib/service-process.js';
import { benchMinutes, cpuMsOf, createApiChecks, nextWholeMinutes, percentile, probeApiUntil, readWindowResults, startLoopbackTarget, waitUntil, type CheckSchedule } from '../lib/scheduled-checks.js';
import { storedBytesPerResult } from './analytics.js';
import { median, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';

/** The checks scheduled and how long they are measured (the replicas suite measures the same). */
export interface Load {
  checks: number;
  fastChecks: number;
  measuredMinutes: number;
}

/** Quick mode's mix or `--full`'s 10,000 checks (the file's comment says which). */
export function loadOf(context: BenchContext): Load {
  return {
    checks: context.full ? 10_000 : 1_000,
    fastChecks: context.full ? 0 : 100,
    measuredMinutes: benchMinutes(context.full ? 4 : 1),
  };
}

/** The checks to create for a load: each every minute, then each every 10 s. */
export function planOf({ checks, fastChecks }: Load): CheckSchedule[] {
  return [
    ...Array.from({ length: checks }, () => ({ frequency: 1, perMinute: 1 })),
    ...Array.from({ length: fastChecks }, () => ({ frequency: 0, frequencyOffset: 10, perMinute: 6 })),
  ];
}

/** One run's figures: a fresh service, data directory and target each time. */
export interface Measurement {
  lagP50: number;
  lagP99: number;
  missed: number;
  cpuPercent: number;
  listP50: number;
  listP99: number;
  resultsP50: number;
  resultsP99: number;
  storedBytes: number;
  storedResults: number;
  resultSize: number;
}

export const suite: BenchSuite = {
  name: 'scheduler',
  issue: 18,
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const load = loadOf(context);
    const measured: Measurement[] = [];
    for (let run = 0; run < context.runs; run++) {
      context.log(`scheduler: run ${run + 1} of ${context.runs}`);
      measured.push(await measure(context, load, path.join(context.tmpDir, `data-${run}`)));
    }
    const { checks, fastChecks, measuredMinutes } = load;
    const note = `${checks} API checks every minute${fastChecks > 0 ? ` + ${fastChecks} every 10 s` : ''}, ${measuredMinutes} measured minute(s) per run, loopback target`;
    const runsOf = (pick: (one: Measurement) => number) => measured.map(pick);
    return [
      { id: 'scheduler.lag-p50', issue: 18, label: 'start lag p50', unit: 'ms', better: 'lower', runs: runsOf((one) => one.lagP50), note },
      { id: 'scheduler.lag-p99', issue: 18, label: 'start lag p99', unit: 'ms', better: 'lower', runs: runsOf((one) => one.lagP99), goal: { text: '≤ 2,000 ms (10,000 checks), ≤ 1,000 ms (1,000)', met: (value) => value <= (checks >= 10_000 ? 2000 : 1000) }, note },
      { id: 'scheduler.missed', issue: 18, label: 'missed slots', unit: 'slots', better: 'lower', runs: runsOf((one) => one.missed), goal: { text: '0', met: (value) => value === 0 }, note },
      { id: 'scheduler.cpu', issue: 18, label: 'server CPU while scheduling', unit: '%', better: 'lower', runs: runsOf((one) => one.cpuPercent), note: `${note}; 100 % = one core` },
      { id: 'scheduler.list-p99', issue: 18, label: 'GET /v1/checks?limit=100 p99 meanwhile', unit: 'ms', better: 'lower', runs: runsOf((one) => one.listP99), goal: { text: '≤ 50 ms', met: (value) => value <= 50 }, note },
      { id: 'scheduler.results-p99', issue: 18, label: 'GET /v1/check-results p99 meanwhile', unit: 'ms', better: 'lower', runs: runsOf((one) => one.resultsP99), goal: { text: '≤ 50 ms', met: (value) => value <= 50 }, note },
      { id: 'scheduler.result-stored-size', issue: 18, label: 'stored size per passing result (table + index pages)', unit: 'bytes', better: 'lower', runs: runsOf((one) => one.storedBytes), goal: { text: '≤ 500 bytes', met: (value) => value <= 500 }, note: `${median(runsOf((one) => one.storedResults))} results the runner made per run, all passing; SQLite dbstat pages of check_results and its indexes` },
      { id: 'scheduler.result-size', issue: 18, label: 'size of a passing result as served', unit: 'bytes', better: 'lower', runs: runsOf((one) => one.resultSize), note: 'the JSON the API serves: the stored row decoded; a passing run keeps no response body or headers' },
    ];
  },
};

/** One run on SQLite: also the baseline of the replicas suite, which measures PostgreSQL replicas beside it. */
export async function measure(context: BenchContext, load: Load, dataDir: string): Promise<Measurement> {
  const target = await startLoopbackTarget();
  const service = await startServiceProcess({ dataDir, scheduler: true });
  let stopped = false;
  try {
    context.log(`scheduler: creating ${load.checks} API checks every minute and ${load.fastChecks} every 10 s`);
    const created = await createApiChecks(service.url, target.url, planOf(load), ['eu-west-1']);
    const ids = created.map((check) => check.id);
    const window = nextWholeMinutes(load.measuredMinutes);
    const { from, to } = window;
    context.log(`scheduler: measuring ${load.measuredMinutes} minute(s) from ${new Date(from).toISOString()}`);
    await waitUntil(from);
    const cpuBefore = cpuMsOf(service.pid!);
    const latencies = await probeApiUntil(service.url, ids, to);
    const cpuMs = cpuMsOf(service.pid!) - cpuBefore;
    // Runs of the last slots may still be going; give them a moment before counting.
    await new Promise((resolve) => setTimeout(resolve, 5_000));

    const { lags, missed, results } = await readWindowResults(service.url, created, window);
    const sizes = results.filter((result) => !result.hasFailures).map((result) => Buffer.byteLength(JSON.stringify(result)));
    stopped = true;
    await service.stop();
    // Every run of this suite passes (the target always answers 200), so this is per passing result.
    const store = new Store(dataDir);
    const stored = storedBytesPerResult(store);
    store.close();
    return {
      lagP50: percentile(lags, 50),
      lagP99: percentile(lags, 99),
      missed,
      cpuPercent: (100 * cpuMs) / (to - from),
      listP50: percentile(latencies.list, 50),
      listP99: percentile(latencies.list, 99),
      resultsP50: percentile(latencies.results, 50),
      resultsP99: percentile(latencies.results, 99),
      storedBytes: stored.bytes,
      storedResults: stored.results,
      resultSize: median(sizes),
    };
  } finally {
    if (!stopped) await service.stop();
    target.child.kill();
  }
}
