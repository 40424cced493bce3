/**
 * The pool of script processes. Every script runs in a fresh process that has never run anything
 * else (./sandbox.ts puts it behind every isolation layer the machine offers) and is killed when the
 * script ends: nothing a script leaves behind (a `process.env` setter, a timer, a patched module)
 * can reach another run, let alone another tenant's. To keep that cheap, the pool keeps spare
 * processes started ahead of need, up to its size.
 *
 * Runs wait their turn per tenant, and free places go round the tenants in turn, so one tenant's
 * queue of slow scripts delays its own runs, not everyone's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DoneMessage, RunMessage, WorkerMessage } from './protocol.js';
import { DEFAULT_SANDBOX_LIMITS, sandboxCommand, signalOf, type SandboxCommand, type SandboxLimits } from './sandbox.js';

declare const __VIGIL_BUNDLED__: boolean | undefined;

/** A worker that does not come up in this time is reported as a fault of the runner. */
const START_TIMEOUT_MS = 30_000;
/** Output a script writes straight to stdout/stderr (not through console); past it the run is stopped. */
export const MAX_STRAY_OUTPUT_BYTES = 64 * 1024;
/** V8's own heap limit, below the sandbox's data limit so the usual case is V8's clearer error. */
const HEAP_MEGABYTES = 512;

/** How the memory limit is named in a failed run's error. */
export function memoryLimit(limits: SandboxLimits): string {
  return `the memory limit (${HEAP_MEGABYTES} MiB of heap, ${Math.round(limits.memoryBytes / 1024 / 1024)} MiB in all)`;
}

interface Launch {
  /** The worker's entry file. */
  file: string;
  /** What the worker must be able to read: the directory holding its code. */
  codeRoot: string;
}

let fromSources: Launch | undefined;

/**
 * How a worker starts: the bundled CLI ships it as dist/script-worker.mjs. From sources it is
 * bundled here once into a file of its own, since the permission model forbids the child
 * processes tsx would start to compile TypeScript.
 */
function workerLaunch(): Launch {
  if (typeof __VIGIL_BUNDLED__ !== 'undefined' && __VIGIL_BUNDLED__) {
    const file = fileURLToPath(new URL('./script-worker.mjs', import.meta.url));
    return { file, codeRoot: path.dirname(file) };
  }
  if (fromSources) return fromSources;
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const built = esbuild.buildSync({ entryPoints: [fileURLToPath(new URL('./worker.ts', import.meta.url))], bundle: true, platform: 'node', format: 'esm', target: 'node20', write: false, logLevel: 'silent' });
  const code = built.outputFiles[0]!.contents;
  // Readable by the sandbox's own uid: the directory is shared by every test process on the machine.
  const codeRoot = path.join(os.tmpdir(), 'vigil-script-worker', createHash('sha256').update(code).digest('hex').slice(0, 16));
  const file = path.join(codeRoot, 'worker.mjs');
  mkdirSync(codeRoot, { recursive: true, mode: 0o755 });
  writeFileSync(file, code, { mode: 0o644 });
  fromSources = { file, codeRoot };
  return fromSources;
}

export type WorkerOutcome =
  | { kind: 'done'; message: DoneMessage; durationMs: number; output: string }
  | { kind: 'timeout' | 'aborted'; durationMs: number; output: string }
  | { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null; durationMs: number; output: string }
  | { kind: 'fault'; message: string; durationMs: number; output: string }
  /** A sandbox limit stopped it; `limit` names it ("the output limit (64 KiB)"). */
  | { kind: 'limit'; limit: string; durationMs: number; output: string };

interface Task {
  message: Omit<RunMessage, 'id' | 'type'>;
  /** Whose script it is: places in the pool go round the tenants in turn. */
  tenant: string;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  resolve(outcome: WorkerOutcome): void;
}

class ScriptWorker {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  /** What it was started to read besides its code: the project a run's `require` resolves from. */
  readonly projectRoot: string | null;
  dead = false;
  /** Answered its start-up message: takes a script without delay. */
  started = false;
  #onDone: ((message: DoneMessage) => void) | null = null;
  #onExit: ((code: number | null, signal: NodeJS.Signals | null) => void) | null = null;
  #onLimit: ((limit: string) => void) | null = null;
  #output = '';
  #outputBytes = 0;
  readonly #sandbox: SandboxCommand;
  readonly #runDirectory: string;
  readonly #limits: SandboxLimits;

