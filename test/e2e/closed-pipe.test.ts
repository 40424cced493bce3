/**
 * `vigil … | head -1`: the reader closes the pipe after the first line, while vigil is still
 * writing. The command must end quietly (exit 0, nothing on stderr), as Unix tools do, not with an
 * unhandled EPIPE and a stack trace.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { VIGIL_BIN } from '../support/cli.js';

function runReadingOneChunk(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VIGIL_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // Closing our end makes the child's next write fail with EPIPE, as when `head` exits.
    child.stdout.once('data', () => child.stdout.destroy());
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stderr }));
  });
}

describe('output to a pipe the reader closed', () => {
  it.each([[['--help']], [['state', '--help']], [['server', '--help']]])('vigil %j ends with exit code 0 and nothing on stderr', async (args) => {
    // Several times: whether a write is still pending when the pipe closes is a race.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect(await runReadingOneChunk(args)).toEqual({ code: 0, stderr: '' });
    }
  });
});
