/**
 * A script worker: a child process of the script pool that runs setup and teardown scripts, one at
 * a time, for as long as the pool keeps it. Started with an empty environment; each run sees only
 * its check's variables in `process.env`. The pool kills it at a script's timeout, and replaces it
 * when it dies (a `process.exit`, a crash, an abort), so those fail one run only.
 *
 * Scripts run as the body of an async function (Checkly's contract: `request`, `response`,
 * `require`, top-level `await`), compiled once per distinct code and cached. Bundled scripts carry an
 * inline source map; stack frames are mapped through it to the user's own files.
 *
 * Imports only Node built-ins (and ./source-map.ts, ../network-policy*.ts), so it starts fast and
 * runs the same from sources and from the CLI bundle. The service's network policy (argv) is
 * installed before any script runs.
 */
import dgram from 'node:dgram';
import { createRequire, type SourceMap } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { formatWithOptions } from 'node:util';
import vm from 'node:vm';
import { denyNetworksFromArgv, installSocketGuard } from '../network-policy-guard.js';
import { parseNetworkPolicy } from '../network-policy.js';
import type { JobLogLine, ScriptRequest } from '../types.js';
import type { DoneMessage, RunMessage, WorkerError, WorkerResponse } from './protocol.js';
import { inlineSourceMap, originalPosition } from './source-map.js';

// Before any user code runs: scripts reach the network only through the service's policy.
installSocketGuard(parseNetworkPolicy(denyNetworksFromArgv(process.argv)));

const MAX_LOG_LINES = 1000;
const MAX_LOG_LINE_CHARS = 8192;
const MAX_CACHED_SCRIPTS = 64;
/** The compiled code's file name in V8's stack frames; frames of this file are the script's own. */
const SCRIPT_FILE = 'vigil-user-script.js';
const PARAMETERS = ['require', 'module', 'exports', '__filename', '__dirname', 'request', 'response', 'console'];

type ScriptFunction = (...args: unknown[]) => Promise<unknown>;

interface Compiled {
  script: vm.Script;
  map: SourceMap | null;
}

const compiledScripts = new Map<string, Compiled>();

function compile(code: string): Compiled {
  const cached = compiledScripts.get(code);
  if (cached) {
    // Map order is insertion order: re-inserting keeps the most recently used last.
    compiledScripts.delete(code);
    compiledScripts.set(code, cached);
    return cached;
  }
  // The wrapper sits on a line of its own and lineOffset -1 hides it, so V8's line numbers are the
  // script's own and match its source map.
  // A bundled entry that exports something ends in esbuild's `export { … };`, which a function body
  // cannot hold; the exports mean nothing to a setup script, so the line is blanked (lines keep their numbers).
  const body = code.replace(/^export\s*\{[^}]*\};?[ \t]*$/gm, (statement) => statement.replace(/[^\n]/g, ''));
  const script = new vm.Script(`(async function (${PARAMETERS.join(', ')}) {\n${body}\n})`, { filename: SCRIPT_FILE, lineOffset: -1 });
  const compiled = { script, map: inlineSourceMap(code) };
  compiledScripts.set(code, compiled);
  if (compiledScripts.size > MAX_CACHED_SCRIPTS) compiledScripts.delete(compiledScripts.keys().next().value as string);
  return compiled;
}

function locate(file: string, line: number, column: number, map: SourceMap | null, label: string): string | null {
  if (file !== SCRIPT_FILE) return null;
  return (map && originalPosition(map, line, column)) ?? `${label}:${line}:${column}`;
}

/** What Node's permission model refused, in words: its own message names neither the act nor the reason. */
const REFUSED_ACTS: Record<string, string> = {
  FileSystemRead: 'reading',
  FileSystemWrite: 'writing',
  ChildProcess: 'starting a child process',
  WorkerThreads: 'starting a worker thread',
};

function sandboxRefusal(error: Error): string {
  const { code, permission, resource } = error as Error & { code?: string; permission?: string; resource?: string };
  if (code !== 'ERR_ACCESS_DENIED') return '';
  const act = REFUSED_ACTS[permission ?? ''] ?? `using ${permission ?? 'this API'}`;
  return `: the script sandbox does not allow ${act}${resource ? ` ${resource}` : ''} (scripts may use only their own run directory, and start no processes)`;
}