  constructor(launch: Launch, args: readonly string[], projectRoot: string | null, slot: number, limits: SandboxLimits) {
    this.projectRoot = projectRoot;
    this.#limits = limits;
    this.#runDirectory = mkdtempSync(path.join(os.tmpdir(), 'vigil-run-'));
    this.#sandbox = sandboxCommand({
      nodeArgs: [`--max-old-space-size=${HEAP_MEGABYTES}`],
      entry: launch.file,
      entryArgs: args,
      readRoots: [launch.codeRoot, ...(projectRoot ? [projectRoot] : [])],
      runDirectory: this.#runDirectory,
      slot,
      limits,
    });
    if (this.#sandbox.uid !== null) chownSync(this.#runDirectory, this.#sandbox.uid, this.#sandbox.uid);
    this.child = spawn(this.#sandbox.command, this.#sandbox.args, {
      // Nothing of the runner's environment (API keys, tokens) reaches user code: a run's variables
      // arrive with the run.
      env: {},
      cwd: this.#runDirectory,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const collect = (chunk: Buffer) => {
      this.#outputBytes += chunk.length;
      if (this.#outputBytes > MAX_STRAY_OUTPUT_BYTES) {
        this.#onLimit?.(`the output limit (${MAX_STRAY_OUTPUT_BYTES / 1024} KiB)`);
        return;
      }
      this.#output += chunk.toString('utf8');
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
      const killedByThePool = this.dead;
      this.dead = true;
      this.#sandbox.killAll();
      const limit = this.#limitOf(code, signal, killedByThePool);
      if (limit) this.#onLimit?.(limit);
      else {
        const shown = signalOf(code, signal);
        this.#onExit?.(shown ? null : code, shown);
      }
      this.#sandbox.release();
      rmSync(this.#runDirectory, { recursive: true, force: true });
    });
    this.idle();
  }

  /** Which limit ended the process, judged from how it ended and its last words. */
  #limitOf(code: number | null, exitSignal: NodeJS.Signals | null, killedByThePool: boolean): string | null {
    const signal = signalOf(code, exitSignal);
    if (signal === 'SIGXCPU') return `the CPU time limit (${this.#limits.cpuSeconds} s)`;
    const memory = memoryLimit(this.#limits);
    if (/heap out of memory|allocation failed|Allocation failed/i.test(this.#output)) return memory;
    // The cgroup's out-of-memory killer leaves no words, only SIGKILL we did not send.
    if (signal === 'SIGKILL' && !killedByThePool) return memory;
    return null;
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
    this.#output = '';
    this.#outputBytes = 0;
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
        this.#onLimit = null;
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
      this.#onLimit = (limit) => {
        this.kill();
        finish({ kind: 'limit', limit, durationMs: elapsed(), output: output() });
      };
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
  /** Scripts running at once (and spare processes kept started). */
  size: number;
  /** Arguments of every worker process (the network policy's rules). */
  args?: readonly string[];
  limits?: SandboxLimits;
}

/** Runs tasks on at most `size` processes, one task per process; see the file comment. */
export class WorkerPool {
  readonly #size: number;
  readonly #args: readonly string[];
  readonly #limits: SandboxLimits;
  #launch: Launch | undefined;
  /** Started processes that have not run anything yet. */
  readonly #spare: ScriptWorker[] = [];
  readonly #all = new Set<ScriptWorker>();
  /** Waiting tasks per tenant; `#turns` is the order tenants get the next free place in. */
  readonly #waiting = new Map<string, Task[]>();
  #turns: string[] = [];
  /** Scripts running per tenant: a tenant with none running that starts waiting is a newcomer. */
  readonly #running = new Map<string, number>();
  /** How many tenants at the front of `#turns` have not been served since they started waiting. */
  #newcomers = 0;
  #nextId = 1;
  #nextSlot = 1;
  /** The project the last task ran for: spares are started to read it. */
  #lastProjectRoot: string | null = null;
  #closed = false;

  constructor(options: WorkerPoolOptions) {
    this.#size = Math.max(1, Math.floor(options.size));
    this.#args = options.args ?? [];
    this.#limits = options.limits ?? DEFAULT_SANDBOX_LIMITS;
  }

  /** Starts every spare now, so the first runs do not pay for process start-up. */
  async warm(): Promise<void> {
    while (this.#all.size < this.#size) this.#spare.push(this.#spawn(this.#lastProjectRoot));
    await Promise.all([...this.#all].map((worker) => worker.ready.catch(() => undefined)));
  }

  run(task: Omit<Task, 'resolve'>): Promise<WorkerOutcome> {
    if (this.#closed) return Promise.resolve({ kind: 'fault', message: 'the script pool is closed', durationMs: 0, output: '' });
    return new Promise((resolve) => {
      const queued: Task = { ...task, resolve };
      // A run cancelled while it waits for a process leaves the queue at once.
      const onAbort = () => {
        const queue = this.#waiting.get(task.tenant);
        const index = queue?.indexOf(queued) ?? -1;
        if (index < 0) return;
        queue!.splice(index, 1);
        resolve({ kind: 'aborted', durationMs: 0, output: '' });
      };
      queued.resolve = (outcome) => {
        task.signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      task.signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.#waiting.get(task.tenant);
      if (queue) queue.push(queued);
      else if ((this.#running.get(task.tenant) ?? 0) > 0) {
        this.#waiting.set(task.tenant, [queued]);
        this.#turns.push(task.tenant);
      } else {
        // A tenant that was not waiting goes ahead of those already served this round (after any
        // other newcomer): otherwise a busy tenant's next task would always be first in line.
        this.#waiting.set(task.tenant, [queued]);
        this.#turns.splice(this.#newcomers, 0, task.tenant);
        this.#newcomers += 1;
      }
      this.#dispatch();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const queue of this.#waiting.values()) for (const task of queue.splice(0)) task.resolve({ kind: 'fault', message: 'the script pool was closed', durationMs: 0, output: '' });
    this.#waiting.clear();
    this.#turns = [];
    this.#newcomers = 0;
    const exits = [...this.#all].map((worker) => (worker.child.exitCode !== null || worker.child.signalCode !== null ? undefined : new Promise((resolve) => worker.child.once('exit', resolve))));
    for (const worker of this.#all) {
      // Referenced again, so this process stays up until the exits it awaits have happened.
      worker.busy();
      worker.kill();
    }
    this.#all.clear();
    this.#spare.length = 0;
    await Promise.all(exits);
  }

  #spawn(projectRoot: string | null): ScriptWorker {
    this.#launch ??= workerLaunch();
    const worker = new ScriptWorker(this.#launch, this.#args, projectRoot, this.#nextSlot++, this.#limits);
    this.#all.add(worker);
    worker.child.on('exit', () => {
      this.#all.delete(worker);
      const index = this.#spare.indexOf(worker);
      if (index >= 0) this.#spare.splice(index, 1);
      this.#dispatch();
    });
    return worker;
  }

  /** The next task, taking tenants in turn. */
  #nextTask(): Task | undefined {
    while (this.#turns.length > 0) {
      const tenant = this.#turns.shift()!;
      if (this.#newcomers > 0) this.#newcomers -= 1;
      const queue = this.#waiting.get(tenant);
      const task = queue?.shift();
      if (queue && queue.length > 0) this.#turns.push(tenant);
      else this.#waiting.delete(tenant);
      if (task) return task;
    }
    return undefined;
  }

  /** A spare that can read what the task needs, starting one (in place of a spare that cannot) when none is there. */
  #processFor(projectRoot: string | null): ScriptWorker | undefined {
    for (let index = this.#spare.length - 1; index >= 0; index--) if (this.#spare[index]!.dead) this.#spare.splice(index, 1);
    const fits = (worker: ScriptWorker) => worker.projectRoot === projectRoot;
    // A started spare first: one still starting up would make the script wait for it.
    const index = [this.#spare.findLastIndex((worker) => fits(worker) && worker.started), this.#spare.findLastIndex(fits)].find((found) => found >= 0);
    if (index !== undefined) return this.#spare.splice(index, 1)[0];
    if (this.#all.size >= this.#size) {
      const unfit = this.#spare.pop();
      if (!unfit) return undefined;
      unfit.kill();
      this.#all.delete(unfit);
    }
    return this.#spawn(projectRoot);
  }

  #dispatch(): void {
    while (!this.#closed && this.#turns.length > 0) {
      const peek = this.#waiting.get(this.#turns[0]!)?.[0];
      const worker = this.#processFor(peek?.message.projectRoot ?? null);
      if (!worker) return;
      const task = this.#nextTask();
      if (!task) {
        this.#spare.push(worker);
        return;
      }
      if ((task.message.projectRoot ?? null) !== worker.projectRoot) {
        // The tenant whose turn it was had its task cancelled meanwhile; keep the process for later.
        this.#spare.push(worker);
        this.#requeue(task);
        continue;
      }
      void this.#runOn(worker, task);
    }
  }

  #requeue(task: Task): void {
    const queue = this.#waiting.get(task.tenant);
    if (queue) queue.unshift(task);
    else {
      this.#waiting.set(task.tenant, [task]);
      this.#turns.unshift(task.tenant);
      this.#newcomers += 1;
    }
  }

  async #runOn(worker: ScriptWorker, task: Task): Promise<void> {
    this.#running.set(task.tenant, (this.#running.get(task.tenant) ?? 0) + 1);
    try {
      await this.#runTask(worker, task);
    } finally {
      const stillRunning = (this.#running.get(task.tenant) ?? 1) - 1;
      if (stillRunning > 0) this.#running.set(task.tenant, stillRunning);
      else this.#running.delete(task.tenant);
    }
  }

  async #runTask(worker: ScriptWorker, task: Task): Promise<void> {
    const id = this.#nextId++;
    this.#lastProjectRoot = task.message.projectRoot ?? null;
    // Spares are unref'd; one a script waits for must keep the runner's process alive.
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
    // One run per process: whatever the script left behind goes with it.
    worker.kill();
    this.#all.delete(worker);
    task.resolve(outcome);
    // Keep a spare ready: the replacement starts now, not when the next script arrives.
    if (!this.#closed && this.#all.size < this.#size && this.#turns.length === 0) this.#spare.push(this.#spawn(this.#lastProjectRoot));
    this.#dispatch();
  }
}
