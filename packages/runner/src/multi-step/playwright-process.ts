/**
 * Runs Playwright's test CLI in a prepared directory, as a child process in its own process group
 * with the caller's environment only, a hard deadline (Playwright's own timeouts plus a grace for
 * its report) that kills the whole group, and cancellation; then reads the report our reporter
 * (./reporter.ts) wrote. Shared by the runs of multi-step and browser specs (./run-spec.ts) and of
 * Playwright check suites (../executors/playwright.ts).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, lchownSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SANDBOX_LIMITS, sandboxCommand, sandboxSupport, type SandboxCommand } from '../scripts/sandbox.js';
import { writeGuardedPlaywright } from './file-guard.js';
import { POLICY_PROXY_ENV } from './policy-proxy.js';
import type { ReportFile } from './report.js';
import { requirePlaywright, type SpecRun } from './run-spec.js';

declare const __VIGIL_BUNDLED__: boolean | undefined;

/** After Playwright's own timeouts (set to the run's deadline), how long it gets to write its report. */
export const REPORT_GRACE_MS = 5_000;
const MAX_OUTPUT_CHARS = 64 * 1024;

/** The reporter Playwright loads: dist/multi-step-reporter.mjs in the CLI bundle, the TypeScript source otherwise. */
export function playwrightReporterFile(): string {
  if (typeof __VIGIL_BUNDLED__ !== 'undefined' && __VIGIL_BUNDLED__) return fileURLToPath(new URL('./multi-step-reporter.mjs', import.meta.url));
  return fileURLToPath(new URL('./reporter.ts', import.meta.url));
}

let workspace: Promise<string> | undefined;

/**
 * One directory per runner process holding node_modules/@playwright/test (the runner's own copy,
 * guarded), so the code run below it (`require('@playwright/test')`) finds the very instance the
 * CLI runs. Runs are directories inside it.
 */
export function playwrightWorkspace(): Promise<string> {
  workspace ??= (async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'vigil-playwright-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const packageDir = path.dirname(requirePlaywright().resolve('@playwright/test/package.json'));
    // Entry points that load the runner's copy with a `test` whose pages may not load file: URLs
    // (./file-guard.ts), rather than a link to that copy.
    await writeGuardedPlaywright(dir, packageDir);
    try {
      const playwrightDir = path.dirname(createRequire(path.join(packageDir, 'package.json')).resolve('playwright/package.json'));
      symlinkSync(playwrightDir, path.join(dir, 'node_modules', 'playwright'), 'dir');
    } catch {
      // Only `@playwright/test` is promised to user code.
    }
    return dir;
  })();
  return workspace;
}

/**
 * NODE_OPTIONS that load the network policy into every Node process of the run: the bundled
 * preload, or from sources the TypeScript one through tsx's CommonJS hook. Not tsx's ES module
 * hooks: beside Playwright's own, they keep its process alive after a run of TypeScript specs
 * (a Playwright check suite), until the deadline kills it.
 */
export function policyNodeOptions(): string {
  if (typeof __VIGIL_BUNDLED__ !== 'undefined' && __VIGIL_BUNDLED__) return `--import ${new URL('./network-policy-preload.mjs', import.meta.url).href}`;
  const tsx = createRequire(import.meta.url).resolve('tsx/cjs');
  return `--require ${JSON.stringify(tsx)} --require ${JSON.stringify(fileURLToPath(new URL('../network-policy-preload.ts', import.meta.url)))}`;
}

export interface PlaywrightProcessInput {
  /** The run's directory: positions in the report are below it. */
  dir: string;
  /** Arguments after `playwright test` (the config first). */
  args: readonly string[];
  /** Where the reporter writes its report. */
  reportFile: string;
  /** The whole environment of the run (the check's variables). */
  env: Record<string, string>;
  /** The run's deadline; the process group is killed {@link REPORT_GRACE_MS} after it. */
  timeoutMs: number;
  signal: AbortSignal;
  /** CIDRs the run's Node processes may not connect to; none when absent. */
  denyNetworks?: readonly string[] | undefined;
  /** performance.now() when the run began (its duration counts from there). */
  started: number;
  /** Whose run it is: keys its Playwright transform cache (and, in the sandbox, its uid). */
  tenant?: string | undefined;
}

