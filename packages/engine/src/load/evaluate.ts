import { randomBytes } from 'node:crypto';
import { rmSync, rmdirSync } from 'node:fs';
import { readdir, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { LATE_CONSTRUCT_KEY, Project as DetachedProject, withProject, type Project } from '@vigil/constructs';
import { LOADED_KEY, LOADING_KEY, provideCreateRequire } from './bundle.js';
import { FileActivity, type PendingWork } from './file-activity.js';

/**
 * The directory a load writes its bundled modules to, removed when the load ends. It lives under
 * `<root>/.vigil/tmp/` rather than in the system temp directory because the bundles' bare imports
 * (npm packages, kept external) must resolve from the project's own node_modules, exactly as the
 * user's files would.
 *
 * Nothing may be left behind in the user's repository: an interrupt (SIGINT, SIGTERM) or an exit
 * during the load removes it too, and a directory whose process died without a chance to clean up
 * (SIGKILL) is removed by the next load.
 */
export class LoadDirectory {
  readonly #tmp: string;
  readonly #id = `${process.pid}-${randomBytes(4).toString('hex')}`;
  #removeListeners: (() => void) | undefined;

  constructor(root: string) {
    this.#tmp = path.join(root, '.vigil', 'tmp');
  }

  /** A fresh directory for one bundle (`config`, `monitors`) of this load. */
  directory(name: string): string {
    return path.join(this.#tmp, `load-${this.#id}`, name);
  }

  /**
   * Removes the directory of this load if the process is interrupted or exits before
   * {@link cleanUp}, and the directories of earlier loads whose process no longer exists.
   */
  async guard(): Promise<void> {
    const onExit = () => this.#removeSync();
    const onSignal = (signal: NodeJS.Signals) => {
      this.#removeSync();
      this.#removeListeners?.();
      // With no other listener, the signal's default action (ending the process) is what the user
      // asked for; sending it again produces it, with the exit status a shell expects.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.once('exit', onExit);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    this.#removeListeners = () => {
      process.removeListener('exit', onExit);
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      this.#removeListeners = undefined;
    };
    await this.#removeAbandoned();
  }

  /** Deletes everything this load wrote (evaluated modules stay in memory). */
  async cleanUp(): Promise<void> {
    this.#removeListeners?.();
    await rm(path.join(this.#tmp, `load-${this.#id}`), { recursive: true, force: true });
    // Another load may still be using tmp/; whichever load empties it removes it.
    await rmdir(this.#tmp).catch(() => undefined);
  }

  #removeSync(): void {
    rmSync(path.join(this.#tmp, `load-${this.#id}`), { recursive: true, force: true });
    try {
      rmdirSync(this.#tmp);
    } catch {
      // Not empty: another load is using it.
    }
  }

  async #removeAbandoned(): Promise<void> {
    const entries = await readdir(this.#tmp).catch(() => [] as string[]);
    await Promise.all(
      entries.map(async (entry) => {
        const pid = Number(/^load-(\d+)-[0-9a-f]+$/.exec(entry)?.[1]);
        if (!Number.isInteger(pid) || pid === process.pid || isRunning(pid)) return;
        await rm(path.join(this.#tmp, entry), { recursive: true, force: true });
      }),
    );
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What evaluating a list of modules produced: the exports of each, or the errors they threw. */
export interface EvaluationOutcome {
  exports: Array<Record<string, unknown> | undefined>;
  /** Each distinct error once, in the order thrown (a module importing a failed one rethrows it). */
  errors: unknown[];
  /**
   * Set when a module did not finish: `timeout` when the time allowed ran out (the user's code may
   * still be running, holding timers or sockets open), `unsettled` when Node had nothing left to do
   * that could ever settle a top-level await.
   */
  stalled?: 'timeout' | 'unsettled';
  /** Work the files started that was still pending when the wait for it ended. */
  pending: PendingWork[];
}

/**
 * Imports each module in order with `project` as the Project their constructs register into. A
 * module that throws does not stop the others, so one load reports every file that fails. Source
 * maps are switched on first, so the stack frames constructs record (and those of thrown errors)
 * point at the user's TypeScript, not at the bundle.
 *
 * User code decides when a module finishes (a top-level `await` may wait for anything), so the
 * imports race the `clock`: when its time runs out, or the process would exit because nothing could
 * settle the await any more (Node then exits 13 without a word), the outcome says `stalled` and the
 * modules still pending are left behind.
 */
export async function evaluateModules(urls: readonly string[], project: Project, clock: EvaluationClock, pendingWorkMs = PENDING_WORK_MS): Promise<EvaluationOutcome> {
  process.setSourceMapsEnabled(true);
  provideCreateRequire();
  const outcome: EvaluationOutcome = { exports: [], errors: [], pending: [] };
  // A file that ended the process would end `vigil validate` with its exit code and no word, which
  // CI reads as success; while files evaluate, calling process.exit is an error at its line.
  const exit = process.exit;
  process.exit = ((code?: number | string | null) => {
    throw new Error(`process.exit(${code ?? ''}) was called while vigil loaded the project; monitor and config files must not end the process`);
  }) as typeof process.exit;
  // A throw in a callback a file scheduled (fs.readdir's, a timer's) would end the process; it is
  // that file's error like any other.
  const onUncaught = (error: unknown) => {
    if (!outcome.errors.includes(error)) outcome.errors.push(error);
  };
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  const activity = new FileActivity(project.root);
  project.setLoadingFile(() => activity.fileNow());
  const global = globalThis as Record<symbol, unknown>;
  global[Symbol.for(LOADING_KEY)] = (file: string) => activity.started(file);
  activity.enable();
  const evaluation = withProject(project, async () => {
    for (const url of urls) {
      try {
        outcome.exports.push((await import(url)) as Record<string, unknown>);
      } catch (error) {
        outcome.exports.push(undefined);
        if (!outcome.errors.includes(error)) outcome.errors.push(error);
      }
    }
    outcome.pending = await activity.settle(pendingWorkMs);
  });
  try {
    const stalled = await clock.race(evaluation, (file) => activity.finished(file));
    if (stalled !== undefined) outcome.stalled = stalled;
  } finally {
    process.exit = exit;
    process.removeListener('uncaughtException', onUncaught);
    process.removeListener('unhandledRejection', onUncaught);
    activity.disable();
    delete global[Symbol.for(LOADING_KEY)];
    global[LATE_CONSTRUCT_KEY] = lateConstruct;
  }
  return outcome;
}

/**
 * How long the loader waits, once a file has loaded, for the asynchronous work it started (the
 * callbacks of `fs.readdir`, timers): constructs created there belong to the project, as in
 * Checkly. Work still pending then is an error at the line that started it.
 */
export const PENDING_WORK_MS = 5_000;

/**
 * A construct created after its load ended, by work that outlived {@link PENDING_WORK_MS} (an
 * error of that load already) or that Node would not wait for (an unreferenced timer). Throwing
 * from a callback would end the process mid-command; it goes into a Project nobody reads instead.
 */
function lateConstruct(what: string): Project {
  process.emitWarning(`${what} was created after vigil finished loading the project (in a callback a monitor file scheduled), so it is not part of this run`, 'VigilWarning');
  return new DetachedProject({ root: process.cwd() });
}

/**
 * The time one load allows the user's modules to evaluate in, shared by the config and the monitor
 * files, and which of their files have finished (the bundles report each one, see `LOADED_KEY`).
 */
export class EvaluationClock {
  readonly #finished = new Set<string>();
  #remainingMs: number;

  constructor(readonly timeoutMs: number) {
    this.#remainingMs = timeoutMs;
  }

  /** Whether the module of `file` (an absolute path) has finished evaluating. */
  hasFinished(file: string): boolean {
    return this.#finished.has(file);
  }

  /** Waits for `evaluation`; resolves to why it stopped waiting early, or `undefined` when it settled. */
  async race(evaluation: Promise<unknown>, onFinished?: (file: string) => void): Promise<'timeout' | 'unsettled' | undefined> {
    const global = globalThis as Record<symbol, unknown>;
    const key = Symbol.for(LOADED_KEY);
    global[key] = (file: string) => {
      this.#finished.add(file);
      onFinished?.(file);
    };
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    let onBeforeExit: (() => void) | undefined;
    const stalled = new Promise<'timeout' | 'unsettled'>((resolve) => {
      // Unreferenced, so it never keeps the process alive itself: an event loop with nothing left
      // in it is how an await that can never settle shows, through 'beforeExit'.
      timer = setTimeout(() => resolve('timeout'), Math.max(0, this.#remainingMs)).unref();
      onBeforeExit = () => resolve('unsettled');
      process.once('beforeExit', onBeforeExit);
    });
    try {
      return await Promise.race([evaluation.then(() => undefined), stalled]);
    } finally {
      clearTimeout(timer);
      if (onBeforeExit) process.removeListener('beforeExit', onBeforeExit);
      this.#remainingMs -= performance.now() - started;
      delete global[key];
    }
  }
}
