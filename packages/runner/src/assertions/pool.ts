/**
 * Where assertions run. A user's pattern or JSONPath against a remote body can take any time (a
 * backtracking regex is exponential; `$..*` on megabytes of JSON visits every node), and on the
 * caller's thread it would stop everything else the process does, the whole API of `vigil server`
 * included. So every assertion with a regex and every JSON_BODY assertion runs on a small pool of
 * worker threads, each assertion with a hard deadline and the worker with a memory limit; a worker
 * past either is terminated and replaced, and only that assertion fails. The cheap ones (status,
 * response time, headers and text compared without a pattern) run inline: they are linear in a
 * body the read has already bounded.
 *
 * Threads rather than a linear-time engine (RE2): users' patterns rely on lookahead and
 * backreferences, which RE2 refuses, and JSONPath filter expressions need the deadline too.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { AssertionOutcome } from '../types.js';
import { evaluateOne, type AssertedResponse, type AssertionInput } from './evaluate.js';
import type { EvaluateMessage, WorkerReply } from './worker.js';

declare const __VIGIL_BUNDLED__: boolean | undefined;

/** Time one assertion with a pattern or a JSONPath may take before it is stopped. */
export const ASSERTION_TIMEOUT_MS = 1_000;
/** Heap of one assertion worker: a few parsed copies of the largest body the read allows. */
export const ASSERTION_MEMORY_MB = 256;
export const ASSERTION_POOL_SIZE = 2;
/** A worker that does not come up in this time fails the assertions waiting for it. */
const START_TIMEOUT_MS = 30_000;

/** What executors call: evaluates every assertion (in order), never throws. */
export interface AssertionEvaluator {
  evaluate(assertions: readonly AssertionInput[], response: AssertedResponse): Promise<AssertionOutcome[]>;
}

/** Whether an assertion runs user-controlled matching (a regex or a JSONPath) and so must not run inline. */
export function needsIsolation(assertion: AssertionInput): boolean {
  return (assertion.regex !== null && assertion.regex !== undefined && assertion.regex !== '') || assertion.source === 'JSON_BODY';
}

type Stop =
  | { kind: 'timeout' }
  | { kind: 'memory' }
  | { kind: 'crash'; message: string }
  | { kind: 'start'; message: string }
  | { kind: 'closed' };

/** What one hand-over to a worker gave back: the outcomes of a prefix of the batch, and why it stopped short. */
interface BatchResult {
  outcomes: AssertionOutcome[];
  stop?: Stop;
}

interface Job {
  assertions: AssertionInput[];
  response: AssertedResponse;
  resolve(result: BatchResult): void;
}

type WorkerEvent = { type: 'outcome'; id: number; outcome: AssertionOutcome } | { type: 'exit'; error: Error | undefined };

/** How a worker starts: the bundled CLI ships dist/assertion-worker.mjs; from sources it loads worker.ts through tsx. */
function workerLaunch(): { target: string | URL; eval: boolean } {
  if (typeof __VIGIL_BUNDLED__ !== 'undefined' && __VIGIL_BUNDLED__) {
    return { target: new URL('./assertion-worker.mjs', import.meta.url), eval: false };
  }
  // A worker thread does not take `--import tsx`; it registers tsx's hooks itself, then loads the
  // worker. The ESM build of tsx's API is the one its exports map gives `import`, next to the CommonJS one.
  const api = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const worker = new URL('./worker.ts', import.meta.url).href;
  return { target: `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(worker)}); });`, eval: true };
}

class AssertionWorker {
  readonly thread: Worker;
  readonly ready: Promise<void>;
  started = false;
  dead = false;
  listener: ((event: WorkerEvent) => void) | null = null;
  #error: Error | undefined;

