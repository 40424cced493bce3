/**
 * What the scheduler benches share: a loopback HTTP target in its own process, API checks created
 * through the API of a running `vigil server`, the measured window (whole minutes, opening at a
 * whole minute once the checks exist), and the window's results read back per check and per slot —
 * start lag (when a run started minus the moment its slot was due, to the millisecond), slots
 * without a result, slots with more than one. Also a process's CPU time and resident memory from
 * Linux's /proc, for the service and the agents measured beside it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { nextDueMs } from '../../../packages/server/src/scheduler/slots.js';

export const BENCH_API_KEY = 'vigil-local';
export const MINUTE_MS = 60_000;

/** Answers every request at once with a small JSON body; no keep-alive, as a monitored host is met anew each run. */
const TARGET_SOURCE = `
const http = require('node:http');
const body = JSON.stringify({ status: 'up' });
const server = http.createServer((request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(body));
server.keepAliveTimeout = 1;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

export interface LoopbackTarget {
  readonly url: string;
  readonly child: ChildProcess;
}

/** The target runs in a process of its own so its work is not counted as the service's. */
export async function startLoopbackTarget(): Promise<LoopbackTarget> {
  const child = spawn(process.execPath, ['-e', TARGET_SOURCE], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return { url: `http://127.0.0.1:${chunk.toString().trim()}`, child };
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The fields of /proc/PID/stat after the command's name: index 1 is the parent's pid, 11 and 12 utime and stime, 13 and 14 those of waited-for children. */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The name is in parentheses and may hold spaces or parentheses itself: split after the last one.
  return stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
}

/** utime + stime of a process, in ms (Linux /proc; clock ticks of 10 ms). */
export function cpuMsOf(pid: number): number {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * CPU time of a process and of its children, in ms: its own, its exited children's (which the
 * kernel adds to the parent once it has waited for them), and that of each live child. Between two
 * readings this counts a child that came and went meanwhile too, e.g. a PostgreSQL backend.
 */
