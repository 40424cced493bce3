/**
 * How many runs the service keeps in flight. Scheduled runs mostly wait on the network: an API run
 * against a target that answers in one second holds a socket for that second and costs about a
 * millisecond of CPU. So a fixed number of runs in flight is the wrong bound: 50 runs of one second
 * each is 50 runs a second, however idle the CPU, and 2,000 checks every 20 s (100 a second) then
 * miss half their slots. What bounds such runs is memory and sockets, not cores.
 *
 * - Network runs (API, TCP, URL, DNS, SSL, gRPC, and any kind not named below) follow the load:
 *   by Little's law, the runs in flight needed to keep up are the rate slots fall due times how
 *   long a run takes (`AdaptiveLimit`), with headroom, never below the old fixed 50 and never above
 *   a maximum chosen from the machine's memory and open-file limit (`defaultMaxRunsInFlight`).
 * - Sandboxed runs (browser, multi-step and Playwright checks) start Node processes and perhaps a
 *   browser each, seconds of CPU per run: they keep a cap per core, whatever the load.
 * - Process runs (ICMP, traceroute) start a small system process each (`ping`, `traceroute`) that
 *   sleeps on the network: cheap in CPU, but a process each, so a fixed cap of a few per core.
 */
import os from 'node:os';
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';

/** The queue's view of a limit: asked before each start, told of each due slot and each run's duration. */
export interface RunLimit {
  /** The most runs in flight now. */
  current(nowMs: number): number;
  /** The most `current` ever returns. */
  readonly max: number;
  /** A slot of this kind fell due (handed to the queue), at `nowMs`. */
  due(nowMs: number): void;
  /** A run of this kind ended after `durationMs`. */
  ended(durationMs: number): void;
}

export class FixedLimit implements RunLimit {
  readonly max: number;
  constructor(limit: number) {
    this.max = Math.max(1, Math.floor(limit));
  }
  current(): number {
    return this.max;
  }
  due(_nowMs: number): void {}
  ended(_durationMs: number): void {}
}

/**
 * Below this many runs in flight the limit never goes: it was the fixed limit before the limit
 * followed the load, and served every service whose runs are short. It also keeps the fair share
 * between accounts (the limit divided by the active accounts, queue.ts) from shrinking to one run
 * each on a quiet service that suddenly gets busy.
 */
export const MIN_RUNS_IN_FLIGHT = 50;

export interface AdaptiveLimitOptions {
  /** The most runs in flight, whatever the load. */
  max: number;
  /** The fewest (default `MIN_RUNS_IN_FLIGHT`, or `max` when that is lower). */
  min?: number;
  /**
   * Spare capacity over what Little's law asks for (default 1.5). Durations vary around their mean
   * and slots bunch within a second; with exactly rate × mean in flight every run above the mean
   * would make the next ones wait, and the wait grows without bound as the load nears the limit.
   * With half again as many, a due run finds a free slot almost always.
   */
  headroom?: number;
  /** The due rate is the busiest of the last `windows` windows of `windowMs` (defaults 10 × 1 s). */
  windowMs?: number;
  windows?: number;
  /**
   * Weight of the newest duration in the running mean (default 0.05): at 100 runs ending a second,
   * the mean follows a target that got slower within a fraction of a second, while one slow run
   * among many moves it little.
   */
  durationWeight?: number;
}

/**
 * Runs in flight ≈ due rate × mean run duration × headroom, between `min` and `max`.
 *
 * The rate is the busiest window of the last ten seconds rather than a mean: checks fall due in
 * steps (several per 6-second step of their period), and a limit fitted to the average would queue
 * every step's first second. It shrinks back once the busy windows are older than that. The
 * duration is learned from runs that ended: a target that starts to hang counts once its first runs
 * reach their timeout, until then the limit is what the previous durations asked for.
 */
export class AdaptiveLimit implements RunLimit {
  readonly max: number;
  readonly #min: number;
  readonly #headroom: number;
  readonly #windowMs: number;
  readonly #counts: number[];
  readonly #durationWeight: number;
  /** Start of the window `#counts[#index]` counts. */
  #windowStart = Number.NEGATIVE_INFINITY;
  #index = 0;
  #meanDurationMs: number | undefined;

  constructor(options: AdaptiveLimitOptions) {
    this.max = Math.max(1, Math.floor(options.max));
    this.#min = Math.min(this.max, Math.max(1, Math.floor(options.min ?? MIN_RUNS_IN_FLIGHT)));
    this.#headroom = options.headroom ?? 1.5;
    this.#windowMs = options.windowMs ?? 1000;
    this.#counts = new Array<number>(Math.max(1, options.windows ?? 10)).fill(0);
    this.#durationWeight = options.durationWeight ?? 0.05;
  }

