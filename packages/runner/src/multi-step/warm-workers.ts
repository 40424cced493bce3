/**
 * Warm Playwright workers: multi-step and browser runs of one tenant reuse a sandboxed process
 * (./warm-host.cjs) that has loaded Playwright, its config and a Playwright worker with the
 * browser it launched, instead of starting Playwright's CLI, its worker and Chromium per run.
 *
 * Isolation: a worker serves one tenant and one generated config (the key is both), in the
 * tenant's sandbox (its uid, namespaces, the cgroup limits of a cold run: memory and processes),
 * reading only the workspace's code and writing only its own directory and the tenant's cache.
 * Every test still gets a fresh browser context, page and request context; what a run leaves in
 * the process (its module, globals it set) is seen only by later runs of the same tenant. A run
 * that passes its deadline, is cancelled, or whose worker crashes kills the whole sandbox, and a
 * fresh worker is started in its place for the next run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chownSync, existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SandboxCommand } from '../scripts/sandbox.js';
import { playwrightEnv, playwrightSandbox, playwrightWorkspace, REPORT_GRACE_MS, tenantCache } from './playwright-process.js';
import type { ReportFile } from './report.js';
import { requirePlaywright, SPEC_FILE, type SpecRun } from './run-spec.js';

/** A worker is replaced after this many runs: each run's spec module stays loaded in it. */
export const MAX_RUNS_PER_WORKER = 200;
/** An idle worker is stopped after this long, so a tenant that stopped running checks holds no memory. */
export const WARM_IDLE_MS = 5 * 60_000;
const MAX_OUTPUT_CHARS = 64 * 1024;
/** How long a new worker may take to start before its run goes cold instead. */
const WARM_START_LIMIT_MS = 120_000;

/** Which worker served a run: `runs` counts the runs it served, this one included. */
export interface WarmWorkerInfo {
  pid: number;
  runs: number;
}

export interface WarmRunInput {
  /** The bundled spec with the banner that gives it `require`. */
  specSource: string;
  /** The generated Playwright config (./run-spec.ts); part of the worker's key. */
  configSource: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  denyNetworks?: readonly string[] | undefined;
  tenant: string | undefined;
  started: number;
}

interface HostMessage {
  type: 'ready' | 'report' | 'fatal';
  pid?: number;
  id?: number;
  report?: ReportFile;
  output?: string;
  workerBroken?: boolean;
  message?: string;
}

/**
 * The warm host's entry, beside this file (the CLI's build copies it beside its chunks). Should it be
 * missing, every run goes cold rather than failing.
 */
function hostEntry(): string | null {
  const file = fileURLToPath(new URL('./warm-host.cjs', import.meta.url));
  return existsSync(file) ? file : null;
}