/** The postmaster's pid, the first line of `postmaster.pid` in an embedded cluster's data directory. */
export function postmasterPid(clusterDir: string): number {
  const pid = Number(readFileSync(path.join(clusterDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no postmaster pid in ${clusterDir}/data/postmaster.pid`);
  return pid;
}

export function cpuMsOfTree(pid: number): number {
  const own = statFields(pid);
  let ms = (Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])) * 10;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(Number(entry));
      if (Number(fields[1]) === pid) ms += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // The process exited between the listing and the read; its time is now its parent's.
    }
  }
  return ms;
}

/** Resident memory of a process, in MB (Linux /proc). */
export function rssMbOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

export async function api(url: string, init: RequestInit = {}, key = BENCH_API_KEY): Promise<Response> {
  return fetch(url, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });
}

/** One kind of check to create: its schedule and how many slots it has per minute. */
export interface CheckSchedule {
  readonly frequency: number;
  readonly frequencyOffset?: number;
  readonly perMinute: number;
}

/** A created check: what its slots' moments depend on. */
export interface CreatedCheck {
  readonly id: string;
  readonly perMinute: number;
  readonly frequency: number;
  readonly frequencyOffset?: number;
}

/**
 * Creates one API check per entry of `plan` (50 requests at a time), check n named `c<n>` and
 * calling `<target>/c/<n>` with a status assertion. Given several services (replicas of one
 * database), check n is created through service n modulo their number.
 */
export async function createApiChecks(serviceUrls: string | readonly string[], targetUrl: string, plan: readonly CheckSchedule[], locations: readonly string[]): Promise<CreatedCheck[]> {
  const through = typeof serviceUrls === 'string' ? [serviceUrls] : serviceUrls;
  const created: CreatedCheck[] = [];
  for (let index = 0; index < plan.length; index += 50) {
    const batch = await Promise.all(
      plan.slice(index, index + 50).map(async ({ perMinute, ...schedule }, offset) => {
        const serviceUrl = through[(index + offset) % through.length]!;
        const response = await api(`${serviceUrl}/v1/checks/api?autoAssignAlerts=false`, {
          method: 'POST',
          body: JSON.stringify({
            name: `c${index + offset}`,
            ...schedule,
            locations,
            doubleCheck: false,
            retryStrategy: null,
            request: { method: 'GET', url: `${targetUrl}/c/${index + offset}`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
          }),
        });
        if (response.status !== 201) throw new Error(`create answered ${response.status}: ${await response.text()}`);
        // The service assigns frequencyOffset when none is sent; the slot's moment depends on it.
        const stored = (await response.json()) as { id: string; frequency: number; frequencyOffset?: number };
        return { id: stored.id, perMinute, frequency: stored.frequency, ...(stored.frequencyOffset !== undefined ? { frequencyOffset: stored.frequencyOffset } : {}) };
      }),
    );
    created.push(...batch);
  }
  return created;
}

export interface MeasuredWindow {
  readonly from: number;
  readonly to: number;
  readonly minutes: number;
}

/** From the next whole minute at least 10 s away (so the scheduler has re-read the checks), for `minutes`. */
export function nextWholeMinutes(minutes: number): MeasuredWindow {
  const from = Math.ceil((Date.now() + 10_000) / MINUTE_MS) * MINUTE_MS;
  return { from, to: from + minutes * MINUTE_MS, minutes };
}

/** Latencies of the API reads a user makes while the service schedules, ms. */
export interface ApiLatencies {
  /** `GET /v1/checks?limit=100`. */
  readonly list: number[];
  /** `GET /v1/check-results/<a random check>?limit=100`. */
  readonly results: number[];
}

/**
 * Until `until`, every 250 ms: a page of checks, then a page of one random check's results, each
 * timed; given several services, each pair goes to the next in turn.
 */
export async function probeApiUntil(serviceUrls: string | readonly string[], checkIds: readonly string[], until: number): Promise<ApiLatencies> {
  const through = typeof serviceUrls === 'string' ? [serviceUrls] : serviceUrls;
  const latencies: ApiLatencies = { list: [], results: [] };
  for (let round = 0; Date.now() < until; round++) {
    const serviceUrl = through[round % through.length]!;
    let started = performance.now();
    await (await api(`${serviceUrl}/v1/checks?limit=100`)).arrayBuffer();
    latencies.list.push(performance.now() - started);
    started = performance.now();
    await (await api(`${serviceUrl}/v1/check-results/${checkIds[Math.floor(Math.random() * checkIds.length)]}?limit=100`)).arrayBuffer();
    latencies.results.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return latencies;
}

export async function waitUntil(moment: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, moment - Date.now())));
}

/** `VIGIL_BENCH_MINUTES`, the measured minutes per run, or the suite's default. */
export function benchMinutes(fallback: number): number {
  const minutes = Number(process.env['VIGIL_BENCH_MINUTES'] ?? fallback);
  if (!Number.isInteger(minutes) || minutes < 1) throw new Error(`VIGIL_BENCH_MINUTES must be a positive integer, got "${process.env['VIGIL_BENCH_MINUTES']}"`);
  return minutes;
}

/** A result as the API serves it, with the fields the benches read. */
export interface ServedResult {
  readonly startedAt: string | null;
  readonly checkRunId: number;
  readonly hasFailures: boolean;
  readonly notExecuted?: { reason: string };
}

export interface WindowResults {
  /** Start lag of every executed run whose slot lies in the window, ms. */
  readonly lags: number[];
  /** Slots in the window executed at least once. */
  readonly ran: number;
  /** Slots in the window without any result. */
  readonly missed: number;
  /** Slots in the window with more than one result (each counted once). */
  readonly doubled: number;
  /** Slots recorded as not executed (no runner took them). */
  readonly notExecuted: number;
  /** The results themselves, executed and in the window, for what else a suite reads from them. */
  readonly results: ServedResult[];
}

/**
 * Reads each check's results of the window (a result belongs to the slot its `checkRunId` names:
 * the due moment in whole seconds) and counts them per slot. Given several services (replicas of
 * one database), check n's results are read through service n modulo their number.
 */
export async function readWindowResults(serviceUrls: string | readonly string[], created: readonly CreatedCheck[], { from, to, minutes }: MeasuredWindow): Promise<WindowResults> {
  const through = typeof serviceUrls === 'string' ? [serviceUrls] : serviceUrls;
  const lags: number[] = [];
  const results: ServedResult[] = [];
  let ran = 0;
  let missed = 0;
  let doubled = 0;
  let notExecuted = 0;
  for (const [index, { id, perMinute, frequency, frequencyOffset }] of created.entries()) {
    const serviceUrl = through[index % through.length]!;
    const response = await api(`${serviceUrl}/v1/check-results/${id}?limit=100&from=${Math.floor(from / 1000) - 60}&to=${Math.ceil(to / 1000) + 60}`);
    if (response.status !== 200) throw new Error(`GET /v1/check-results/${id} answered ${response.status}: ${await response.text()}`);
    const served = (await response.json()) as ServedResult[];
    const perSlot = new Map<number, number>();
    const executedSlots = new Set<number>();
    for (const result of served) {
      if (result.checkRunId * 1000 < from || result.checkRunId * 1000 >= to) continue;
      perSlot.set(result.checkRunId, (perSlot.get(result.checkRunId) ?? 0) + 1);
      if (result.notExecuted || result.startedAt === null) {
        notExecuted++;
        continue;
      }
      results.push(result);
      executedSlots.add(result.checkRunId);
      // The slot itself is due at its phase to the millisecond: the first due moment at or after checkRunId.
      const dueMs = nextDueMs({ id, frequency, frequencyOffset: frequencyOffset ?? null }, result.checkRunId * 1000);
      lags.push(Date.parse(result.startedAt) - dueMs);
    }
    ran += executedSlots.size;
    missed += Math.max(0, minutes * perMinute - perSlot.size);
    for (const count of perSlot.values()) if (count > 1) doubled++;
  }
  return { lags, ran, missed, doubled, notExecuted, results };
}
