/**
 * The warm pool of script workers (child processes, not threads: a `process.exit`, a native crash or
 * a runaway allocation ends that process only). A run takes an idle worker, or starts one while the
 * pool is below its size, or waits its turn. A worker that misses a script's deadline is killed and
 * replaced, so an infinite loop fails one run and the next run finds a warm worker again.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { DoneMessage, RunMessage, WorkerMessage } from './protocol.js';

declare const __VIGIL_BUNDLED__: boolean | undefined;

/** A worker that does not come up in this time is reported as a fault of the runner. */
const START_TIMEOUT_MS = 30_000;
/** Workers are recycled after this many runs, so whatever scripts leave behind does not pile up. */
const RUNS_PER_WORKER = 500;
/** Output a script writes straight to stdout/stderr (not through console) kept per run. */
const MAX_STRAY_OUTPUT_CHARS = 64 * 1024;

/** How a worker starts: the bundled CLI ships it as dist/script-worker.mjs; from sources it runs through tsx. */
function workerLaunch(): { file: string; execArgv: string[] } {
  if (typeof __VIGIL_BUNDLED__ !== 'undefined' && __VIGIL_BUNDLED__) {
    return { file: fileURLToPath(new URL('./script-worker.mjs', import.meta.url)), execArgv: [] };
  }
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return { file: fileURLToPath(new URL('./worker.ts', import.meta.url)), execArgv: ['--import', tsx] };
}

export type WorkerOutcome =
  | { kind: 'done'; message: DoneMessage; durationMs: number; output: string }
  | { kind: 'timeout' | 'aborted'; durationMs: number; output: string }
  | { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null; durationMs: number; output: string }
  | { kind: 'fault'; message: string; durationMs: number; output: string };

interface Task {
  message: Omit<RunMessage, 'id' | 'type'>;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  resolve(outcome: WorkerOutcome): void;
}

class ScriptWorker {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  runs = 0;
  dead = false;
  /** Answered its start-up message: takes a script without delay. */
  started = false;
  #onDone: ((message: DoneMessage) => void) | null = null;
  #onExit: ((code: number | null, signal: NodeJS.Signals | null) => void) | null = null;
  #output = '';

  constructor(launch: { file: string; execArgv: string[] }, args: readonly string[]) {
    this.child = fork(launch.file, [...args], {
      // Nothing of the runner's environment (API keys, tokens in PATH-adjacent variables) reaches user code.
      env: {},
      execArgv: [...launch.execArgv, '--max-old-space-size=512'],
      cwd: os.tmpdir(),
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const collect = (chunk: Buffer) => {
      if (this.#output.length < MAX_STRAY_OUTPUT_CHARS) this.#output += chunk.toString('utf8');
    };
    this.child.stdout?.on('data', collect);
    this.child.stderr?.on('data', collect);
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the script process did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
      this.child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      this.child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the script process ended while starting (exit code ${code}, signal ${signal}): ${this.#output.trim()}`));
      });
      this.child.on('message', (message: WorkerMessage) => {
        if (message.type === 'ready') {
          clearTimeout(timer);
          this.started = true;
          resolve();
        } else if (message.type === 'done') {
          this.#onDone?.(message);
        }
      });
    });
    this.ready.catch(() => undefined);
    this.child.on('exit', (code, signal) => {
      this.dead = true;
      this.#onExit?.(code, signal);
    });
    this.idle();
  }

  /** An idle worker must not keep the runner's process alive. */
  idle(): void {
    this.child.unref();
    (this.child.channel as { unref?: () => void } | undefined)?.unref?.();
    for (const stream of [this.child.stdout, this.child.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
  }

  busy(): void {
    this.child.ref();
    (this.child.channel as { ref?: () => void } | undefined)?.ref?.();
    for (const stream of [this.child.stdout, this.child.stderr]) (stream as unknown as { ref?: () => void } | null)?.ref?.();
  }

  run(id: number, task: Task): Promise<WorkerOutcome> {
    this.runs += 1;
    this.#output = '';
    this.busy();
    const started = performance.now();
    return new Promise<WorkerOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: WorkerOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        task.signal?.removeEventListener('abort', onAbort);
        this.#onDone = null;
        this.#onExit = null;
        this.idle();
        resolve(outcome);
      };
      const elapsed = () => performance.now() - started;
      const output = () => this.#output;
      const timer = setTimeout(() => {
        this.kill();
        finish({ kind: 'timeout', durationMs: elapsed(), output: output() });
      }, task.timeoutMs);
      const onAbort = () => {
        this.kill();
        finish({ kind: 'aborted', durationMs: elapsed(), output: output() });
      };
      task.signal?.addEventListener('abort', onAbort, { once: true });
      this.#onDone = (message) => {
        if (message.id === id) finish({ kind: 'done', message, durationMs: elapsed(), output: output() });
      };
      this.#onExit = (code, signal) => finish({ kind: 'exited', code, signal, durationMs: elapsed(), output: output() });
      if (task.signal?.aborted) {
        // Cancelled before it started: the worker never saw it and stays in the pool.
        finish({ kind: 'aborted', durationMs: 0, output: '' });
        return;
      }
      const message: RunMessage = { type: 'run', id, ...task.message };
      this.child.send(message, (error) => {
        if (error) finish({ kind: 'fault', message: `could not hand the script to its process: ${error.message}`, durationMs: elapsed(), output: output() });
      });
    });
  }

  kill(): void {
    this.dead = true;
    this.child.kill('SIGKILL');
  }
}

