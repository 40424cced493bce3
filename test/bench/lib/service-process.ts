/**
 * `vigil server` in its own process for benchmarks, so the service's work never shares an event
 * loop (or a core's time slice accounting) with what is being measured.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const VIGIL_BIN = path.join(REPO_ROOT, 'packages/cli/bin/vigil.mjs');

export interface ServiceProcess {
  readonly url: string;
  /** The server's process id, e.g. to read its CPU time from `/proc`. */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

export async function startServiceProcess(options: { dataDir: string; rateLimit?: string; apiKey?: string }): Promise<ServiceProcess> {
  const args = ['server', '--port', '0', '--data', options.dataDir, '--api-key', options.apiKey ?? 'vigil-local', '--account-id', 'local'];
  if (options.rateLimit) args.push('--rate-limit', options.rateLimit);
  const child: ChildProcess = spawn(process.execPath, [VIGIL_BIN, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
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
