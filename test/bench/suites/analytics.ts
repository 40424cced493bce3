/**
 * Analytics over a day of results: `GET /v1/analytics/api-checks/{id}?quickRange=last24Hours`
 * for a check that ran every 10 s for 24 hours (8,640 FINAL results, 1 % failing), served by
 * `vigil server` in its own process from an on-disk database. Also the stored size of those results
 * (table and index pages per result, from SQLite's dbstat), the figure the scheduler suite measures
 * on results the runner made.
 *
 * The results are appended straight through the SQLite check-results port, in units of work (the
 * server is stopped meanwhile): making 8,640 real runs would take a day.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { reducePassing } from '../../../packages/server/src/store/formats/result-codec.js';
import { Store } from '../../../packages/server/src/store/index.js';
import type { CheckResultDocument } from '../../../packages/server/src/store/result-ports.js';
import { compactResultRow } from '../../../packages/server/src/store/sqlite/check-results.js';
import { sqlitePorts } from '../../../packages/server/src/store/sqlite/index.js';
import { stepNumberOf } from '../../../packages/server/src/store/sqlite/migrations/index.js';
import { median, repeat, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';
import { startServiceProcess } from '../lib/service-process.js';

const KEY = 'vigil-local';
const RESULTS = 8_640;
const EVERY_MS = 10_000;
const REQUESTS_PER_RUN = 20;
const METRICS = ['availability', 'responseTime_avg', 'responseTime_p50', 'responseTime_p95', 'responseTime_p99', 'wait_avg', 'tcp_avg', 'firstByte_p95', 'retries'];

/** A FINAL API result as the runner makes it (varying timings, UUID ids, a body and headers). */
export function runnerLikeResult(checkId: string, at: number, failing: boolean): CheckResultDocument {
  // Hundredths of a ms, as the runner rounds every timing (runner/src/executors/http.ts `round`).
  const ms = (max: number, min = 0) => Math.round((min + Math.random() * max) * 100) / 100;
  const total = ms(60, 20);
  const iso = new Date(at).toISOString();
  return {
    id: randomUUID(),
    name: 'Shop API',
    checkId,
    hasFailures: failing,
    hasErrors: false,
    isDegraded: false,
    overMaxResponseTime: false,
    runLocation: at % 20_000 === 0 ? 'eu-west-1' : 'us-east-1',
    startedAt: new Date(at - Math.round(total)).toISOString(),
    stoppedAt: iso,
    created_at: iso,
    responseTime: Math.round(total),
    apiCheckResult: {
      assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', property: '', target: '200', regex: null, actual: failing ? 503 : 200, passed: !failing, error: null }],
      request: { method: 'GET', url: 'http://127.0.0.1:40123/health', data: '', headers: {}, params: {} },
      response: {
        status: failing ? 503 : 200,
        statusText: failing ? 'Service Unavailable' : 'OK',
        body: failing ? '{"status":"down","reason":"database unreachable"}' : '{"status":"up"}',
        bodyTruncated: false,
        headers: { 'content-type': 'application/json', date: new Date(at).toUTCString(), connection: 'keep-alive', 'keep-alive': 'timeout=5', 'transfer-encoding': 'chunked' },
        timings: { socket: ms(3), lookup: 0, connect: ms(20), response: ms(50), end: total },
        timingPhases: { wait: ms(3), dns: 0, tcp: ms(20), firstByte: ms(40), download: ms(2), total },
      },
      requestError: null,
      jobLog: { setup: [], request: [{ time: at - Math.round(total), level: 'INFO', msg: 'GET http://127.0.0.1:40123/health' }, { time: at, level: 'INFO', msg: `${failing ? '503 Service Unavailable' : '200 OK'} in ${Math.round(total)} ms` }], teardown: [] },
      jobAssets: null,
    },
    browserCheckResult: null,
    multiStepCheckResult: null,
    checkRunId: Math.floor(at / 1000),
    attempts: 0,
    resultType: 'FINAL',
    sequenceId: randomUUID(),
    error: failing ? 'Expected status code 200, got 503' : null,
  };
}

/** Table and index pages of the results (dbstat) per stored result. */
export function storedBytesPerResult(store: Store): { bytes: number; results: number } {
  const { bytes } = store.db.prepare("SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name = 'check_results' OR name LIKE 'check_results_%'").get() as { bytes: number };
  const { results } = store.db.prepare('SELECT COUNT(*) AS results FROM check_results').get() as { results: number };
  return { bytes: bytes / results, results };
}

/**
 * The growth per result of the same workload written as ENCODING_V1 rows with their unique id index
 * (the form before result references; the step that compacted results still writes it), into a database of its own.
 */
function encodingV1Growth(tmpDir: string, checkId: string): number {
  // The schema as it was before result references (readside step 8 of the old numbering).
  const store = new Store(path.join(tmpDir, 'v1'), { through: stepNumberOf({ scope: 'readside', version: 7 }) });
  try {
    const insert = compactResultRow(store.db);
    const end = Date.now() - 5_000;
    const record = (from: number, to: number) => store.transaction(() => {
      for (let index = from; index > to; index--) insert('local', reducePassing(runnerLikeResult(checkId, end - index * EVERY_MS, index % 100 === 7)) as CheckResultDocument);
    });
    const allPages = () => store.db.prepare('SELECT SUM(pgsize) FROM dbstat').pluck().get() as number;
    record(RESULTS - 1, RESULTS / 2 - 1);
    const half = allPages();
    record(RESULTS / 2 - 1, -1);
    return (allPages() - half) / (RESULTS / 2);
  } finally {
    store.close();
  }
}

