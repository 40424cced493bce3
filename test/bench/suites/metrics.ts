/**
 * `GET /metrics` at 10,000 checks: the server time of one scrape by the operator's token (every
 * account's checks), from the request to the last byte of the body, over loopback from a client in
 * the same process (@hono/node-server writes the body as `vigil server` does; decoding the text is
 * the scraper's work, not timed), and to the first byte of the body. Two cases:
 * - **statuses only**: each check's last run stored, nothing else, nothing changing between
 *   scrapes (the case first measured, kept so the figures compare);
 * - **running**: each check has also run once in this process (its run counters and response-time
 *   histogram exist: 19 series a check with the default 6 buckets), and between two scrapes a
 *   quarter of the checks store a new result, as 10,000 checks every minute do in a 15 s scrape
 *   interval. The writes are not timed; the scrape after them must show them (it is checked), so
 *   no cache can serve it stale.
 * The CPU time per scrape is the figure least moved by other work on the machine.
 * VIGIL_BENCH_METRICS_BUCKETS=LIST measures the server started with `--metrics-buckets LIST`.
 */
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createApp, type ServiceApp } from '../../../packages/server/src/app.js';
import { parseResponseTimeBuckets } from '../../../packages/server/src/metrics/response-time-buckets.js';
import { statusesOf } from '../../../packages/server/src/readside/statuses.js';
import { median, repeat, timeMs, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';

const CHECKS = 10_000;
const SCRAPES_PER_RUN = 20;
/** Checks that store a new result between two scrapes in the running case. */
const CHANGED_PER_SCRAPE = CHECKS / 4;
const TOKEN = 'bench-metrics-token';

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

interface Measured {
  medians: number[];
  p99s: number[];
  /** Median time from the request to the first byte of the body. */
  firstBytes: number[];
  /** Median CPU time of the process per scrape (all its threads: the garbage collector's too). */
  cpus: number[];
  bytes: number;
}

async function measure(context: BenchContext, running: boolean): Promise<Measured> {
  const p99s: number[] = [];
  const firstBytes: number[] = [];
  const cpus: number[] = [];
  let bytes = 0;
  const medians = await repeat(context.runs, async (run) => {
    const buckets = process.env['VIGIL_BENCH_METRICS_BUCKETS'];
    const service = createApp({ accounts: [{ apiKey: 'k', accountId: 'acme' }], metricsToken: TOKEN, ...(buckets === undefined ? {} : { metricsBuckets: parseResponseTimeBuckets(buckets) }), dataDir: path.join(context.tmpDir, `${running ? 'running' : 'statuses'}-${run}`) });
    try {
      const checkIds = createChecks(service);
      let round = 0;
      const store = (from: number, count: number) => storeResults(service, checkIds, from, count, round, running);
      store(0, CHECKS);
      const server = await listen(service);
      const agent = new http.Agent({ keepAlive: true });
      const scrape = async () => {
        const response = await get(server, agent);
        if (response.status !== 200) throw new Error(`metrics: scrape answered ${response.status}: ${Buffer.concat(response.chunks).toString('utf8', 0, 200)}`);
        bytes = response.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
        return response;
      };
      await scrape(); // warm-up: prepared statements, the check catalog, process metrics' first collection
      const times: number[] = [];
      const firstByteTimes: number[] = [];
      const cpuTimes: number[] = [];
      for (let index = 0; index < SCRAPES_PER_RUN; index += 1) {
        let chunks: Buffer[] = [];
        if (running) {
          round += 1;
          store((index * CHANGED_PER_SCRAPE) % CHECKS, CHANGED_PER_SCRAPE);
        }
        const cpuBefore = process.cpuUsage();
        const started = process.hrtime.bigint();
        times.push(await timeMs(async () => {
          const response = await scrape();
          chunks = response.chunks;
          firstByteTimes.push(Number(response.firstByteAt - started) / 1e6);
        }));
        const cpu = process.cpuUsage(cpuBefore);
        cpuTimes.push((cpu.user + cpu.system) / 1000);
        const first = (index * CHANGED_PER_SCRAPE) % CHECKS;
        if (running) assertFresh(chunks, checkIds[first]!, round);
      }
      p99s.push(percentile(times, 99));
      firstBytes.push(median(firstByteTimes));
      cpus.push(median(cpuTimes));
      agent.destroy();
      await new Promise((resolve) => server.close(resolve));
      return median(times);
    } finally {
      service.close();
    }
  });
  return { medians, p99s, firstBytes, cpus, bytes };
}

type Serve = (options: { fetch: ServiceApp['app']['fetch']; port: number; hostname: string }, listening: () => void) => unknown;

/** The app behind @hono/node-server on a loopback port, as `vigil server` serves it. */
async function listen(service: ServiceApp): Promise<http.Server> {
  // A dependency of the server package, not of the benchmarks: resolved from there.
  const fromServer = createRequire(new URL('../../../packages/server/package.json', import.meta.url));
  const { serve } = (await import(pathToFileURL(fromServer.resolve('@hono/node-server')).href)) as { serve: Serve };
  return await new Promise((resolve) => {
    const server = serve({ fetch: service.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(server as http.Server));
  });
}

/**
 * GET /metrics over loopback, the body's chunks kept as they arrive (joining them is the scraper's
 * work, not timed), and when its first byte came.
 */
async function get(server: http.Server, agent: http.Agent): Promise<{ status: number; chunks: Buffer[]; firstByteAt: bigint }> {
  const { port } = server.address() as AddressInfo;
  return await new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/metrics', agent, headers: { authorization: `Bearer ${TOKEN}` } }, (response) => {
      const chunks: Buffer[] = [];
      let firstByteAt: bigint | undefined;
      response.on('data', (chunk: Buffer) => {
        firstByteAt ??= process.hrtime.bigint();
        chunks.push(chunk);
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, chunks, firstByteAt: firstByteAt ?? process.hrtime.bigint() }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

function createChecks(service: ServiceApp): string[] {
  const ids: string[] = [];
  service.store.transaction(() => {
    for (let index = 0; index < CHECKS; index += 1) {
      const check = service.store.checks.insert('acme', (id) => ({ id, name: `Check ${index}`, checkType: 'API', activated: true, tags: [`team-${index % 20}`, 'api'] }));
      ids.push(String(check.id));
    }
  });
  return ids;
}

/** Round `round`'s results of checks `from` to `from + count`: their statuses, and in the running case their runs counted. */
function storeResults(service: ServiceApp, checkIds: readonly string[], from: number, count: number, round: number, running: boolean): void {
  const statuses = statusesOf(service.store);
  const ended = new Date(Date.UTC(2030, 0, 1) + round * 60_000).toISOString();
  service.store.transaction(() => {
    for (let index = from; index < from + count; index += 1) {
      const checkId = checkIds[index]!;
      const failed = (index + round) % 50 === 0;
      const responseTime = 40 + ((index + round) % 100);
      statuses.record('acme', { name: `Check ${index}`, checkId, hasFailures: failed, hasErrors: false, isDegraded: false, responseTime, runLocation: 'eu-west-1', checkRunId: round, stoppedAt: ended });
      if (running) {
        service.metrics.runStored({ accountId: 'acme', checkId, location: 'eu-west-1', hasFailures: failed, hasErrors: false, isDegraded: false, responseTime });
      }
    }
  });
}

/**
 * The first check written before the scrape shows that write's end time. Searched in the bytes: a
 * decoded and split copy of 35 MiB would leave the next timed scrape a garbage collection to pay.
 */
function assertFresh(chunks: readonly Buffer[], checkId: string, round: number): void {
  const ended = (Date.UTC(2030, 0, 1) + round * 60_000) / 1000;
  const line = `\nvigil_check_last_run_timestamp_seconds{account="acme",check_id="${checkId}"} ${ended}\n`;
  if (Buffer.concat(chunks).indexOf(line) < 0) throw new Error(`metrics: the scrape after round ${round} did not show ${line.trim()}`);
}

export const suite: BenchSuite = {
  name: 'metrics',
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const statusesOnly = await measure(context, false);
    const running = await measure(context, true);
    const kib = (bytes: number) => `${Math.round(bytes / 1024).toLocaleString('en-US')} KiB`;
    context.log(`metrics: ${CHECKS} checks, ${SCRAPES_PER_RUN} scrapes per run; statuses only ${kib(statusesOnly.bytes)}, running ${kib(running.bytes)} per scrape`);
    const note = `${CHECKS} checks of one account with their last runs stored, operator's token, over loopback, ${SCRAPES_PER_RUN} scrapes per run after one warm-up; ${kib(statusesOnly.bytes)} each`;
    const runningNote = `as above, each check also run once in this process (19 series a check: the default 6 buckets), and ${CHANGED_PER_SCRAPE.toLocaleString('en-US')} new results stored between two scrapes; ${kib(running.bytes)} each`;
    const goal = { text: '≤ 50 ms at 10,000 checks', met: (ours: number) => ours <= 50 };
    return [
      { id: 'metrics.scrape-median', label: 'GET /metrics server time, median scrape', unit: 'ms', better: 'lower', runs: statusesOnly.medians, note },
      { id: 'metrics.scrape-p99', issue: 27, label: 'GET /metrics server time, p99 scrape', unit: 'ms', better: 'lower', runs: statusesOnly.p99s, note, goal },
      { id: 'metrics.scrape-first-byte', label: 'GET /metrics time to first byte, median scrape', unit: 'ms', better: 'lower', runs: statusesOnly.firstBytes, note },
      { id: 'metrics.scrape-cpu', label: 'GET /metrics CPU time, median scrape', unit: 'ms', better: 'lower', runs: statusesOnly.cpus, note },
      { id: 'metrics.running-scrape-median', label: 'GET /metrics server time, median scrape, checks running', unit: 'ms', better: 'lower', runs: running.medians, note: runningNote },
      { id: 'metrics.running-scrape-p99', issue: 27, label: 'GET /metrics server time, p99 scrape, checks running', unit: 'ms', better: 'lower', runs: running.p99s, note: runningNote, goal },
      { id: 'metrics.running-scrape-first-byte', label: 'GET /metrics time to first byte, median scrape, checks running', unit: 'ms', better: 'lower', runs: running.firstBytes, note: runningNote },
      { id: 'metrics.running-scrape-cpu', label: 'GET /metrics CPU time, median scrape, checks running', unit: 'ms', better: 'lower', runs: running.cpus, note: runningNote },
    ];
  },
};
