/**
 * `GET /metrics` at 10,000 checks: the server time of one scrape by the operator's token (every
 * account's checks), from the request to the last byte of the body, over loopback (@hono/node-server
 * writes the body as `vigil server` does; decoding the text is the scraper's work, not timed), and
 * to the first byte of the body. Each case is measured twice: with the client in the service's own
 * process, as first measured (it reads the body on the service's event loop, so its work counts as
 * the server's, time and CPU), and with the client in a process of its own (metrics/scrape-client.mjs),
 * as Prometheus scrapes from outside; the CPU is then the service's process alone. Two cases:
 * - **statuses only**: each check's last run stored, nothing else, nothing changing between
 *   scrapes (the case first measured, kept so the figures compare);
 * - **running**: each check has also run once in this process (its run counters and response-time
 *   histogram exist: 19 series a check with the default 6 buckets), and between two scrapes a
 *   quarter of the checks store a new result, as 10,000 checks every minute do in a 15 s scrape
 *   interval. The writes are not timed; the scrape after them must show them (it is checked), so
 *   no cache can serve it stale. The quarter is a run of consecutive checks, so three quarters of
 *   the blocks the service keeps its text in (256 checks each) are untouched;
 * - **running, spread** (client in its own process only): as running, but the quarter is every
 *   fourth check, as checks on their own schedules store results, so every block has changed
 *   checks in every scrape.
 * In the running cases the scrapes are paced, INTERVAL_MS apart from start to start
 * (VIGIL_BENCH_METRICS_INTERVAL_MS; 0 stores all results right before each scrape, as first
 * measured), and the interval's results are stored in RESULT_BATCHES batches spread evenly over it,
 * as checks on their schedules store them: the service may write changed blocks ahead of a scrape
 * (metrics/ahead-of-scrape.ts), and results stored after that are the scrape's to write. The CPU
 * of the service's process while it waits between those batches is the work done ahead, reported
 * per interval (client in its own process: the client is not in the process).
 * The CPU time per scrape is the figure least moved by other work on the machine.
 * VIGIL_BENCH_METRICS_BUCKETS=LIST measures the server started with `--metrics-buckets LIST`.
 * VIGIL_BENCH_METRICS_ONLY=spread measures the spread case alone (client in its own process), the
 * one still over its goal, in a fifth of the suite's time: for profiles and alternated pairs.
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createApp, type SqliteServiceApp } from '../../../packages/server/src/app.js';
import { parseResponseTimeBuckets } from '../../../packages/server/src/metrics/response-time-buckets.js';
import { writeCheckStatus } from '../../../packages/server/src/store/sqlite/check-statuses-port.js';
import { StatusTable } from '../../../packages/server/src/store/sqlite/statuses.js';
import { median, repeat, type BenchContext, type BenchFigure, type BenchGoal, type BenchSuite } from '../harness.js';

const CHECKS = 10_000;
const SCRAPES_PER_RUN = 20;
/** Checks that store a new result between two scrapes in the running case. */
const CHANGED_PER_SCRAPE = CHECKS / 4;
const TOKEN = 'bench-metrics-token';
/** Milliseconds from a scrape's start to the next one's in the running cases; 0: not paced. */
const INTERVAL_MS = Number(process.env['VIGIL_BENCH_METRICS_INTERVAL_MS'] ?? 500);
/** VIGIL_BENCH_METRICS_TRACE=1 logs each timed scrape's time and CPU, to see which scrapes make the p99. */
const TRACE = process.env['VIGIL_BENCH_METRICS_TRACE'] === '1';
/** The batches an interval's results are stored in, evenly spread over it. */
const RESULT_BATCHES = 10;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Waits until `at` (performance.now()); the CPU milliseconds the process spent meanwhile. */
async function idleUntil(at: number): Promise<number> {
  const before = process.cpuUsage();
  await sleep(at - performance.now());
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1000;
}