/** utime + stime of a process, in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function api(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });
}

export const suite: BenchSuite = {
  name: 'analytics',
  issue: 18,
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const dataDir = path.join(context.tmpDir, 'data');
    let service = await startServiceProcess({ dataDir });
    let checkId: string;
    try {
      const created = await api(`${service.url}/v1/checks/api?autoAssignAlerts=false`, {
        method: 'POST',
        body: JSON.stringify({ name: 'Shop API', frequency: 0, frequencyOffset: 10, locations: ['eu-west-1', 'us-east-1'], request: { method: 'GET', url: 'http://127.0.0.1:40123/health' } }),
      });
      if (created.status !== 201) throw new Error(`create answered ${created.status}: ${await created.text()}`);
      checkId = ((await created.json()) as { id: string }).id;
    } finally {
      await service.stop();
    }

    context.log(`analytics: storing ${RESULTS} results of one check (every 10 s for 24 h)`);
    const store = new Store(dataDir);
    let stored: { bytes: number; results: number };
    let growth: number;
    try {
      const ports = sqlitePorts(store);
      const end = Date.now() - 5_000;
      // Oldest first, through the port the service stores runs by (derived ids), in two halves: the
      // growth between them is what a result adds to the database, every table counted (rows, time
      // index, reference results, locations, series, hourly and daily rollups), without the first
      // page each table and index starts with.
      const record = (from: number, to: number) => ports.transaction(async (tx) => {
        for (let index = from; index > to; index--) await tx.checkResults.appendRun('local', [runnerLikeResult(checkId, end - index * EVERY_MS, index % 100 === 7)]);
      });
      const allPages = () => store.db.prepare('SELECT SUM(pgsize) FROM dbstat').pluck().get() as number;
      await record(RESULTS - 1, RESULTS / 2 - 1);
      const half = allPages();
      await record(RESULTS / 2 - 1, -1);
      growth = (allPages() - half) / (RESULTS / 2);
      stored = storedBytesPerResult(store);
    } finally {
      store.close();
    }
    const v1Growth = encodingV1Growth(context.tmpDir, checkId);

    service = await startServiceProcess({ dataDir });
    try {
      const url = `${service.url}/v1/analytics/api-checks/${checkId}?quickRange=last24Hours&metrics=${METRICS.join(',')}`;
      const check = (await (await api(url)).json()) as { series: Array<{ data: Array<Record<string, number>> }> };
      const availability = check.series[0]?.data[0]?.['availability'];
      context.log(`analytics: availability over the day ${String(availability)} %`);
      const cpuPerRequest: number[] = [];
      const latencies = await repeat(context.runs, async () => {
        const cpuBefore = cpuMsOf(service.pid!);
        const each: number[] = [];
        for (let request = 0; request < REQUESTS_PER_RUN; request++) {
          const started = performance.now();
          const response = await api(url);
          await response.arrayBuffer();
          if (response.status !== 200) throw new Error(`analytics answered ${response.status}`);
          each.push(performance.now() - started);
        }
        cpuPerRequest.push((cpuMsOf(service.pid!) - cpuBefore) / REQUESTS_PER_RUN);
        return median(each);
      });
      const note = `one API check with ${RESULTS} FINAL results (every 10 s, 24 h, 1 % failing), ${METRICS.length} metrics, on-disk database, server in its own process; median of ${REQUESTS_PER_RUN} requests per run`;
      return [
        { id: 'analytics.last24hours', issue: 18, label: 'GET analytics last24Hours, 8,640 results', unit: 'ms', better: 'lower', runs: latencies, goal: { text: '≤ 50 ms', met: (value) => value <= 50 }, note },
        // Less sensitive than wall time to other work on the machine: what one request costs the server.
        { id: 'analytics.last24hours-cpu', issue: 18, label: 'server CPU per analytics last24Hours request', unit: 'ms', better: 'lower', runs: cpuPerRequest, note: `${note}; user + system time of the server process` },
        {
          id: 'analytics.stored-size',
          issue: 18,
          label: 'stored size per result (table + index pages)',
          unit: 'bytes',
          better: 'lower',
          runs: [stored.bytes],
          goal: { text: '≤ 500 bytes per passing result', met: (value) => value <= 500 },
          note: `${stored.results} runner-shaped API results, 99 % passing; SQLite dbstat pages of check_results, its indexes and its reference and location tables`,
        },
        {
          id: 'analytics.stored-growth',
          issue: 18,
          label: 'disk growth per result, 99 % passing (every table: rows, indexes, references, rollups)',
          unit: 'bytes',
          better: 'lower',
          runs: [growth],
          baseline: { label: 'the same results as ENCODING_V1 rows with their id index (the form before; rows and indexes only, no rollups)', runs: [v1Growth] },
          // Uptime Kuma: 33.7 MB/h for 1,000 HTTP monitors every 20 s, about 187 bytes per result.
          goal: { text: '≤ 94 bytes (half of Uptime Kuma\'s ≈ 187)', met: (value) => value <= 94 },
          note: `growth of the whole database (dbstat) from ${RESULTS / 2} to ${RESULTS} runner-shaped API results of one check, 1 % failing (kept whole)`,
        },
      ];
    } finally {
      await service.stop();
    }
  },
};
