/**
 * Installing the published package as a user does before it is on the registry: the packed tarball
 * vendored in a bare directory, then `npm i -D ./vendor/<tarball> typescript` (the getting-started
 * command), with an empty npm cache each run, so every dependency comes from the registry as on a
 * fresh CI runner. better-sqlite3 is an optional peer, not installed: nothing compiles. Packing
 * happens once, before and outside the measurement.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { median, repeat, timeMs, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';

const run = promisify(execFile);
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Bytes under `dir`, symbolic links not followed. */
async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await sizeOf(full);
    else if (entry.isFile()) total += (await stat(full)).size;
  }
  return total;
}

async function measure(context: BenchContext): Promise<BenchFigure[]> {
  context.log('packing the CLI (not measured)…');
  const packed = await run(process.execPath, [path.join(REPO_ROOT, 'packages/cli/scripts/pack.mjs')], { cwd: REPO_ROOT, maxBuffer: 16 * 2 ** 20 });
  const tarball = packed.stdout.trim().split('\n').pop()!;
  const sizes: number[] = [];
  const seconds = await repeat(context.runs, async (index) => {
    const project = path.join(context.tmpDir, `project-${index}`);
    await mkdir(path.join(project, 'vendor'), { recursive: true });
    await writeFile(path.join(project, 'package.json'), '{ "name": "bench-install", "private": true }\n');
    const vendored = `./vendor/${path.basename(tarball)}`;
    await copyFile(tarball, path.join(project, vendored));
    const env: NodeJS.ProcessEnv = { ...process.env, npm_config_cache: await mkdtemp(path.join(context.tmpDir, 'npm-cache-')), npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' };
    for (const key of Object.keys(env)) if (/^npm_/i.test(key) && !/^npm_config_(cache|fund|audit|update_notifier|registry|userconfig)$/i.test(key)) delete env[key];
    const ms = await timeMs(() => run('npm', ['i', '-D', vendored, 'typescript@^5.9.3', '@types/node@^20.19.0'], { cwd: project, env, maxBuffer: 16 * 2 ** 20 }));
    sizes.push((await sizeOf(path.join(project, 'node_modules'))) / 2 ** 20);
    context.log(`install ${index + 1}: ${(ms / 1000).toFixed(1)} s, node_modules ${sizes.at(-1)!.toFixed(0)} MB`);
    return ms / 1000;
  });
  context.log(`median ${median(seconds).toFixed(1)} s`);
  const note = 'npm i -D ./vendor/<tarball> typescript in an empty directory, empty npm cache, dependencies from the registry; better-sqlite3 (optional peer) not installed';
  return [
    { id: 'install.seconds', label: 'Install of the packed package in a bare directory', unit: 's', better: 'lower', runs: seconds, goal: { text: '≤ 60 s', met: (value) => value <= 60 }, note },
    { id: 'install.size', label: 'node_modules after that install', unit: 'MB', better: 'lower', runs: sizes },
  ];
}

export const suite: BenchSuite = {
  name: 'install',
  run: measure,
};