  constructor(launch: { target: string | URL; eval: boolean }, memoryMb: number) {
    this.thread = new Worker(launch.target, {
      eval: launch.eval,
      // Patterns never see the runner's environment or its flags.
      env: {},
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
    });
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`it did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
      timer.unref();
      this.thread.on('message', (reply: WorkerReply) => {
        if (reply.type === 'ready') {
          clearTimeout(timer);
          this.started = true;
          resolve();
        } else {
          this.listener?.(reply);
        }
      });
      this.thread.on('error', (error) => {
        this.#error = error;
      });
      this.thread.on('exit', (code) => {
        clearTimeout(timer);
        this.dead = true;
        reject(this.#error ?? new Error(`it ended while starting (exit code ${code})`));
        this.listener?.({ type: 'exit', error: this.#error });
      });
    });
    this.ready.catch(() => undefined);
    this.thread.unref();
  }

  terminate(): Promise<unknown> {
    this.dead = true;
    return this.thread.terminate();
  }
}

export interface AssertionPoolOptions {
  size?: number;
  timeoutMs?: number;
  memoryMb?: number;
}

/** Runs assertions as the file comment says; idle workers never keep the process alive. */
export class AssertionPool implements AssertionEvaluator {
  readonly #size: number;
  readonly #timeoutMs: number;
  readonly #memoryMb: number;
  #launch: { target: string | URL; eval: boolean } | undefined;
  readonly #all = new Set<AssertionWorker>();
  readonly #idle: AssertionWorker[] = [];
  readonly #waiting: Job[] = [];
  #nextId = 1;
  #closed = false;

  constructor(options: AssertionPoolOptions = {}) {
    this.#size = Math.max(1, Math.floor(options.size ?? ASSERTION_POOL_SIZE));
    this.#timeoutMs = options.timeoutMs ?? ASSERTION_TIMEOUT_MS;
    this.#memoryMb = options.memoryMb ?? ASSERTION_MEMORY_MB;
  }

  async evaluate(assertions: readonly AssertionInput[], response: AssertedResponse): Promise<AssertionOutcome[]> {
    const outcomes: AssertionOutcome[] = new Array(assertions.length);
    const isolated: number[] = [];
    assertions.forEach((assertion, index) => {
      if (needsIsolation(assertion)) isolated.push(index);
      else outcomes[index] = evaluateOne(assertion, response);
    });
    if (isolated.length === 0) return outcomes;
    const evaluated = await this.#evaluateIsolated(isolated.map((index) => assertions[index]!), response);
    isolated.forEach((index, position) => (outcomes[index] = evaluated[position]!));
    return outcomes;
  }

  /** Terminates every worker; assertions still waiting fail with a message saying so. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#waiting.splice(0)) job.resolve({ outcomes: [], stop: { kind: 'closed' } });
    const workers = [...this.#all];
    this.#all.clear();
    this.#idle.length = 0;
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  /** A stopped assertion fails and the ones after it go to a fresh worker, each with a deadline of its own. */
  async #evaluateIsolated(assertions: AssertionInput[], response: AssertedResponse): Promise<AssertionOutcome[]> {
    const outcomes: AssertionOutcome[] = [];
    while (outcomes.length < assertions.length) {
      const batch = await this.#submit(assertions.slice(outcomes.length), response);
      outcomes.push(...batch.outcomes);
      if (batch.stop === undefined) continue;
      const stop = batch.stop;
      // Nothing can run on a pool that is closed or whose workers cannot start: the rest fail alike.
      const all = stop.kind === 'closed' || stop.kind === 'start';
      do outcomes.push(stopped(assertions[outcomes.length]!, stop, this.#timeoutMs, this.#memoryMb));
      while (all && outcomes.length < assertions.length);
    }
    return outcomes;
  }

  #submit(assertions: AssertionInput[], response: AssertedResponse): Promise<BatchResult> {
    if (this.#closed) return Promise.resolve({ outcomes: [], stop: { kind: 'closed' } });
    return new Promise((resolve) => {
      this.#waiting.push({ assertions, response, resolve });
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#waiting.length > 0 && !this.#closed) {
      for (let index = this.#idle.length - 1; index >= 0; index--) if (this.#idle[index]!.dead) this.#idle.splice(index, 1);
      // A started worker first: one still starting would make the assertions wait for it.
      const startedAt = this.#idle.findLastIndex((candidate) => candidate.started);
      let worker = startedAt >= 0 ? this.#idle.splice(startedAt, 1)[0] : this.#idle.pop();
      if (worker === undefined) {
        if (this.#all.size >= this.#size) return;
        worker = this.#spawn();
      }
      void this.#run(worker, this.#waiting.shift()!);
    }
  }

  #spawn(): AssertionWorker {
    this.#launch ??= workerLaunch();
    const worker = new AssertionWorker(this.#launch, this.#memoryMb);
    this.#all.add(worker);
    worker.thread.once('exit', () => this.#all.delete(worker));
    return worker;
  }

  /** Takes a worker out of the pool (terminating it) and starts its replacement, so the pool stays warm. */
  #retire(worker: AssertionWorker): void {
    this.#all.delete(worker);
    if (!worker.dead) void worker.terminate();
    if (!this.#closed && this.#all.size < this.#size) this.#idle.push(this.#spawn());
  }

  async #run(worker: AssertionWorker, job: Job): Promise<void> {
    // Referenced while it works: a run waiting for its assertions must keep the process alive.
    worker.thread.ref();
    try {
      await worker.ready;
    } catch (error) {
      this.#all.delete(worker);
      if (!worker.dead) void worker.terminate();
      job.resolve({ outcomes: [], stop: this.#closed ? { kind: 'closed' } : { kind: 'start', message: (error as Error).message } });
      this.#dispatch();
      return;
    }
    if (this.#closed || worker.dead) {
      job.resolve({ outcomes: [], stop: this.#closed ? { kind: 'closed' } : { kind: 'crash', message: 'the worker ended before it was handed the assertions' } });
      return;
    }
    const id = this.#nextId++;
    const outcomes: AssertionOutcome[] = [];
    let timer: NodeJS.Timeout | undefined;
    const finish = (stop?: Stop) => {
      clearTimeout(timer);
      worker.listener = null;
      job.resolve(stop === undefined ? { outcomes } : { outcomes, stop });
      if (stop !== undefined) {
        this.#retire(worker);
      } else {
        worker.thread.unref();
        this.#idle.push(worker);
      }
      this.#dispatch();
    };
    // The deadline is each assertion's own: it restarts with every outcome that arrives.
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish({ kind: 'timeout' }), this.#timeoutMs);
    };
    worker.listener = (event) => {
      if (event.type === 'exit') {
        if (this.#closed) finish({ kind: 'closed' });
        else if ((event.error as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') finish({ kind: 'memory' });
        else finish({ kind: 'crash', message: event.error?.message ?? 'the worker ended unexpectedly' });
        return;
      }
      if (event.id !== id) return;
      outcomes.push(event.outcome);
      if (outcomes.length === job.assertions.length) finish();
      else arm();
    };
    arm();
    const message: EvaluateMessage = { id, assertions: job.assertions, response: job.response };
    worker.thread.postMessage(message);
  }
}

/** The outcome of an assertion the pool stopped (or could not run): failed, with a message naming the limit. */
function stopped(assertion: AssertionInput, stop: Stop, timeoutMs: number, memoryMb: number): AssertionOutcome {
  const label = assertion.label ?? assertion.source;
  const hasPattern = assertion.regex !== null && assertion.regex !== undefined && assertion.regex !== '';
  const what = assertion.source === 'JSON_BODY' ? (hasPattern ? 'JSONPath and pattern' : 'JSONPath') : 'pattern';
  const reasons: Record<Stop['kind'], string> = {
    timeout: `the ${what} did not finish within ${timeoutMs} ms and was stopped`,
    memory: `the ${what} needed more than ${memoryMb} MB of memory and was stopped`,
    crash: `the ${what} could not be evaluated: the assertion worker failed (${'message' in stop ? stop.message : ''})`,
    start: `the ${what} could not be evaluated: the assertion worker did not start (${'message' in stop ? stop.message : ''})`,
    closed: `the ${what} was not evaluated: the runner was closed`,
  };
  return {
    source: assertion.source,
    comparison: assertion.comparison,
    property: assertion.property ?? '',
    target: assertion.target ?? '',
    regex: assertion.regex ?? null,
    actual: undefined,
    passed: false,
    error: `${label} assertion: ${reasons[stop.kind]}`,
  };
}
