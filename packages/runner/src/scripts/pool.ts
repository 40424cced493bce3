/**
 * The pool of script processes. A process serves one tenant only: it starts unbound (a spare, started
 * ahead of need), is bound to the tenant of its first script, and from then on runs only that
 * tenant's scripts, until it has run {@link RUNS_PER_PROCESS} of them, used half its CPU limit, or a
 * script failed in a way that may have left it broken (a timeout, a limit, an exit). So whatever a
 * script leaves behind (a `process.env` setter, a timer, a patched module) can reach later scripts of
 * its own account at most, never another account's. ./sandbox.ts puts each process behind every
 * isolation layer the machine offers.
 *
 * Runs wait their turn per tenant, and free places go round the tenants in turn, so one tenant's
 * queue of slow scripts delays its own runs, not everyone's.
 */
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './sandbox.js';
import { ScriptWorker, workerLaunch, type Launch, type Task, type WorkerOutcome } from './process.js';

export { MAX_STRAY_OUTPUT_BYTES, memoryLimit, type WorkerOutcome } from './process.js';

/** Scripts one process runs before it is replaced, so what scripts leave behind does not pile up. */
export const RUNS_PER_PROCESS = 50;

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
  /** Processes waiting for a script: spares (no tenant yet) and processes bound to a tenant. */
  readonly #idle: ScriptWorker[] = [];
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
    while (this.#all.size < this.#size) this.#idle.push(this.#spawn(this.#lastProjectRoot));
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
    this.#idle.length = 0;
    await Promise.all(exits);
  }

  #spawn(projectRoot: string | null): ScriptWorker {
    this.#launch ??= workerLaunch();
    const worker = new ScriptWorker(this.#launch, this.#args, projectRoot, this.#nextSlot++, this.#limits);
    this.#all.add(worker);
    worker.child.on('exit', () => {
      this.#all.delete(worker);
      const index = this.#idle.indexOf(worker);
      if (index >= 0) this.#idle.splice(index, 1);
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

  /**
   * A process for a script of `tenant` that reads `projectRoot`: one of the tenant's own first, else a
   * spare, else (when the pool is full) one taking the place of an idle process that cannot serve it.
   */
  #processFor(tenant: string, projectRoot: string | null): ScriptWorker | undefined {
    for (let index = this.#idle.length - 1; index >= 0; index--) if (this.#idle[index]!.dead) this.#idle.splice(index, 1);
    const own = (worker: ScriptWorker) => worker.projectRoot === projectRoot && worker.tenant === tenant;
    const spare = (worker: ScriptWorker) => worker.projectRoot === projectRoot && worker.tenant === null;
    // A started process first: one still starting up would make the script wait for it.
    for (const fits of [own, spare]) {
      const index = [this.#idle.findLastIndex((worker) => fits(worker) && worker.started), this.#idle.findLastIndex(fits)].find((found) => found >= 0);
      if (index !== undefined) return this.#idle.splice(index, 1)[0];
    }
    if (this.#all.size >= this.#size) {
      // Idle processes of other tenants (or for another project) give way, the longest idle first.
      const unfit = this.#idle.shift();
      if (!unfit) return undefined;
      unfit.kill();
      this.#all.delete(unfit);
    }
    return this.#spawn(projectRoot);
  }

  #dispatch(): void {
    while (!this.#closed && this.#turns.length > 0) {
      const peek = this.#waiting.get(this.#turns[0]!)?.[0];
      const worker = this.#processFor(peek?.tenant ?? '', peek?.message.projectRoot ?? null);
      if (!worker) return;
      const task = this.#nextTask();
      if (!task) {
        this.#idle.push(worker);
        return;
      }
      if ((task.message.projectRoot ?? null) !== worker.projectRoot || (worker.tenant !== null && worker.tenant !== task.tenant)) {
        // The tenant whose turn it was had its task cancelled meanwhile; keep the process for later.
        this.#idle.push(worker);
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
    worker.tenant = task.tenant;
    const outcome = await worker.run(id, task);
    worker.runs += 1;
    const reusable = outcome.kind === 'done' && !worker.dead && !this.#closed && worker.runs < RUNS_PER_PROCESS && worker.cpuMs < (this.#limits.cpuSeconds * 1000) / 2;
    task.resolve(outcome);
    if (reusable) {
      worker.idle();
      this.#idle.push(worker);
    } else {
      worker.kill();
      this.#all.delete(worker);
      // Keep a spare ready: the replacement starts now, not when the next script arrives.
      if (!this.#closed && this.#all.size < this.#size && this.#turns.length === 0) this.#idle.push(this.#spawn(this.#lastProjectRoot));
    }
    this.#dispatch();
  }
}
