/**
 * The reference service under load: requests/s and p99 latency of `POST /v1/checks/api`
 * and of `GET /v1/checks?limit=100&page=N` with 10,000 stored checks, measured with autocannon.
 *
 * The service runs as `vigil server` in its own process with an on-disk database (WAL), as users run
 * it, so the load generator does not share its event loop. Creates and lists use two services with
 * their own data directories: the create runs leave however many checks they managed behind, while
 * the list figures must be taken with exactly 10,000.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { repeat, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';
import { cpuMsOfTree, postmasterPid } from '../lib/scheduled-checks.js';
import { REPO_ROOT, startServiceProcess, type ServiceProcess } from '../lib/service-process.js';
import { startEmbeddedPostgres } from '../../../packages/server/src/store/postgres/embedded.js';

/** The part of autocannon's (untyped) API this suite uses. */
interface AutocannonRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}
interface AutocannonOptions {
  url: string;
  connections: number;
  duration?: number;
  amount?: number;
  headers?: Record<string, string>;
  requests: Array<AutocannonRequest & { setupRequest?: (request: AutocannonRequest) => AutocannonRequest }>;
}
interface AutocannonResult {
  requests: { average: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
  '2xx': number;
}
const LOAD_GENERATOR = path.join(REPO_ROOT, 'test/bench/lib/load-generator.mjs');

/** autocannon in a fresh process per call (see lib/load-generator.mjs). */
const autocannon = (options: AutocannonOptions & { listPages?: { path: string; pages: number; headers: Record<string, string> } }): Promise<AutocannonResult> =>
  new Promise((resolve, reject) => {
    execFile(process.execPath, [LOAD_GENERATOR, JSON.stringify(options)], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`load generator failed: ${stderr || error.message}`));
      resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as AutocannonResult);
    });
  });
const API_KEY = 'bench-key';
const STORED_CHECKS = 10_000;
const PAGE_SIZE = 100;
/** Concurrent connections: enough to keep a 2-core box busy, as a parallel `vigil apply` would. */
const CONNECTIONS = 10;
/** Untimed listing before the list runs, so the first run does not also measure the JIT warming up. */
const LIST_WARMUP_SECONDS = 1;

