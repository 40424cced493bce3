/**
 * Runs the real CLI as a subprocess against a real service, as CI and users do. `startVigil` returns
 * the child so crash tests can SIGKILL it mid-apply.
 */
import { spawn, type ChildProcess } from 'node:child_process';
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