/** The figures of the spread case (client in its own process). */
function spreadFigures(spread: Measured, id: (name: string) => string, cpu: string, kib: (bytes: number) => string, goal: BenchGoal): BenchFigure[] {
  const spreadNote = `as running, the ${CHANGED_PER_SCRAPE.toLocaleString('en-US')} results stored between two scrapes by every fourth check (every block of the service's kept text changes); ${sizeOf(spread, kib)} each`;
  const figures: BenchFigure[] = [
    { id: id('spread-scrape-median'), label: 'GET /metrics server time, median scrape, checks running, results spread', unit: 'ms', better: 'lower', runs: spread.medians, note: spreadNote },
    { id: id('spread-scrape-p99'), issue: 27, label: 'GET /metrics server time, p99 scrape, checks running, results spread', unit: 'ms', better: 'lower', runs: spread.p99s, note: spreadNote, goal },
    { id: id('spread-scrape-first-byte'), label: 'GET /metrics time to first byte, median scrape, checks running, results spread', unit: 'ms', better: 'lower', runs: spread.firstBytes, note: spreadNote },
    { id: id('spread-scrape-cpu'), label: `GET /metrics ${cpu}, median scrape, checks running, results spread`, unit: 'ms', better: 'lower', runs: spread.cpus, note: spreadNote },
  ];
  if (spread.aheadCpus.length > 0) {
    figures.push({ id: id('spread-between-cpu'), label: 'CPU time of the service between two scrapes, outside scrapes and stores, median interval, checks running, results spread', unit: 'ms', better: 'lower', runs: spread.aheadCpus, note: spreadNote });
  }
  return figures;
}

/** A scrape's size, and what went over the wire when that was less (a gzipped body). */
function sizeOf(measured: Measured, kib: (bytes: number) => string): string {
  return measured.sentBytes < measured.bytes ? `${kib(measured.bytes)} (${kib(measured.sentBytes)} sent gzipped)` : kib(measured.bytes);
}

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
  /** Median CPU time of the process per paced interval outside the scrape and the stores. */
  aheadCpus: number[];
  /** The body's size, decoded. */
  bytes: number;
  /** The bytes that went over the wire: fewer than `bytes` when the body came gzipped. */
  sentBytes: number;
}

/** Where the scraping client runs: on the service's event loop, or in a process of its own. */
type ClientPlace = 'same-process' | 'own-process';

interface Scraped {
  status: number;
  ms: number;
  firstByteMs: number;
  bytes: number;
  sentBytes: number;
  head: string;
  fresh: boolean;
}

/** A scraper: one scrape, the line it must find in the body (undefined: none), and how to stop it. */
interface Scraper {
  scrape(line: string | undefined): Promise<Scraped>;
  close(): Promise<void>;
}

function sameProcessScraper(server: http.Server): Scraper {
  const agent = new http.Agent({ keepAlive: true });
  return {
    async scrape(line) {
      const started = process.hrtime.bigint();
      const response = await get(server, agent);
      const ended = process.hrtime.bigint();
      // Searched in the bytes after the clock stopped: a decoded and split copy of 22 MiB would
      // leave the next timed scrape a garbage collection to pay.
      const bytes = response.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
      const body = line === undefined && response.status === 200 ? undefined : Buffer.concat(response.chunks);
      return {
        status: response.status,
        ms: Number(ended - started) / 1e6,
        firstByteMs: Number(response.firstByteAt - started) / 1e6,
        bytes,
        sentBytes: bytes,
        head: body?.toString('utf8', 0, 200) ?? '',
        fresh: line === undefined || body!.indexOf(line) >= 0,
      };
    },
    async close() {
      agent.destroy();
    },
  };
}

async function ownProcessScraper(server: http.Server): Promise<Scraper> {
  const child: ChildProcess = fork(new URL('./metrics/scrape-client.mjs', import.meta.url), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = () => new Promise<Record<string, unknown>>((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`metrics: the scrape client exited (${code})`));
    child.once('exit', exited);
    child.once('message', (message) => {
      child.off('exit', exited);
      resolve(message as Record<string, unknown>);
    });
  });
  const { port } = server.address() as AddressInfo;
  const ready = next();
  child.send({ kind: 'target', port, token: TOKEN });
  await ready;
  return {
    async scrape(line) {
      const answer = next();
      child.send({ kind: 'scrape', line });
      const message = await answer;
      if (message['kind'] !== 'scraped') throw new Error(`metrics: the scrape client failed: ${String(message['message'])}`);
      return message as unknown as Scraped;
    },
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ kind: 'stop' });
      await exited;
    },
  };
}

