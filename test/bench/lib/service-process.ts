/**
 * `vigil server` in its own process for benchmarks, so the service's work never shares an event
 * loop (or a core's time slice accounting) with what is being measured.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const VIGIL_BIN = path.join(REPO_ROOT, 'packages/cli/bin/vigil.mjs');
const DIAGNOSTICS_MODULE = path.join(REPO_ROOT, 'test/bench/lib/service-diagnostics.mjs');

export interface ServiceProcess {
  readonly url: string;
  /** The server's process id, e.g. to read its CPU time from `/proc`. */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

export interface ServiceProcessOptions {
  /** `--data DIR`: the SQLite database's directory. Needed unless `database` is given. */
  readonly dataDir?: string;
  /** `--database URL`: a PostgreSQL database in place of `--data`, e.g. for several replicas sharing one. */
  readonly database?: string;
  readonly rateLimit?: string;
  readonly apiKey?: string;
  /**
   * A fixed port, for a dataset that several service processes serve in turn: the URL is part of the
   * target recorded in a project's state, so every restart must come back at the same address.
   */
  readonly port?: number;
  /** `--request-log FILE`: one JSON line per request, for counting the calls a command made. */
  readonly requestLog?: string;
  /** Run checks on their schedule; off by default (most suites measure the API alone). */
  readonly scheduler?: boolean;
  /** More `vigil server` flags, appended as given (e.g. `--max-runs-in-flight 50`). */
  readonly extraArgs?: readonly string[];
  /**
   * A directory the service writes its event-loop delay and PostgreSQL pool waits to at each SIGUSR2
   * (service-diagnostics.mjs, loaded into it; `signalDiagnostics` and `readDiagnostics`).
   */
  readonly diagnosticsDir?: string;
}

export async function startServiceProcess(options: ServiceProcessOptions): Promise<ServiceProcess> {
  // --no-scheduler unless asked: most suites measure the API, and their checks point at hosts that must never be called.
  if ((options.dataDir === undefined) === (options.database === undefined)) throw new Error('startServiceProcess needs either dataDir or database');
  const storage = options.database === undefined ? ['--data', options.dataDir!] : ['--database', options.database];
  const args = ['server', ...(options.scheduler ? [] : ['--no-scheduler']), '--port', String(options.port ?? 0), ...storage, '--api-key', options.apiKey ?? 'vigil-local', '--account-id', 'local'];
  if (options.rateLimit) args.push('--rate-limit', options.rateLimit);
  if (options.requestLog) args.push('--request-log', options.requestLog);
  args.push(...(options.extraArgs ?? []));
  // VIGIL_BENCH_PROFILE=DIR: a V8 CPU profile of the service, written to DIR when it stops (NODE_OPTIONS refuses --cpu-prof).
  const profileDir = process.env['VIGIL_BENCH_PROFILE'];
  const nodeFlags = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  if (options.diagnosticsDir !== undefined) nodeFlags.push('--import', pathToFileURL(DIAGNOSTICS_MODULE).href);
  const env = options.diagnosticsDir === undefined ? process.env : { ...process.env, VIGIL_BENCH_DIAGNOSTICS_DIR: options.diagnosticsDir };
  const child: ChildProcess = spawn(process.execPath, [...nodeFlags, VIGIL_BIN, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`vigil server exited with ${code}: ${out}`)));
  });
  return {
    url,
    pid: child.pid,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A free loopback port, found by binding port 0 and letting it go. */
export async function freeLoopbackPort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as import('node:net').AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** What service-diagnostics.mjs measured in a service between two SIGUSR2s, in ms. */
export interface ServiceDiagnostics {
  readonly eventLoopDelayMs: DiagnosticFigures;
  /** Waits for a PostgreSQL connection of units of work (a scheduled run's results, a write). */
  readonly unitWaitMs: DiagnosticFigures;
  /** Waits for a PostgreSQL connection of single statements (an API read's). */
  readonly statementWaitMs: DiagnosticFigures;
  /** Of all the waits, those of checkouts for which the pool opened a new connection. */
  readonly openingWaitMs: DiagnosticFigures;
}

export interface DiagnosticFigures {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** Asks a service started with `diagnosticsDir` to write what it measured since the last ask (file n of its pid) and start again. */
export function signalDiagnostics(service: ServiceProcess): void {
  process.kill(service.pid!, 'SIGUSR2');
}

/** The service's nth written measurement, once the file is there (it is written as the signal is handled). */
export async function readDiagnostics(service: ServiceProcess, diagnosticsDir: string, nth: number): Promise<ServiceDiagnostics> {
  const { readFile } = await import('node:fs/promises');
  const file = path.join(diagnosticsDir, `${service.pid}-${nth}.json`);
  for (let tries = 0; ; tries++) {
    try {
      return JSON.parse(await readFile(file, 'utf8')) as ServiceDiagnostics;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || tries >= 100) throw error;
      // Waiting for the service's signal handler to have written the file.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
