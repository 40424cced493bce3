/**
 * One script process of the pool (./pool.ts): how it is started (inside ./sandbox.ts's layers, with a
 * run directory of its own), the messages of one run with their deadline and cancellation, and how it
 * ended — a limit it passed is named from its exit (SIGXCPU, an out-of-memory death, its output).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DoneMessage, RunMessage, WorkerMessage } from './protocol.js';
import { sandboxCommand, signalOf, type SandboxCommand, type SandboxLimits } from './sandbox.js';

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

export interface Launch {
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
export function workerLaunch(): Launch {
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

export interface Task {
  message: Omit<RunMessage, 'id' | 'type'>;
  /** Whose script it is: places in the pool go round the tenants in turn. */
  tenant: string;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  resolve(outcome: WorkerOutcome): void;
}

export class ScriptWorker {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  /** What it was started to read besides its code: the project a run's `require` resolves from. */
  readonly projectRoot: string | null;
  /** The tenant it serves, from its first script on; null for a spare. */
  tenant: string | null = null;
  runs = 0;
  /** CPU the process has used, as it last reported. */
  cpuMs = 0;
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
        if (message.id !== id) return;
        if (typeof message.cpuMs === 'number') this.cpuMs = message.cpuMs;
        finish({ kind: 'done', message, durationMs: elapsed(), output: output() });
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