/** Which checks store a result between two scrapes: none, a run of consecutive ones, or every fourth. */
type Writes = 'none' | 'consecutive' | 'spread';

/** The indexes of the checks that store a result before scrape `index` (round `round`). */
function writtenBefore(writes: Writes, index: number, round: number): number[] {
  if (writes === 'none') return [];
  const first = (index * CHANGED_PER_SCRAPE) % CHECKS;
  const stride = CHECKS / CHANGED_PER_SCRAPE;
  return Array.from({ length: CHANGED_PER_SCRAPE }, (_, at) => (writes === 'consecutive' ? first + at : at * stride + (round % stride)));
}

async function measure(context: BenchContext, writes: Writes, place: ClientPlace): Promise<Measured> {
  const running = writes !== 'none';
  const p99s: number[] = [];
  const firstBytes: number[] = [];
  const cpus: number[] = [];
  const aheadCpus: number[] = [];
  let bytes = 0;
  let sentBytes = 0;
  const medians = await repeat(context.runs, async (run) => {
    const buckets = process.env['VIGIL_BENCH_METRICS_BUCKETS'];
    const service = createApp({ accounts: [{ apiKey: 'k', accountId: 'acme' }], metricsToken: TOKEN, ...(buckets === undefined ? {} : { metricsBuckets: parseResponseTimeBuckets(buckets) }), dataDir: path.join(context.tmpDir, `${place}-${writes}-${run}`) });
    try {
      const checkIds = createChecks(service);
      let round = 0;
      const store = (indexes: readonly number[]) => storeResults(service, checkIds, indexes, round, running);
      store(checkIds.map((_, index) => index));
      const server = await listen(service);
      const scraper = place === 'same-process' ? sameProcessScraper(server) : await ownProcessScraper(server);
      const scrape = async (line?: string) => {
        const response = await scraper.scrape(line);
        if (response.status !== 200) throw new Error(`metrics: scrape answered ${response.status}: ${response.head}`);
        if (!response.fresh) throw new Error(`metrics: the scrape after round ${round} did not show ${line!.trim()}`);
        bytes = response.bytes;
        sentBytes = response.sentBytes;
        return response;
      };
      let scrapedAt = performance.now();
      await scrape(); // warm-up: prepared statements, the check catalog, process metrics' first collection
      const paced = running && INTERVAL_MS > 0;
      if (paced) {
        // Two more warm-ups, each an interval after the one before began (scrapes are paced start
        // to start, as Prometheus paces them): the service has seen the interval by the first timed
        // scrape. Slept for a whole interval after the first ended, the interval seen also held the
        // first's time, hundreds of milliseconds on a cold service, and the first timed scrape came
        // before the service's work ahead of it was due; the third warm-up is for a first that
        // took longer than an interval, as it does on a loaded machine.
        for (let warmUp = 0; warmUp < 2; warmUp++) {
          await sleep(scrapedAt + INTERVAL_MS - performance.now());
          scrapedAt = performance.now();
          await scrape();
        }
      }
      const times: number[] = [];
      const firstByteTimes: number[] = [];
      const cpuTimes: number[] = [];
      const aheadCpuTimes: number[] = [];
      for (let index = 0; index < SCRAPES_PER_RUN; index += 1) {
        if (running) round += 1;
        const written = writtenBefore(writes, index, round);
        if (paced) {
          let idleCpu = 0;
          for (let batch = 0; batch < RESULT_BATCHES; batch += 1) {
            idleCpu += await idleUntil(scrapedAt + (INTERVAL_MS * batch) / RESULT_BATCHES);
            store(batchOf(writes, written, batch));
          }
          idleCpu += await idleUntil(scrapedAt + INTERVAL_MS);
          aheadCpuTimes.push(idleCpu);
        } else if (written.length > 0) {
          store(written);
        }
        scrapedAt = performance.now();
        const cpuBefore = process.cpuUsage();
        // The last check written before the scrape must show that write's end time.
        const response = await scrape(running ? freshLine(checkIds[written.at(-1)!]!, round) : undefined);
        const cpu = process.cpuUsage(cpuBefore);
        times.push(response.ms);
        firstByteTimes.push(response.firstByteMs);
        cpuTimes.push((cpu.user + cpu.system) / 1000);
        if (TRACE) context.log(`metrics trace: ${writes} run ${run} scrape ${index}: ${response.ms.toFixed(1)} ms, first byte ${response.firstByteMs.toFixed(1)} ms, service CPU ${cpuTimes.at(-1)!.toFixed(1)} ms`);
      }
      p99s.push(percentile(times, 99));
      firstBytes.push(median(firstByteTimes));
      cpus.push(median(cpuTimes));
      if (paced) aheadCpus.push(median(aheadCpuTimes));
      await scraper.close();
      await new Promise((resolve) => server.close(resolve));
      return median(times);
    } finally {
      service.close();
    }
  });
  return { medians, p99s, firstBytes, cpus, aheadCpus, bytes, sentBytes };
}