class WarmWorker {
  readonly child: ChildProcess;
  readonly ready: Promise<boolean>;
  busy = false;
  runs = 0;
  lastUsed = Date.now();
  dead = false;
  #output = '';
  #onMessage: ((message: HostMessage) => void) | undefined;
  #onExit: (() => void) | undefined;
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly key: string,
    readonly tenant: string | undefined,
    readonly dir: string,
    readonly sandbox: SandboxCommand | null,
    command: string,
    args: readonly string[],
    env: Record<string, string>,
    private readonly onGone: (worker: WarmWorker) => void,
  ) {
    this.child = spawn(command, args, { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    const collect = (chunk: Buffer) => {
      if (this.#output.length < MAX_OUTPUT_CHARS) this.#output += chunk.toString('utf8');
    };
    this.child.stdout?.on('data', collect);
    this.child.stderr?.on('data', collect);
    this.ready = new Promise((resolve) => {
      const onReady = (message: HostMessage) => {
        if (message.type === 'ready') {
          this.child.off('message', onReady);
          resolve(true);
        }
      };
      this.child.on('message', onReady);
      this.child.once('exit', () => resolve(false));
      this.child.once('error', () => resolve(false));
    });
    this.child.on('message', (message: HostMessage) => this.#onMessage?.(message));
    this.child.once('exit', () => {
      this.dead = true;
      this.#onExit?.();
      this.kill();
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Output the host and its worker wrote since the last run took it (startup errors, crashes). */
  takeOutput(): string {
    const output = this.#output;
    this.#output = '';
    return output;
  }

  /** One run; resolves with the report, or null when the worker died, the deadline passed or the run was cancelled. */
  run(id: number, file: string, runDir: string, env: Record<string, string>): Promise<{ report: ReportFile | null; output: string; broken: boolean }> {
    return new Promise((resolve) => {
      this.#onMessage = (message) => {
        if (message.type === 'report' && message.id === id) {
          this.#onMessage = undefined;
          this.#onExit = undefined;
          resolve({ report: message.report ?? null, output: (message.output ?? '') + this.takeOutput(), broken: message.workerBroken === true });
        } else if (message.type === 'fatal') {
          this.#output += `${message.message ?? ''}\n`;
        }
      };
      this.#onExit = () => {
        this.#onMessage = undefined;
        resolve({ report: null, output: this.takeOutput(), broken: true });
      };
      this.child.send({ type: 'run', id, file, runDir, env });
    });
  }

  idleSoon(): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => this.kill(), WARM_IDLE_MS);
    this.#idleTimer.unref();
  }

  /** Kills the host, its Playwright worker and browser (the process group, and the sandbox's cgroups). */
  kill(): void {
    clearTimeout(this.#idleTimer);
    if (this.child.pid !== undefined && !this.dead) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        this.child.kill('SIGKILL');
      }
    }
    if (this.sandbox) {
      this.sandbox.killAll();
      this.sandbox.release();
    }
    this.dead = true;
    this.onGone(this);
    void rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** The warm workers of one runner. */
export class WarmPlaywrightWorkers {
  readonly #workers = new Set<WarmWorker>();
  /**
   * Workers being started, not yet in #workers: a replacement started in the background after a
   * crash counts against `max` from its first moment, or a run starting meanwhile would start one
   * too and the pool would pass `max` (and the next tenant's run then find no room and go cold).
   */
  #starting = 0;
  #nextRunId = 1;
  #closed = false;

  /** `max`: workers kept at once over every tenant; a run finding none free and no room runs cold. */
  constructor(readonly max: number) {}

  get size(): number {
    return this.#workers.size;
  }

  /** Runs the spec in a warm worker; null when none is free and there is no room for another (the caller runs it cold). */
  async run(input: WarmRunInput): Promise<(SpecRun & { worker: WarmWorkerInfo }) | null> {
    if (hostEntry() === null) return null;
    const key = workerKey(input.tenant, input.configSource, input.denyNetworks);
    let worker = [...this.#workers].find((candidate) => candidate.key === key && !candidate.busy && !candidate.dead);
    if (!worker) {
      if (!this.#makeRoom()) return null;
      const started = await this.#start(key, input);
      if (!started) return null;
      worker = started;
    }
    worker.busy = true;
    worker.lastUsed = Date.now();
    const runDir = path.join(worker.dir, 'runs', String(this.#nextRunId));
    const id = this.#nextRunId++;
    let timedOut = false;
    let aborted = false;
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      aborted = true;
      worker!.kill();
    };
    input.signal.addEventListener('abort', onAbort, { once: true });
    if (input.signal.aborted) onAbort();
    try {
      await mkdir(runDir, { recursive: true });
      const file = path.join(runDir, SPEC_FILE);
      await writeFile(file, input.specSource);
      if (worker.sandbox?.uid != null) {
        chownSync(runDir, worker.sandbox.uid, worker.sandbox.uid);
        chownSync(file, worker.sandbox.uid, worker.sandbox.uid);
      }
      // Starting a worker (Playwright's transform cache filled for a new tenant, on a busy machine)
      // is not the run's time: its deadline starts once the worker is ready. One that never gets
      // ready is stopped and the run goes cold.
      const ready = await Promise.race([worker.ready, new Promise<false>((resolve) => setTimeout(resolve, WARM_START_LIMIT_MS, false).unref())]);
      if (!ready && !aborted) {
        worker.kill();
        return null;
      }
      timer = setTimeout(() => {
        timedOut = true;
        worker!.kill();
      }, input.timeoutMs + REPORT_GRACE_MS);
      const outcome = ready && !worker.dead ? await worker.run(id, file, runDir, this.#env(input, worker.dir)) : { report: null, output: worker.takeOutput(), broken: true };
      worker.runs += 1;
      const info = { pid: worker.pid, runs: worker.runs };
      // A crashed worker, or one at the end of its runs, is replaced now, so the next run finds a warm one.
      if (outcome.broken || timedOut || aborted || worker.runs >= MAX_RUNS_PER_WORKER) {
        worker.kill();
        if (!this.#closed && !aborted) void this.#start(key, input).then((fresh) => fresh?.idleSoon());
      }
      const report = timedOut || aborted ? null : outcome.report;
      return { dir: runDir, report, output: outcome.output, timedOut, aborted, exitCode: report ? (report.status === 'passed' ? 0 : 1) : null, durationMs: performance.now() - input.started, worker: info };
    } finally {
      clearTimeout(timer);
      input.signal.removeEventListener('abort', onAbort);
      worker.busy = false;
      if (!worker.dead) worker.idleSoon();
      await rm(runDir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /** Stops every worker; runs later go cold. */
  close(): void {
    this.#closed = true;
    for (const worker of [...this.#workers]) worker.kill();
  }

  #env(input: WarmRunInput, dir: string): Record<string, string> {
    return playwrightEnv(input.env, { denyNetworks: input.denyNetworks, cacheDir: this.#cacheDirs.get(input.tenant ?? '') ?? '', home: dir });
  }

  readonly #cacheDirs = new Map<string, string>();

  /** True when there is room for one more worker, stopping the longest idle one if need be. */
  #makeRoom(): boolean {
    if (this.#closed) return false;
    while (this.#workers.size + this.#starting >= this.max) {
      const idle = [...this.#workers].filter((worker) => !worker.busy).sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (!idle) return false;
      idle.kill();
    }
    return true;
  }

  async #start(key: string, input: WarmRunInput): Promise<WarmWorker | null> {
    if (this.#closed || this.#workers.size + this.#starting >= this.max) return null;
    this.#starting++;
    try {
      return await this.#launch(key, input);
    } finally {
      this.#starting--;
    }
  }

  async #launch(key: string, input: WarmRunInput): Promise<WarmWorker | null> {
    const workspace = await playwrightWorkspace();
    const dir = await mkdtemp(path.join(workspace, 'warm-'));
    const cacheDir = await tenantCache(workspace, input.tenant);
    this.#cacheDirs.set(input.tenant ?? '', cacheDir);
    const configFile = path.join(dir, 'playwright.config.mjs');
    await writeFile(configFile, input.configSource);
    await mkdir(path.join(dir, 'runs'));
    const playwrightDir = path.dirname(requirePlaywright().resolve('playwright/package.json', { paths: [path.dirname(requirePlaywright().resolve('@playwright/test/package.json'))] }));
    const entry = hostEntry();
    if (entry === null) return null;
    const entryArgs = [playwrightDir, configFile];
    const sandbox = playwrightSandbox({ entry, entryArgs, runDirectory: dir, cacheDir, tenant: input.tenant });
    // The host starts with the runner's part of the environment only; each run brings the check's variables.
    const env = playwrightEnv({}, { denyNetworks: input.denyNetworks, cacheDir, home: sandbox ? dir : undefined });
    const worker = new WarmWorker(key, input.tenant, dir, sandbox, sandbox?.command ?? process.execPath, sandbox?.args ?? [entry, ...entryArgs], env, (gone) => this.#workers.delete(gone));
    this.#workers.add(worker);
    return worker;
  }
}

/** Tenant, config and policy: a worker never serves another tenant, nor a run that needs another config. */
function workerKey(tenant: string | undefined, configSource: string, denyNetworks: readonly string[] | undefined): string {
  return createHash('sha256')
    .update(JSON.stringify([tenant ?? '', configSource, denyNetworks ?? []]))
    .digest('hex');
}