/**
 * The whole environment of a Playwright process: the check's variables, then what the runner owns
 * (no colours, its network policy, the tenant's transform cache, and in the sandbox a home inside
 * the run's own directory).
 */
export function playwrightEnv(variables: Record<string, string>, options: { denyNetworks?: readonly string[] | undefined; cacheDir: string; home: string | undefined }): Record<string, string> {
  const env: Record<string, string> = { ...variables, FORCE_COLOR: '0', PW_TEST_HTML_REPORT_OPEN: 'never' };
  if (process.env.PLAYWRIGHT_BROWSERS_PATH) env.PLAYWRIGHT_BROWSERS_PATH = process.env.PLAYWRIGHT_BROWSERS_PATH;
  if (options.denyNetworks !== undefined && options.denyNetworks.length > 0) {
    env.VIGIL_DENY_NETWORKS = options.denyNetworks.join(',');
    env.NODE_OPTIONS = policyNodeOptions();
    // Set by the policy itself, never by a check variable: the proxy's URL (./policy-proxy.ts), and
    // Playwright's switch that would let Chromium reach loopback without the proxy.
    delete env[POLICY_PROXY_ENV];
    delete env.PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK;
  }
  env.PWTEST_CACHE_DIR = options.cacheDir;
  if (options.home !== undefined) {
    // Playwright and Chromium keep profiles under the home and temporary directories, which inside
    // the sandbox only the run's own directory can be.
    env.HOME = options.home;
    env.TMPDIR = options.home;
  }
  return env;
}

