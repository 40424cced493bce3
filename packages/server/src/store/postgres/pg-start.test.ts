/**
 * `pnpm pg:start` (scripts/pg-start.ts) as a developer runs it: it prints a URL that connects, stops
 * on SIGTERM, and a second start finds the data of the first.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');
const SCRIPT = path.join(REPO_ROOT, 'scripts', 'pg-start.ts');
const TSX = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx');

let tempDir = '';
beforeAll(async () => {
  tempDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-pg-start-'));
  // As root the server runs as "postgres", who must pass through this directory to reach the cluster.
  await chmod(tempDir, 0o711);
});
afterAll(async () => {
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
});

interface Started {
  readonly child: ChildProcessWithoutNullStreams;
  readonly url: string;
  readonly output: () => string;
}

/** Starts the script and resolves once it has printed its connection URL. */
function start(dir: string): Promise<Started> {
  const child = spawn(TSX, [SCRIPT, '--port', '0', '--dir', dir], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /^(postgres:\/\/\S+)$/m.exec(output)?.[1];
      if (url) resolve({ child, url, output: () => output });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`pg:start exited (${code}) before printing its connection URL:\n${output}`)));
  });
}

/** Sends SIGTERM and resolves to the exit code once the script has exited. */
function stop(started: Started): Promise<number | null> {
  return new Promise((resolve) => {
    started.child.once('exit', (code) => resolve(code));
    started.child.kill('SIGTERM');
  });
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

describe('pnpm pg:start', () => {
  it('explains itself with --help', () => {
    const help = spawnSync(TSX, [SCRIPT, '--help'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: pnpm pg:start [--port N] [--dir DIR]');
    const wrong = spawnSync(TSX, [SCRIPT, '--port', 'many'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toBe('pg:start: --port must be a port number from 0 to 65535, got "many"\n');
  });

  it('prints a URL on 127.0.0.1 that connects, stops on SIGTERM, and keeps the data for the next start', async () => {
    const dir = path.join(tempDir, 'pg');
    const first = await start(dir);
    expect(first.url).toMatch(/^postgres:\/\/vigil:[^@]+@127\.0\.0\.1:\d+\/vigil$/);
    await query(first.url, 'CREATE TABLE kept (n integer); INSERT INTO kept VALUES (42)');
    expect(await stop(first)).toBe(0);
    expect(first.output()).toContain('PostgreSQL stopped.');

    const second = await start(dir);
    try {
      expect(await query<{ n: number }>(second.url, 'SELECT n FROM kept')).toEqual([{ n: 42 }]);
    } finally {
      expect(await stop(second)).toBe(0);
    }
  });
});