const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
const createBody = JSON.stringify({
  name: 'bench check',
  tags: ['bench'],
  locations: ['eu-west-1', 'us-east-1'],
  request: { url: 'https://example.com/health', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
});
const createRequest: AutocannonRequest = { method: 'POST', path: '/v1/checks/api?autoAssignAlerts=false', headers, body: createBody };

function assertClean(result: AutocannonResult, what: string): void {
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${what}: ${result.non2xx} non-2xx responses and ${result.errors} errors out of ${result['2xx'] + result.non2xx}`);
  }
}

/**
 * CPU seconds the server process has used (Linux `/proc`, 10 ms ticks), or undefined elsewhere.
 * CPU per request depends far less than requests/s on what else a shared machine runs.
 */
function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/**
 * Runs `measure` and returns its result with the server's CPU microseconds per completed request, and
 * on PostgreSQL its cluster's (every process of it), which the service's figure leaves out.
 */
async function withCpu(service: BenchService, measure: () => Promise<AutocannonResult>): Promise<{ result: AutocannonResult; cpuMicros?: number; postgresCpuMicros?: number }> {
  const before = cpuSeconds(service.pid);
  const postgresBefore = service.postmaster === undefined ? undefined : cpuMsOfTree(service.postmaster);
  const result = await measure();
  const after = cpuSeconds(service.pid);
  const postgresAfter = service.postmaster === undefined ? undefined : cpuMsOfTree(service.postmaster);
  if (result['2xx'] === 0) return { result };
  return {
    result,
    ...(before === undefined || after === undefined ? {} : { cpuMicros: ((after - before) * 1e6) / result['2xx'] }),
    ...(postgresBefore === undefined || postgresAfter === undefined ? {} : { postgresCpuMicros: ((postgresAfter - postgresBefore) * 1e3) / result['2xx'] }),
  };
}

async function storedChecks(url: string): Promise<number> {
  const response = await fetch(`${url}/v1/checks?limit=1`, { headers });
  const range = response.headers.get('content-range') ?? '*/0';
  return Number(range.split('/')[1]);
}

/** Lists pages 1, 2, ... in turn over every connection, wrapping around after the last page. */
function listPages(url: string, pages: number, duration: number): Promise<AutocannonResult> {
  return autocannon({ url, connections: CONNECTIONS, duration, requests: [], listPages: { path: `/v1/checks?limit=${PAGE_SIZE}`, pages, headers } });
}

export const suite: BenchSuite = {
  name: 'server',
  issue: 2,
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const seconds = context.full ? 10 : 4;
    const creates: AutocannonResult[] = [];
    const createCpu: number[] = [];
    const createPostgresCpu: number[] = [];
    await withService(path.join(context.tmpDir, 'creates'), async (service) => {
      await repeat(context.runs, async () => {
        const { result, cpuMicros, postgresCpuMicros } = await withCpu(service, () =>
          autocannon({ url: service.url, connections: CONNECTIONS, duration: seconds, requests: [createRequest] }),
        );
        assertClean(result, 'POST /v1/checks/api');
        creates.push(result);
        if (cpuMicros !== undefined) createCpu.push(cpuMicros);
        if (postgresCpuMicros !== undefined) createPostgresCpu.push(postgresCpuMicros);
        context.log(`creates: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, server CPU ${Math.round(cpuMicros ?? Number.NaN)} µs/request${postgresCpuMicros === undefined ? '' : `, PostgreSQL CPU ${Math.round(postgresCpuMicros)} µs/request`}`);
        return result.requests.average;
      });
    });

    const lists: AutocannonResult[] = [];
    const listCpu: number[] = [];
    const listPostgresCpu: number[] = [];
    await withService(path.join(context.tmpDir, 'lists'), async (service) => {
      const fill = await autocannon({ url: service.url, connections: CONNECTIONS, amount: STORED_CHECKS, requests: [createRequest] });
      assertClean(fill, `filling to ${STORED_CHECKS} checks`);
      const stored = await storedChecks(service.url);
      if (stored !== STORED_CHECKS) throw new Error(`the list service holds ${stored} checks after the fill, not ${STORED_CHECKS}`);
      const pages = Math.ceil(stored / PAGE_SIZE);
      context.log(`listing ${stored} stored checks in ${pages} pages of ${PAGE_SIZE}`);
      assertClean(await listPages(service.url, pages, LIST_WARMUP_SECONDS), 'GET /v1/checks (warm-up)');
      await repeat(context.runs, async () => {
        const { result, cpuMicros, postgresCpuMicros } = await withCpu(service, () => listPages(service.url, pages, seconds));
        assertClean(result, 'GET /v1/checks');
        lists.push(result);
        if (cpuMicros !== undefined) listCpu.push(cpuMicros);
        if (postgresCpuMicros !== undefined) listPostgresCpu.push(postgresCpuMicros);
        context.log(`lists: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, server CPU ${Math.round(cpuMicros ?? Number.NaN)} µs/request${postgresCpuMicros === undefined ? '' : `, PostgreSQL CPU ${Math.round(postgresCpuMicros)} µs/request`}`);
        return result.requests.average;
      });
    });

    const note = `${CONNECTIONS} connections, ${seconds} s per run, ${STORAGE_NOTE}, server in its own process`;
    const listNote = `${note}; its own service holding exactly ${STORED_CHECKS.toLocaleString('en-US')} checks, after a ${LIST_WARMUP_SECONDS} s warm-up`;
    const cpuFigures: BenchFigure[] = [];
    if (createCpu.length > 0) {
      cpuFigures.push({
        id: 'server.create-cpu',
        issue: 2,
        label: 'POST /v1/checks/api server CPU per request',
        unit: 'µs',
        better: 'lower',
        runs: createCpu,
        note: 'all server threads; less sensitive to other load than req/s, though contention still inflates it',
      });
    }
    if (listCpu.length > 0) {
      cpuFigures.push({
        id: 'server.list-cpu',
        issue: 2,
        label: 'GET /v1/checks?limit=100 server CPU per request',
        unit: 'µs',
        better: 'lower',
        runs: listCpu,
        note: 'all server threads; less sensitive to other load than req/s',
      });
    }
    const postgresCpuNote = 'every process of the embedded cluster, beside the service\'s own CPU above';
    if (createPostgresCpu.length > 0) {
      cpuFigures.push({ id: 'server.create-postgres-cpu', issue: 2, label: 'POST /v1/checks/api PostgreSQL CPU per request', unit: 'µs', better: 'lower', runs: createPostgresCpu, note: postgresCpuNote });
    }
    if (listPostgresCpu.length > 0) {
      cpuFigures.push({ id: 'server.list-postgres-cpu', issue: 2, label: 'GET /v1/checks?limit=100 PostgreSQL CPU per request', unit: 'µs', better: 'lower', runs: listPostgresCpu, note: postgresCpuNote });
    }
    return [
      ...cpuFigures,
      {
        id: 'server.create-throughput',
        issue: 2,
        label: 'POST /v1/checks/api throughput',
        unit: 'req/s',
        better: 'higher',
        runs: creates.map((result) => result.requests.average),
        goal: { text: '≥ 2,000 req/s', met: (median) => median >= 2000 },
        note,
      },
      {
        id: 'server.create-p99',
        issue: 2,
        label: 'POST /v1/checks/api p99 latency',
        unit: 'ms',
        better: 'lower',
        runs: creates.map((result) => result.latency.p99),
        note,
      },
      {
        id: 'server.list-throughput',
        issue: 2,
        label: `GET /v1/checks?limit=100&page=N throughput (${STORED_CHECKS.toLocaleString('en-US')} checks)`,
        unit: 'req/s',
        better: 'higher',
        runs: lists.map((result) => result.requests.average),
        note: listNote,
      },
      {
        id: 'server.list-p99',
        issue: 2,
        label: `GET /v1/checks?limit=100&page=N p99 latency (${STORED_CHECKS.toLocaleString('en-US')} checks)`,
        unit: 'ms',
        better: 'lower',
        runs: lists.map((result) => result.latency.p99),
        goal: { text: '≤ 20 ms', met: (median) => median <= 20 },
        note: listNote,
      },
    ];
  },
};

/**
 * VIGIL_BENCH_SERVER_RATE_LIMIT=SPEC runs the service with `--rate-limit SPEC` (one so high that nothing
 * is refused, e.g. 100000000/3600), to measure what counting every request in the database costs.
 */
const RATE_LIMIT = process.env['VIGIL_BENCH_SERVER_RATE_LIMIT'];

/**
 * VIGIL_BENCH_SERVER_ENGINE=postgres runs each service on a database of its own on an embedded
 * PostgreSQL (durable, on loopback) instead of its SQLite data directory; the CPU figures then count
 * the service's process only, not PostgreSQL's.
 */
const ENGINE = process.env['VIGIL_BENCH_SERVER_ENGINE'] === 'postgres' ? 'postgres' : 'sqlite';
const STORAGE_NOTE = ENGINE === 'postgres' ? 'embedded PostgreSQL on loopback (fsync on; service CPU only)' : 'on-disk WAL database';

/** The service, and on PostgreSQL its cluster's postmaster (whose processes' CPU is measured too). */
interface BenchService extends ServiceProcess {
  readonly postmaster?: number;
}

async function withService(dataDir: string, work: (service: BenchService) => Promise<void>): Promise<void> {
  // Under the system's temp directory: as root, PostgreSQL runs as its own user, who cannot enter the run's private one.
  const pgDir = ENGINE === 'postgres' ? await mkdtemp(path.join(os.tmpdir(), 'vigil-bench-server-pg-')) : undefined;
  const postgres = pgDir ? await startEmbeddedPostgres({ dir: pgDir, port: 0, durable: true }) : undefined;
  const storage = postgres ? { database: await postgres.createDatabase('bench') } : { dataDir };
  const service = await startServiceProcess({ ...storage, apiKey: API_KEY, ...(RATE_LIMIT ? { rateLimit: RATE_LIMIT } : {}) }).catch(async (error: unknown) => {
    await postgres?.stop();
    throw error;
  });
  try {
    await work(pgDir === undefined ? service : { ...service, postmaster: postmasterPid(pgDir) });
  } finally {
    await service.stop();
    await postgres?.stop();
    if (pgDir) await rm(pgDir, { recursive: true, force: true });
  }
}