const FRAME = /^\s*at (?:(.*?) \()?(.*?):(\d+):(\d+)\)?$/;

/** The error with its stack mapped to the user's files; frames of this worker and of Node are left out. */
function describeError(error: unknown, map: SourceMap | null, label: string): WorkerError {
  if (!(error instanceof Error)) {
    return { message: `a non-Error value was thrown: ${formatWithOptions({ depth: 2 }, '%o', error)}`, location: null, stack: '' };
  }
  const message = `${error.name}: ${error.message}${sandboxRefusal(error)}`;
  const frames: string[] = [];
  let location: string | null = null;
  // A syntax error has no frames: V8 names the place on the stack's first line instead.
  const syntax = error instanceof SyntaxError ? new RegExp(`^${SCRIPT_FILE.replace('.', '\\.')}:(\\d+)`).exec(error.stack ?? '') : null;
  if (syntax?.[1]) location = locate(SCRIPT_FILE, Number(syntax[1]), 1, map, label);
  for (const line of (error.stack ?? '').split('\n')) {
    const frame = FRAME.exec(line);
    if (!frame) continue;
    const [, fn, file = '', lineText = '0', columnText = '0'] = frame;
    const mapped = locate(file, Number(lineText), Number(columnText), map, label);
    if (mapped) {
      location ??= mapped;
      frames.push(`    at ${fn ? `${fn} (${mapped})` : mapped}`);
    } else if (file.includes('node_modules')) {
      frames.push(line);
    }
  }
  return { message, location, stack: [message, ...frames].join('\n') };
}

/** One run's job log. Closed when the run ends, so a callback a script left behind cannot write into a later run's log. */
class RunLog {
  readonly lines: JobLogLine[] = [];
  dropped = 0;
  closed = false;

  add(level: JobLogLine['level'], args: unknown[]): void {
    if (this.closed) return;
    if (this.lines.length >= MAX_LOG_LINES) {
      this.dropped += 1;
      return;
    }
    let msg = formatWithOptions({ depth: 4, colors: false }, ...(args as [unknown, ...unknown[]]));
    if (msg.length > MAX_LOG_LINE_CHARS) msg = `${msg.slice(0, MAX_LOG_LINE_CHARS)}… (${msg.length - MAX_LOG_LINE_CHARS} more characters)`;
    this.lines.push({ time: Date.now(), level, msg });
  }

  /** The `console` a script sees: every line goes to this log. */
  console() {
    return {
      log: (...args: unknown[]) => this.add('INFO', args),
      info: (...args: unknown[]) => this.add('INFO', args),
      debug: (...args: unknown[]) => this.add('DEBUG', args),
      trace: (...args: unknown[]) => this.add('DEBUG', args),
      warn: (...args: unknown[]) => this.add('WARN', args),
      error: (...args: unknown[]) => this.add('ERROR', args),
      dir: (value: unknown) => this.add('INFO', [value]),
      table: (value: unknown) => this.add('INFO', [value]),
      assert: (condition: unknown, ...args: unknown[]) => {
        if (!condition) this.add('ERROR', ['Assertion failed', ...args]);
      },
    };
  }

  close(): JobLogLine[] {
    this.closed = true;
    if (this.dropped > 0) this.lines.push({ time: Date.now(), level: 'WARN', msg: `${this.dropped} more log lines were dropped (at most ${MAX_LOG_LINES} per script)` });
    return this.lines;
  }
}

/** `require` resolving from the project first (its node_modules), then from the runner's own packages. */
function requireFor(projectRoot: string | null): NodeJS.Require {
  const own = createRequire(import.meta.url);
  if (!projectRoot) return own;
  const project = createRequire(path.join(projectRoot, '__vigil_script__.js'));
  const combined = ((id: string) => {
    try {
      return project(id);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
      return own(id);
    }
  }) as NodeJS.Require;
  return Object.assign(combined, { resolve: project.resolve, cache: project.cache, main: undefined, extensions: project.extensions });
}

/** The response object of a teardown script: Checkly's `statusCode`/`statusMessage`, with the fetch-style aliases. */
function scriptResponse(response: WorkerResponse): WorkerResponse & { status: number; statusText: string } {
  const target = { ...response } as WorkerResponse & { status: number; statusText: string };
  Object.defineProperty(target, 'status', { get: () => target.statusCode, set: (value: number) => (target.statusCode = value), enumerable: false });
  Object.defineProperty(target, 'statusText', { get: () => target.statusMessage, set: (value: string) => (target.statusMessage = value), enumerable: false });
  return target;
}

