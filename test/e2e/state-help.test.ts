/**
 * `vigil state … --help` names every state backend where the backend matters (where state lives,
 * what the lock is, where migrate copies from and to), and docs/cli.md's `vigil state` section
 * names the same five, so neither falls behind when a backend is added.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, vigil } from '../support/cli.js';

const BACKENDS = ['local', 'service', 'http', 'postgres', 's3'];

describe('the state backends in help and docs', () => {
  it.each([[['state']], [['state', 'unlock']], [['state', 'migrate']]])('vigil %j --help names all five backends', async (args) => {
    const help = await vigil([...args, '--help'], { cwd: REPO_ROOT });
    expect(help.code).toBe(0);
    const missing = BACKENDS.filter((backend) => !new RegExp(`\\b${backend}\\b`).test(help.stdout));
    expect(missing).toEqual([]);
  });

  it('says in vigil state unlock --help that an expired service lock needs no --force', async () => {
    const help = await vigil(['state', 'unlock', '--help'], { cwd: REPO_ROOT });
    expect(help.stdout).toContain('an expired lock is removed without --force');
  });

  it('names all five backends in the vigil state section of docs/cli.md', async () => {
    const cli = await readFile(path.join(REPO_ROOT, 'docs', 'cli.md'), 'utf8');
    // Lines wrap anywhere in prose: compare with every run of white space as one space.
    const section = cli.slice(cli.indexOf('\n## vigil state\n'), cli.indexOf('\n## ', cli.indexOf('\n## vigil state\n') + 1)).replace(/\s+/g, ' ');
    const missing = BACKENDS.filter((backend) => !section.includes(`backend: '${backend}'`));
    expect(missing).toEqual([]);
  });
});