/** Runs `playwright test` once; never throws for anything the code under test does. */
export async function runPlaywrightProcess(input: PlaywrightProcessInput): Promise<SpecRun> {
  const cli = requirePlaywright().resolve('@playwright/test/cli');
  // Playwright caches compiled specs in a shared directory by default: code one tenant's spec
  // planted there would run in another's. Each tenant gets a cache of its own, whatever its variables say.
  const cacheDir = await tenantCache(path.dirname(input.dir), input.tenant);
  const sandbox = playwrightSandbox({ entry: cli, entryArgs: ['test', ...input.args], runDirectory: input.dir, cacheDir, tenant: input.tenant });
  const env = playwrightEnv(input.env, { denyNetworks: input.denyNetworks, cacheDir, home: sandbox ? input.dir : undefined });
  const child = spawn(sandbox?.command ?? process.execPath, sandbox?.args ?? [cli, 'test', ...input.args], {
    cwd: input.dir,
    env,
    // Its own process group, so the deadline kills Playwright's workers and browsers with it.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    if (output.length < MAX_OUTPUT_CHARS) output += chunk.toString('utf8');
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  let timedOut = false;
  let aborted = false;
  const killGroup = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, input.timeoutMs + REPORT_GRACE_MS);
  const onAbort = () => {
    aborted = true;
    killGroup();
  };
  input.signal.addEventListener('abort', onAbort, { once: true });
  if (input.signal.aborted) onAbort();
  const exitCode = await new Promise<number | null>((resolve) => {
    child.once('error', (error) => {
      output += `\n${error.message}`;
      resolve(null);
    });
    child.once('close', (code) => resolve(code));
  });
  if (sandbox) {
    sandbox.killAll();
    sandbox.release();
  }
  clearTimeout(timer);
  input.signal.removeEventListener('abort', onAbort);
  let report: ReportFile | null = null;
  if (!timedOut && !aborted) {
    try {
      report = JSON.parse(await readFile(input.reportFile, 'utf8')) as ReportFile;
    } catch {
      report = null;
    }
  }
  return { dir: input.dir, report, output, timedOut, aborted, exitCode, durationMs: performance.now() - input.started };
}

let nextSandboxSlot = 1;

/** A number standing for the tenant: the same tenant, the same number. */
export function tenantKey(tenant: string | undefined): number {
  return createHash('sha256').update(tenant ?? '').digest().readUInt32BE(0);
}

/** The tenant's own Playwright cache directory inside the workspace. */
export async function tenantCache(workspace: string, tenant: string | undefined): Promise<string> {
  const dir = path.join(workspace, 'cache', createHash('sha256').update(tenant ?? '').digest('hex').slice(0, 24));
  await mkdir(dir, { recursive: true });
  return dir;
}

/** The directory holding every package Playwright may load: the top `node_modules` of its real path. */
function packagesRoot(file: string): string {
  const real = realpathSync(file);
  const index = real.indexOf(`${path.sep}node_modules${path.sep}`);
  return index < 0 ? path.dirname(real) : real.slice(0, index + `${path.sep}node_modules`.length);
}

/**
 * Where the service runs as root with bubblewrap: the run in namespaces of its own, as a uid of its
 * own, seeing only the system, the packages, Vigil's own code and the workspace (its run directory
 * the only place it writes). Without that, null: the run is a plain process group, as the docs say.
 */
export function playwrightSandbox(request: { entry: string; entryArgs: readonly string[]; runDirectory: string; cacheDir: string; tenant: string | undefined }): SandboxCommand | null {
  const support = sandboxSupport();
  if (!support.bubblewrap) return null;
  const ownCode = path.dirname(fileURLToPath(import.meta.url));
  // From sources, our code is TypeScript loaded through tsx from the repository's packages.
  const codeRoots = typeof __VIGIL_BUNDLED__ !== 'undefined' && __VIGIL_BUNDLED__ ? [ownCode] : [path.resolve(ownCode, '../../..')];
  const { cacheDir, runDirectory } = request;
  const command = sandboxCommand(
    {
      nodeArgs: [],
      entry: request.entry,
      entryArgs: [...request.entryArgs],
      readRoots: [path.dirname(runDirectory), packagesRoot(request.entry), packagesRoot(requirePlaywright().resolve('@playwright/test/cli')), ...codeRoots],
      runDirectory,
      writeRoots: [cacheDir],
      slot: nextSandboxSlot++,
      // One uid per tenant, so a tenant's later runs can use the cache its earlier ones wrote.
      uidKey: tenantKey(request.tenant),
      limits: { ...DEFAULT_SANDBOX_LIMITS, memoryBytes: PLAYWRIGHT_MEMORY_BYTES, processes: PLAYWRIGHT_PROCESSES },
      permissionModel: false,
      resourceLimits: false,
    },
    support,
  );
  if (command.uid !== null) {
    // The workspace holds only code (the guarded @playwright/test); the sandbox's uid must walk through it.
    chmodSync(path.dirname(runDirectory), 0o755);
    chmodSync(path.dirname(cacheDir), 0o755);
    chownTree(runDirectory, command.uid);
    // The tenant's uid owns its cache already after its first run; walking the tree again is waste.
    if (statSync(cacheDir).uid !== command.uid) chownTree(cacheDir, command.uid);
  }
  return command;
}

/** Memory and processes of one Playwright run in its cgroup: a test runner, a worker and a browser. */
const PLAYWRIGHT_MEMORY_BYTES = 2 * 1024 * 1024 * 1024;
const PLAYWRIGHT_PROCESSES = 512;

export function chownTree(dir: string, uid: number): void {
  chownSync(dir, uid, uid);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(file, uid);
    else lchownSync(file, uid, uid);
  }
}

/**
 * Playwright runs at once in this process, one per core (at least two): each is two Node processes
 * (and perhaps a browser), so more only makes every run slower and pushes it towards its deadline.
 * A run waiting for its turn is not timed; a cancelled one leaves the queue.
 */
const MAX_CONCURRENT_RUNS = Math.max(2, os.availableParallelism());
let runningRuns = 0;
const waitingRuns: Array<() => void> = [];

/** Waits for a Playwright run's turn: false when `signal` ended the wait (the run must not start). */
export function playwrightTurn(signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (runningRuns < MAX_CONCURRENT_RUNS) {
    runningRuns += 1;
    return Promise.resolve(true);
  }
  return new Promise((resolve) => {
    const grant = () => {
      signal.removeEventListener('abort', cancel);
      runningRuns += 1;
      resolve(true);
    };
    const cancel = () => {
      const index = waitingRuns.indexOf(grant);
      if (index >= 0) waitingRuns.splice(index, 1);
      resolve(false);
    };
    waitingRuns.push(grant);
    signal.addEventListener('abort', cancel, { once: true });
  });
}

/** Ends a turn {@link playwrightTurn} granted. */
export function endPlaywrightTurn(): void {
  runningRuns -= 1;
  waitingRuns.shift()?.();
}