export interface WorkerPoolOptions {
  size: number;
  /** Arguments of every worker process (the network policy's rules). */
  args?: readonly string[];
}

/** Runs tasks on at most `size` workers; see the file comment. */
export class WorkerPool {
  readonly #size: number;
  readonly #args: readonly string[];
  readonly #launch = workerLaunch();
  readonly #idle: ScriptWorker[] = [];
  readonly #all = new Set<ScriptWorker>();
  readonly #waiting: Task[] = [];
  #nextId = 1;
  #closed = false;

  constructor(options: WorkerPoolOptions) {
    this.#size = Math.max(1, Math.floor(options.size));
    this.#args = options.args ?? [];
  }

  /** Starts every worker now, so the first runs do not pay for process start-up. */
  async warm(): Promise<void> {
    while (this.#all.size < this.#size) this.#idle.push(this.#spawn());
    await Promise.all([...this.#all].map((worker) => worker.ready.catch(() => undefined)));
  }

  run(task: Omit<Task, 'resolve'>): Promise<WorkerOutcome> {
    if (this.#closed) return Promise.resolve({ kind: 'fault', message: 'the script pool is closed', durationMs: 0, output: '' });
    return new Promise((resolve) => {
      const queued: Task = { ...task, resolve };
      // A run cancelled while it waits for a worker leaves the queue at once.
      const onAbort = () => {
        const index = this.#waiting.indexOf(queued);
        if (index < 0) return;
        this.#waiting.splice(index, 1);
        resolve({ kind: 'aborted', durationMs: 0, output: '' });
      };
      queued.resolve = (outcome) => {
        task.signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      task.signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(queued);
      this.#dispatch();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const task of this.#waiting.splice(0)) task.resolve({ kind: 'fault', message: 'the script pool was closed', durationMs: 0, output: '' });
    const exits = [...this.#all].map((worker) => (worker.child.exitCode !== null || worker.child.signalCode !== null ? undefined : new Promise((resolve) => worker.child.once('exit', resolve))));
    for (const worker of this.#all) {
      // Referenced again, so this process stays up until the exits it awaits have happened.
      worker.busy();
      worker.kill();
    }
    this.#all.clear();
    this.#idle.length = 0;
    await Promise.all(exits);
  }

  #spawn(): ScriptWorker {
    const worker = new ScriptWorker(this.#launch, this.#args);
    this.#all.add(worker);
    worker.child.on('exit', () => {
      this.#all.delete(worker);
      const index = this.#idle.indexOf(worker);
      if (index >= 0) this.#idle.splice(index, 1);
    });
    return worker;
  }

  #dispatch(): void {
    while (this.#waiting.length > 0) {
      // A started worker first: a replacement still starting up would make the script wait for it.
      for (let index = this.#idle.length - 1; index >= 0; index--) if (this.#idle[index]!.dead) this.#idle.splice(index, 1);
      const startedAt = this.#idle.findLastIndex((candidate) => candidate.started);
      let worker = startedAt >= 0 ? this.#idle.splice(startedAt, 1)[0] : this.#idle.pop();
      if (!worker) {
        if (this.#all.size >= this.#size) return;
        worker = this.#spawn();
      }
      const task = this.#waiting.shift()!;
      void this.#runOn(worker, task);
    }
  }

  async #runOn(worker: ScriptWorker, task: Task): Promise<void> {
    const id = this.#nextId++;
    // Idle workers are unref'd; one a script waits for must keep the runner's process alive.
    worker.busy();
    try {
      await worker.ready;
    } catch (error) {
      worker.kill();
      this.#all.delete(worker);
      task.resolve({ kind: 'fault', message: `could not start a script process: ${(error as Error).message}`, durationMs: 0, output: '' });
      this.#dispatch();
      return;
    }
    const outcome = await worker.run(id, task);
    task.resolve(outcome);
    if (worker.dead || worker.runs >= RUNS_PER_WORKER) {
      if (!worker.dead) worker.kill();
      this.#all.delete(worker);
      // Keep the pool warm: the replacement starts now, not when the next script arrives.
      if (!this.#closed && this.#all.size < this.#size) this.#idle.push(this.#spawn());
    } else {
      this.#idle.push(worker);
    }
    this.#dispatch();
  }
}
