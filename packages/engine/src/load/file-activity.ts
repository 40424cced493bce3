import { createHook, executionAsyncId, type AsyncHook } from 'node:async_hooks';
import path from 'node:path';
import type { SourceLocation } from '@vigil/constructs';

/** Work a file started while it loaded and that had not finished when the wait for it ended. */
export interface PendingWork {
  /** The file being loaded when the work was started (absolute). */
  file: string;
  /** Node's name for it: `FSREQCALLBACK` (a callback of `fs`), `Timeout`, `TCPWRAP`, … */
  type: string;
  /** Where the user's code started it, when a frame of the user's files shows it. */
  site?: SourceLocation;
}

interface Tracked {
  file: string;
  type: string;
  resource: unknown;
  /** Captured when the work starts; formatted only if it is reported. */
  trace: { stack?: string };
}

/** How often {@link FileActivity.settle} looks again (work in fs callbacks takes milliseconds). */
const POLL_MS = 5;

/**
 * Which file of the project is being loaded at any moment, including in the callbacks that file
 * scheduled: Checkly's project parser keeps its session open while a file's asynchronous work
 * runs, so a construct created in an `fs.readdir` callback belongs to the project and resolves
 * relative paths from that file. Files evaluate one after another; the bundle's markers say when
 * each starts and ends, and an async hook carries the file over to every callback, timer or socket
 * its code creates (and theirs, in turn).
 *
 * The hook runs only while a load evaluates the user's files: async hooks make every promise of
 * the process cost more.
 */
export class FileActivity {
  #current: string | undefined;
  readonly #owners = new Map<number, string>();
  readonly #pending = new Map<number, Tracked>();
  readonly #hook: AsyncHook;

  constructor(private readonly root: string) {
    this.#hook = createHook({
      init: (asyncId, type, _trigger, resource) => {
        const file = this.#owners.get(executionAsyncId()) ?? this.#current;
        if (file === undefined) return;
        this.#owners.set(asyncId, file);
        // A promise is no work of its own (and is destroyed only when collected): what settles it is.
        if (type === 'PROMISE') return;
        const trace: { stack?: string } = {};
        Error.captureStackTrace(trace);
        this.#pending.set(asyncId, { file, type, resource, trace });
      },
      destroy: (asyncId) => {
        this.#owners.delete(asyncId);
        this.#pending.delete(asyncId);
      },
    });
  }

  enable(): void {
    this.#hook.enable();
  }

  disable(): void {
    this.#hook.disable();
    this.#owners.clear();
    this.#pending.clear();
    this.#current = undefined;
  }

  /** The bundle's marker before `file`'s code runs. */
  started(file: string): void {
    this.#current = file;
  }

  /** The bundle's marker after `file`'s code (its top-level awaits included) has run. */
  finished(file: string): void {
    if (this.#current === file) this.#current = undefined;
  }

  /** The file whose code (or a callback it scheduled) is running now, if any. */
  fileNow(): string | undefined {
    return this.#owners.get(executionAsyncId()) ?? this.#current;
  }

  /**
   * Waits until no work the files started is left (work that would not keep the process alive,
   * such as an unreferenced timer, does not count), for at most `boundMs`. Returns what is still
   * pending then, one entry per file and kind of work.
   */
  async settle(boundMs: number): Promise<PendingWork[]> {
    const started = performance.now();
    while (this.#live().length > 0 && performance.now() - started < boundMs) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const seen = new Set<string>();
    const left: PendingWork[] = [];
    for (const work of this.#live()) {
      const key = `${work.file}\0${work.type}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const site = this.#site(work);
      left.push({ file: work.file, type: work.type, ...(site ? { site } : {}) });
    }
    return left;
  }

  #live(): Tracked[] {
    return [...this.#pending.values()].filter((work) => {
      const resource = work.resource as { hasRef?: () => boolean } | null;
      return typeof resource?.hasRef !== 'function' || resource.hasRef();
    });
  }

  /** The first frame in one of the project's own files (source-mapped, so the user's lines). */
  #site(work: Tracked): SourceLocation | undefined {
    for (const line of (work.trace.stack ?? '').split('\n').slice(1)) {
      const match = /\(?((?:file:\/\/)?\/[^():]+):(\d+):(\d+)\)?\s*$/.exec(line);
      if (!match) continue;
      const file = match[1]!.replace(/^file:\/\//, '');
      if (!file.startsWith(this.root + path.sep) || /[\\/](node_modules|\.vigil)[\\/]/.test(file)) continue;
      return { file, line: Number(match[2]), column: Number(match[3]) };
    }
    return undefined;
  }
}

/** How Node's name for pending work reads in a message. */
export function describeWork(type: string): string {
  if (type.startsWith('FSREQ') || type === 'STATWATCHER' || type === 'FSEVENTWRAP') return 'a file-system callback';
  if (type === 'Timeout') return 'a timer';
  if (type === 'Immediate' || type === 'TickObject') return 'a scheduled callback';
  if (/TCP|UDP|PIPE|TLS|HTTP|DNS|GETADDRINFO/.test(type)) return 'a network request';
  return `asynchronous work (${type})`;
}