function plainStrings(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof value !== 'object' || value === null) return out;
  for (const [key, item] of Object.entries(value)) if (item !== undefined && item !== null) out[key] = String(item);
  return out;
}

function settledRequest(request: ScriptRequest): ScriptRequest {
  return {
    url: String(request.url),
    method: String(request.method).toUpperCase(),
    headers: plainStrings(request.headers),
    queryParameters: plainStrings(request.queryParameters),
    body: typeof request.body === 'string' ? request.body : request.body === undefined || request.body === null ? '' : JSON.stringify(request.body),
  };
}

function cpuMsSoFar(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

let current: { id: number; map: SourceMap | null; label: string } | null = null;
let strayError: WorkerError | null = null;

async function run(message: RunMessage): Promise<DoneMessage> {
  const log = new RunLog();
  strayError = null;
  process.env = { ...message.env };
  const request = { ...message.request, headers: { ...message.request.headers }, queryParameters: { ...message.request.queryParameters } };
  const response = message.response ? scriptResponse(message.response) : null;
  let error: WorkerError | null = null;
  let map: SourceMap | null = null;
  try {
    const compiled = compile(message.code);
    map = compiled.map;
    current = { id: message.id, map, label: message.label };
    const fn = compiled.script.runInThisContext() as ScriptFunction;
    const root = message.projectRoot ?? process.cwd();
    const module = { exports: {} };
    await fn(requireFor(message.projectRoot), module, module.exports, path.join(root, '__vigil_script__.js'), root, request, response, log.console());
  } catch (thrown) {
    error = describeError(thrown, map, message.label);
  }
  error ??= strayError;
  current = null;
  let settled: ScriptRequest = message.request;
  try {
    settled = settledRequest(request);
  } catch (thrown) {
    error ??= { message: `the script left request in a state that cannot be sent: ${String(thrown)}`, location: null, stack: '' };
  }
  const done: DoneMessage = {
    type: 'done',
    id: message.id,
    request: settled,
    response: response ? { statusCode: Number(response.statusCode), statusMessage: String(response.statusMessage ?? ''), headers: plainStrings(response.headers), body: typeof response.body === 'string' ? response.body : JSON.stringify(response.body) ?? '', timings: response.timings, timingPhases: response.timingPhases } : null,
    env: plainStrings(process.env),
    logs: log.close(),
    error,
    cpuMs: cpuMsSoFar(),
  };
  process.env = {};
  closeLeftovers();
  return done;
}

/**
 * Sockets, servers and watchers a script left open end with its run: the process may serve the
 * account's next script, which must not find a server still listening or a connection still open.
 * The IPC channel to the pool (a raw `Pipe` handle) and the standard streams stay.
 */
function closeLeftovers(): void {
  const handles = (process as unknown as { _getActiveHandles(): object[] })._getActiveHandles();
  for (const handle of handles) {
    if (handle === process.stdout || handle === process.stderr || handle.constructor.name === 'Pipe') continue;
    // A handle the script closed itself may still be listed while it closes, and closing it again
    // throws (a dgram socket's "Not running"): that must not keep the run from being answered.
    try {
      if (handle instanceof net.Socket) handle.destroy();
      else if (handle instanceof net.Server || handle instanceof dgram.Socket) handle.close();
      else if (typeof (handle as { close?: unknown }).close === 'function') (handle as { close(): void }).close();
    } catch {
      // already closing
    }
  }
}

// A promise the script left running may reject after its last await: it fails the run it belongs
// to (when still running) instead of ending the worker, which other runs share.
function onStray(thrown: unknown): void {
  if (current) strayError ??= describeError(thrown, current.map, current.label);
}
process.on('uncaughtException', onStray);
process.on('unhandledRejection', onStray);

const send = process.send?.bind(process);
if (!send) throw new Error('the script worker must be started by the script pool (it needs an IPC channel)');

let queue = Promise.resolve();
process.on('message', (message: RunMessage) => {
  if (message?.type !== 'run') return;
  queue = queue.then(async () => {
    send(await run(message));
  });
});
// A pool that went away (its process killed) leaves no one to answer to: go with it. The sandbox
// also kills this process with its parent; this covers the moments the event loop is free.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
