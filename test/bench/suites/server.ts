/**
 * The reference service under load (issue #2): requests/s and p99 latency of `POST /v1/checks/api`
 * and of `GET /v1/checks?limit=100&page=N` with 10,000 stored checks, measured with autocannon.
 *
 * The service runs as `vigil server` in its own process with an on-disk database (WAL), as users run
 * it, so the load generator does not share its event loop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { repeat, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';

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
type Autocannon = (options: AutocannonOptions) => Promise<AutocannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const API_KEY = 'bench-key';
const STORED_CHECKS = 10_000;
/** Concurrent connections: enough to keep a 2-core box busy, as a parallel `vigil apply` would. */
const CONNECTIONS = 10;

const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
const createBody = JSON.stringify({
  name: 'bench check',
  tags: ['bench'],
  locations: ['eu-west-1', 'us-east-1'],
  request: { url: 'https://example.com/health', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
});

async function startService(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [path.join(repoRoot, 'packages/cli/bin/vigil.mjs'), 'server', '--port', '0', '--data', dataDir, '--api-key', API_KEY, '--account-id', 'bench'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`vigil server exited with ${code}: ${out}`)));
  });
  return { url, child };
}

async function stopService(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

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

/** Runs `measure` and returns its result with the server's CPU microseconds per completed request. */
async function withCpu(pid: number | undefined, measure: () => Promise<AutocannonResult>): Promise<{ result: AutocannonResult; cpuMicros?: number }> {
  const before = cpuSeconds(pid);
  const result = await measure();
  const after = cpuSeconds(pid);
  if (before === undefined || after === undefined || result['2xx'] === 0) return { result };
  return { result, cpuMicros: ((after - before) * 1e6) / result['2xx'] };
}

async function storedChecks(url: string): Promise<number> {
  const response = await fetch(`${url}/v1/checks?limit=1`, { headers });
  const range = response.headers.get('content-range') ?? '*/0';
  return Number(range.split('/')[1]);
}

export const suite: BenchSuite = {
  name: 'server',
  issue: 2,
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const seconds = context.full ? 10 : 4;
    const { url, child } = await startService(path.join(context.tmpDir, 'data'));
    try {
      const creates: AutocannonResult[] = [];
      const createCpu: number[] = [];
      await repeat(context.runs, async () => {
        const { result, cpuMicros } = await withCpu(child.pid, () =>
          autocannon({
            url,
            connections: CONNECTIONS,
            duration: seconds,
            requests: [{ method: 'POST', path: '/v1/checks/api?autoAssignAlerts=false', headers, body: createBody }],
          }),
        );
        assertClean(result, 'POST /v1/checks/api');
        creates.push(result);
        if (cpuMicros !== undefined) createCpu.push(cpuMicros);
        context.log(`creates: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, server CPU ${Math.round(cpuMicros ?? Number.NaN)} µs/request`);
        return result.requests.average;
      });

      const missing = STORED_CHECKS - (await storedChecks(url));
      if (missing > 0) {
        const fill = await autocannon({
          url,
          connections: CONNECTIONS,
          amount: missing,
          requests: [{ method: 'POST', path: '/v1/checks/api?autoAssignAlerts=false', headers, body: createBody }],
        });
        assertClean(fill, 'filling to 10,000 checks');
      }
      const stored = await storedChecks(url);
      const pages = Math.ceil(stored / 100);
      context.log(`listing ${stored} stored checks in ${pages} pages of 100`);

      const lists: AutocannonResult[] = [];
      const listCpu: number[] = [];
      await repeat(context.runs, async () => {
        let next = 0;
        const { result, cpuMicros } = await withCpu(child.pid, () =>
          autocannon({
            url,
            connections: CONNECTIONS,
            duration: seconds,
            requests: [
              {
                method: 'GET',
                path: '/v1/checks?limit=100&page=1',
                headers,
                setupRequest: (request) => ({ ...request, path: `/v1/checks?limit=100&page=${(next++ % pages) + 1}` }),
              },
            ],
          }),
        );
        assertClean(result, 'GET /v1/checks');
        lists.push(result);
        if (cpuMicros !== undefined) listCpu.push(cpuMicros);
        context.log(`lists: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, server CPU ${Math.round(cpuMicros ?? Number.NaN)} µs/request`);
        return result.requests.average;
      });

      const note = `${CONNECTIONS} connections, ${seconds} s per run, on-disk WAL database, server in its own process`;
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
          label: `GET /v1/checks?limit=100&page=N throughput (${stored.toLocaleString('en-US')} checks)`,
          unit: 'req/s',
          better: 'higher',
          runs: lists.map((result) => result.requests.average),
          note,
        },
        {
          id: 'server.list-p99',
          issue: 2,
          label: `GET /v1/checks?limit=100&page=N p99 latency (${stored.toLocaleString('en-US')} checks)`,
          unit: 'ms',
          better: 'lower',
          runs: lists.map((result) => result.latency.p99),
          goal: { text: '≤ 20 ms', met: (median) => median <= 20 },
          note,
        },
      ];
    } finally {
      await stopService(child);
    }
  },
};