type Serve = (options: { fetch: SqliteServiceApp['app']['fetch']; port: number; hostname: string }, listening: () => void) => unknown;

/** The app behind @hono/node-server on a loopback port, as `vigil server` serves it. */
async function listen(service: SqliteServiceApp): Promise<http.Server> {
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

function createChecks(service: SqliteServiceApp): string[] {
  const ids: string[] = [];
  service.store.transaction(() => {
    for (let index = 0; index < CHECKS; index += 1) {
      const check = service.store.checks.insert('acme', (id) => ({ id, name: `Check ${index}`, checkType: 'API', activated: true, tags: [`team-${index % 20}`, 'api'] }));
      ids.push(String(check.id));
    }
  });
  return ids;
}

/** Round `round`'s results of the checks at `indexes`: their statuses, and in the running case their runs counted. */
function storeResults(service: SqliteServiceApp, checkIds: readonly string[], indexes: readonly number[], round: number, running: boolean): void {
  // Written as the check-statuses port writes them, synchronously: a round is one transaction.
  const statuses = new StatusTable(service.store.db);
  const ended = new Date(Date.UTC(2030, 0, 1) + round * 60_000).toISOString();
  service.store.transaction(() => {
    for (const index of indexes) {
      const checkId = checkIds[index]!;
      const failed = (index + round) % 50 === 0;
      const responseTime = 40 + ((index + round) % 100);
      writeCheckStatus(statuses, 'acme', { name: `Check ${index}`, checkId, hasFailures: failed, hasErrors: false, isDegraded: false, responseTime, runLocation: 'eu-west-1', checkRunId: round, stoppedAt: ended });
      if (running) {
        service.metrics.runStored({ accountId: 'acme', checkId, location: 'eu-west-1', hasFailures: failed, hasErrors: false, isDegraded: false, responseTime });
      }
    }
  });
}

/**
 * The results of an interval stored in its batch `batch`: a run of them when consecutive, every
 * RESULT_BATCHES-th when spread, so that each batch then changes every block too.
 */
function batchOf(writes: Writes, written: readonly number[], batch: number): number[] {
  if (writes === 'spread') return written.filter((_, at) => at % RESULT_BATCHES === batch);
  return written.slice((written.length * batch) / RESULT_BATCHES, (written.length * (batch + 1)) / RESULT_BATCHES);
}

/** The line of the check's last run at round `round`'s end time, as a scrape must show it. */
function freshLine(checkId: string, round: number): string {
  const ended = (Date.UTC(2030, 0, 1) + round * 60_000) / 1000;
  return `\nvigil_check_last_run_timestamp_seconds{account="acme",check_id="${checkId}"} ${ended}\n`;
}

export const suite: BenchSuite = {
  name: 'metrics',
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const kib = (bytes: number) => `${Math.round(bytes / 1024).toLocaleString('en-US')} KiB`;
    const goal = { text: '≤ 50 ms at 10,000 checks', met: (ours: number) => ours <= 50 };
    const figures: BenchFigure[] = [];
    const spreadOnly = process.env['VIGIL_BENCH_METRICS_ONLY'] === 'spread';
    for (const place of spreadOnly ? (['own-process'] as const) : (['same-process', 'own-process'] as const)) {
      // The same-process figures keep their first ids, so they compare with the sections before.
      const id = (name: string) => (place === 'same-process' ? `metrics.${name}` : `metrics.own-process.${name}`);
      const cpu = place === 'same-process' ? 'CPU time (service and client)' : 'CPU time of the service';
      if (spreadOnly) {
        figures.push(...spreadFigures(await measure(context, 'spread', place), id, cpu, kib, goal));
        continue;
      }
      const statusesOnly = await measure(context, 'none', place);
      const running = await measure(context, 'consecutive', place);
      context.log(`metrics (client ${place}): ${CHECKS} checks, ${SCRAPES_PER_RUN} scrapes per run; statuses only ${kib(statusesOnly.bytes)}, running ${kib(running.bytes)} per scrape`);
      const client = place === 'same-process' ? 'client in the service process' : 'client in its own process';
      const note = `${CHECKS} checks of one account with their last runs stored, operator's token, over loopback, ${client}, ${SCRAPES_PER_RUN} scrapes per run after one warm-up; ${kib(statusesOnly.bytes)} each`;
      const pacing = INTERVAL_MS > 0 ? ` in ${RESULT_BATCHES} batches over ${INTERVAL_MS} ms from scrape to scrape (after three warm-ups that far apart)` : ' right before the scrape';
      const runningNote = `as above, each check also run once in this process (19 series a check: the default 6 buckets), and ${CHANGED_PER_SCRAPE.toLocaleString('en-US')} new results stored between two scrapes${pacing}; ${kib(running.bytes)} each`;
      figures.push(
        { id: id('scrape-median'), label: 'GET /metrics server time, median scrape', unit: 'ms', better: 'lower', runs: statusesOnly.medians, note },
        { id: id('scrape-p99'), issue: 27, label: 'GET /metrics server time, p99 scrape', unit: 'ms', better: 'lower', runs: statusesOnly.p99s, note, goal },
        { id: id('scrape-first-byte'), label: 'GET /metrics time to first byte, median scrape', unit: 'ms', better: 'lower', runs: statusesOnly.firstBytes, note },
        { id: id('scrape-cpu'), label: `GET /metrics ${cpu}, median scrape`, unit: 'ms', better: 'lower', runs: statusesOnly.cpus, note },
        { id: id('running-scrape-median'), label: 'GET /metrics server time, median scrape, checks running', unit: 'ms', better: 'lower', runs: running.medians, note: runningNote },
        { id: id('running-scrape-p99'), issue: 27, label: 'GET /metrics server time, p99 scrape, checks running', unit: 'ms', better: 'lower', runs: running.p99s, note: runningNote, goal },
        { id: id('running-scrape-first-byte'), label: 'GET /metrics time to first byte, median scrape, checks running', unit: 'ms', better: 'lower', runs: running.firstBytes, note: runningNote },
        { id: id('running-scrape-cpu'), label: `GET /metrics ${cpu}, median scrape, checks running`, unit: 'ms', better: 'lower', runs: running.cpus, note: runningNote },
      );
      if (place === 'own-process' && running.aheadCpus.length > 0) {
        figures.push({ id: id('running-between-cpu'), label: 'CPU time of the service between two scrapes, outside scrapes and stores, median interval, checks running', unit: 'ms', better: 'lower', runs: running.aheadCpus, note: runningNote });
      }
      if (place === 'own-process') {
        const spread = await measure(context, 'spread', place);
        context.log(`metrics (client ${place}): running, spread ${sizeOf(spread, kib)} per scrape`);
        figures.push(...spreadFigures(spread, id, cpu, kib, goal));
      }
    }
    return figures;
  },
};
