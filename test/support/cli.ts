/**
 * Runs the real CLI as a subprocess against a real service, as CI and users do. `startVigil` returns
 * the child so crash tests can SIGKILL it mid-apply.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const VIGIL_BIN = path.join(REPO_ROOT, 'packages/cli/bin/vigil.mjs');

export interface VigilResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface VigilOptions {
  readonly cwd: string;
  /** Merged over a clean environment: NO_COLOR=1, CI=true, no VIGIL_* from the parent. */
  readonly env?: Readonly<Record<string, string>>;
  readonly input?: string;
}

function environment(extra: Readonly<Record<string, string>> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', CI: 'true' };
  for (const key of Object.keys(env)) if (key.startsWith('VIGIL_')) delete env[key];
  return { ...env, ...extra };
}

export function startVigil(args: readonly string[], options: VigilOptions): { child: ChildProcess; done: Promise<VigilResult> } {
  const child = spawn(process.execPath, [VIGIL_BIN, ...args], { cwd: options.cwd, env: environment(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  if (options.input !== undefined) child.stdin!.end(options.input);
  else child.stdin!.end();
  const done = new Promise<VigilResult>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

export function vigil(args: readonly string[], options: VigilOptions): Promise<VigilResult> {
  return startVigil(args, options).done;
}

/** The env that points the CLI at a running service. */
export function targetEnv(url: string, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { VIGIL_API_URL: url, VIGIL_API_KEY: 'vigil-local', ...extra };
}

/**
 * `vigil server --port 0 ARGS…` as a child process, resolved with its URL once it prints its
 * listening line; rejects if it exits first. The caller stops it (`child.kill()`).
 */
export async function startVigilServer(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv } = {},
): Promise<{ child: ChildProcess; url: string; stderr(): string }> {
  const child = spawn(process.execPath, [VIGIL_BIN, 'server', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...(options.env ? { env: options.env } : {}) });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening on (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`vigil server exited ${code}: ${stderr}`)));
  });
  return { child, url, stderr: () => stderr };
}

/**
 * Polls `probe` until it returns a value (not undefined). The limit is generous (a loaded 2-core box
 * is slow, and only a broken build ever waits it out); the failure names `what` was awaited.
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, options: { timeoutMs?: number; intervalMs?: number } = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 90_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 300));
  }
}

/** A new project directory under the system's temp directory holding `files` (paths relative to it). */
export async function writeProject(prefix: string, files: Readonly<Record<string, string>>): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), prefix));
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
  return root;
}

/** A GET of `route` on a `vigil server` with its local key; anything but 200 is an error naming the route. */
export async function getJson<T>(serviceUrl: string, route: string): Promise<T> {
  const response = await fetch(`${serviceUrl}${route}`, { headers: { authorization: 'Bearer vigil-local' } });
  if (response.status !== 200) throw new Error(`GET ${route} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}
