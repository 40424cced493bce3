import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: e2e tests run the CLI from here, as a user of `pnpm vigil` would. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const VIGIL_BIN = path.join(REPO_ROOT, 'packages/cli/bin/vigil.mjs');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Spawns `node packages/cli/bin/vigil.mjs ...args` and collects its output and exit code. */
export function runVigil(args: readonly string[], options: { cwd?: string } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [VIGIL_BIN, ...args],
      { cwd: options.cwd ?? REPO_ROOT, env: { ...process.env, NO_COLOR: '1', CI: 'true' }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** `test/fixtures/<name>/vigil.config.ts`, relative to the repository root. */
export function fixtureConfig(name: string): string {
  return `test/fixtures/${name}/vigil.config.ts`;
}