  /** Slots due a second, the busiest window counted (tests, diagnostics). */
  dueRate(nowMs: number): number {
    this.#roll(nowMs);
    return (Math.max(...this.#counts) * 1000) / this.#windowMs;
  }

  /** The running mean of run durations; undefined before any run ended. */
  get meanDurationMs(): number | undefined {
    return this.#meanDurationMs;
  }

  current(nowMs: number): number {
    const rate = this.dueRate(nowMs);
    if (this.#meanDurationMs === undefined) return this.#min;
    const needed = Math.ceil((rate * this.#meanDurationMs * this.#headroom) / 1000);
    return Math.min(this.max, Math.max(this.#min, needed));
  }

  due(nowMs: number): void {
    this.#roll(nowMs);
    this.#counts[this.#index]!++;
  }

  ended(durationMs: number): void {
    const duration = Math.max(0, durationMs);
    this.#meanDurationMs = this.#meanDurationMs === undefined ? duration : this.#meanDurationMs + this.#durationWeight * (duration - this.#meanDurationMs);
  }

  /** Moves to the window holding `nowMs`, emptying the windows passed. */
  #roll(nowMs: number): void {
    if (this.#windowStart === Number.NEGATIVE_INFINITY) this.#windowStart = nowMs;
    const passed = Math.floor((nowMs - this.#windowStart) / this.#windowMs);
    if (passed <= 0) return;
    for (let step = 0; step < Math.min(passed, this.#counts.length); step++) {
      this.#index = (this.#index + 1) % this.#counts.length;
      this.#counts[this.#index] = 0;
    }
    this.#windowStart += passed * this.#windowMs;
  }
}

/** Which cap a check's runs count against. */
export type RunLane = 'network' | 'sandboxed' | 'process';

const SANDBOXED = new Set(['BROWSER', 'MULTI_STEP', 'PLAYWRIGHT']);
const PROCESS = new Set(['ICMP', 'TRACEROUTE']);

export function runLaneOf(checkType: unknown): RunLane {
  const type = String(checkType ?? '');
  if (SANDBOXED.has(type)) return 'sandboxed';
  if (PROCESS.has(type)) return 'process';
  return 'network';
}

/**
 * Sandboxed runs in flight: one per core, at least two. The runner lets as many Playwright runs go
 * at once (multi-step/playwright-process.ts); a run the queue starts beyond that would wait inside
 * the runner, holding its place in flight where neither the fair turns between accounts nor the
 * replacement of stale slots reach it.
 */
export function defaultSandboxedRuns(cores = os.availableParallelism()): number {
  return Math.max(2, cores);
}

/** Process runs in flight: eight per core. Each is a `ping` or `traceroute` of a megabyte or two that mostly sleeps. */
export function defaultProcessRuns(cores = os.availableParallelism()): number {
  return 8 * Math.max(1, cores);
}

/** Memory a network run in flight is budgeted: its request and response, the result it builds. */
export const MEMORY_PER_RUN_BYTES = 1024 * 1024;

export interface MachineLimits {
  /** The process's soft limit on open files (`ulimit -n`); Node raises it to the hard limit at start. */
  openFiles: number;
  /** The JavaScript heap's size limit. */
  heapBytes: number;
  /** The machine's memory. */
  memoryBytes: number;
}

/**
 * The default most network runs in flight (`vigil server --max-runs-in-flight`):
 * `max(50, min(open files / 2, min(heap limit / 2, memory / 4) / 1 MiB))`.
 *
 * - Sockets: a run holds one; half the open-file limit stays for everything else the service keeps
 *   open (its database, the API's and agents' connections, deliveries, child processes' pipes).
 * - Memory: a run is budgeted 1 MiB (most hold a few kilobytes; a large response body is read up to
 *   a limit); the runs together may use half the JavaScript heap and a quarter of the machine.
 *
 * With Linux's default 1,024 open files that is 512; with a raised limit, 4 GiB of heap and 8 GiB of
 * memory or more, 2,048.
 */
export function defaultMaxRunsInFlight(limits: MachineLimits = machineLimits()): number {
  const bySockets = Math.floor(limits.openFiles / 2);
  const byMemory = Math.floor(Math.min(limits.heapBytes / 2, limits.memoryBytes / 4) / MEMORY_PER_RUN_BYTES);
  return Math.max(MIN_RUNS_IN_FLIGHT, Math.min(bySockets, byMemory));
}

export function machineLimits(): MachineLimits {
  return { openFiles: openFilesLimit(), heapBytes: v8.getHeapStatistics().heap_size_limit, memoryBytes: os.totalmem() };
}

/** Node has no getrlimit; Linux says it in /proc. Elsewhere, the common default of 1,024. */
function openFilesLimit(): number {
  try {
    const match = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (match) return match[1] === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(match[1]);
  } catch {
    // Not Linux: fall through.
  }
  return 1024;
}
