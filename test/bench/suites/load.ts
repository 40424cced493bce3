/**
 * Load + validate of generated projects (1,000 files × 10 constructs and 100 × 100),
 * median wall time and peak RSS, beside the per-file baseline the Checkly CLI uses (every file
 * imported separately through jiti), measured in the same run. Each measurement is a fresh process
 * (load/worker.ts), so peak RSS and module caches belong to that one load.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, repeat, type BenchContext, type BenchFigure, type BenchGoal, type BenchSuite } from '../harness.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');

interface Measurement {
  ms: number;
  peakRssMb: number;
  resources: number;
}

/** Writes a project of `files` monitor files with `perFile` API checks each, all in one shared group. */
async function generateProject(root: string, files: number, perFile: number): Promise<void> {
  await mkdir(path.join(root, 'checks'), { recursive: true });
  await writeFile(
    path.join(root, 'vigil.config.ts'),
    "import { defineConfig } from 'vigil';\n\nexport default defineConfig({ projectName: 'Bench', logicalId: 'bench' });\n",
  );
  await writeFile(
    path.join(root, 'checks/group.ts'),
    "import { CheckGroupV2 } from 'vigil/constructs';\n\nexport const group = new CheckGroupV2('bench', { name: 'Bench' });\n",
  );
  for (let file = 0; file < files; file += 1) {
    const lines = [
      "import { ApiCheck, AssertionBuilder } from 'vigil/constructs';",
      "import { group } from './group';",
      '',
    ];
    for (let check = 0; check < perFile; check += 1) {
      lines.push(
        `new ApiCheck('c${file}-${check}', { name: 'Check ${file}/${check}', group, request: { url: 'https://example.com/${file}/${check}', assertions: [AssertionBuilder.statusCode().equals(200)] } });`,
      );
    }
    await writeFile(path.join(root, 'checks', `f${String(file).padStart(4, '0')}.monitor.ts`), `${lines.join('\n')}\n`);
  }
}

function measure(mode: 'vigil' | 'jiti', root: string, expectedResources: number): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(here, 'load', 'worker.ts'), mode, root],
      { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${mode} load of ${root} failed: ${stderr || error.message}`));
        const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Measurement;
        if (result.resources !== expectedResources) {
          return reject(new Error(`${mode} loaded ${result.resources} resources, expected ${expectedResources}`));
        }
        resolve(result);
      },
    );
  });
}

/**
 * `vigil validate` as a user runs it: the CLI's own process (its bundle, no tsx), start-up included,
 * wall time and peak RSS from GNU time. The in-process figure above runs `loadProject` under tsx's
 * loader hooks, which the CLI no longer has, so this is the one a user sees.
 */
function measureCli(root: string, expectedResources: number): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    execFile(
      '/usr/bin/time',
      ['-f', 'VIGIL_RSS_KB=%M', process.execPath, path.join(repoRoot, 'packages/cli/bin/vigil.mjs'), 'validate', '--config', path.join(root, 'vigil.config.ts')],
      { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (error) return reject(new Error(`vigil validate of ${root} failed: ${stderr || error.message}`));
        const resources = Number(/(\d+) resources valid/.exec(stdout)?.[1]);
        if (resources !== expectedResources) return reject(new Error(`vigil validate reported ${stdout.trim()}, expected ${expectedResources} resources`));
        resolve({ ms, peakRssMb: Number(/VIGIL_RSS_KB=(\d+)/.exec(stderr)?.[1]) / 1024, resources });
      },
    );
  });
}

/** The goal for 10,000 constructs however they are spread over files. */
const LOAD_GOAL: BenchGoal = {
  text: '≤ 2 s and ≥ 3× faster than baseline',
  met: (median, baseline) => median <= 2000 && baseline !== undefined && baseline / median >= 3,
};

async function figuresFor(context: BenchContext, files: number, perFile: number): Promise<BenchFigure[]> {
  const root = path.join(context.tmpDir, `project-${files}x${perFile}`);
  await generateProject(root, files, perFile);
  const expected = files * perFile + 1;
  // The baseline takes tens of seconds per run on a small machine; three runs give a fair median.
  const baselineRuns = context.full ? context.runs : Math.min(context.runs, 3);
  const ours: Measurement[] = [];
  const theirs: Measurement[] = [];
  context.log(`load ${files}×${perFile}: vigil, ${context.runs} runs`);
  await repeat(context.runs, async () => {
    const result = await measure('vigil', root, expected);
    ours.push(result);
    return result.ms;
  });
  const cli: Measurement[] = [];
  context.log(`load ${files}×${perFile}: vigil validate (whole CLI process), ${context.runs} runs`);
  await repeat(context.runs, async () => {
    const result = await measureCli(root, expected);
    cli.push(result);
    return result.ms;
  });
  context.log(`load ${files}×${perFile}: jiti baseline, ${baselineRuns} runs`);
  await repeat(baselineRuns, async () => {
    const result = await measure('jiti', root, expected);
    theirs.push(result);
    return result.ms;
  });
  const size = `${files.toLocaleString('en-US')} files × ${perFile} constructs`;
  const cliPeakRss = median(cli.map((result) => result.peakRssMb));
  return [
    {
      id: `load.wall-${files}x${perFile}`,
      issue: 5,
      label: `load + validate, ${size}`,
      unit: 'ms',
      better: 'lower',
      runs: ours.map((result) => result.ms),
      baseline: { label: 'jiti, one file at a time', runs: theirs.map((result) => result.ms) },
      goal: LOAD_GOAL,
      note: 'fresh process per run under tsx (as the worker is TypeScript); time from loadProject() to validated specs',
    },
    {
      id: `load.cli-${files}x${perFile}`,
      issue: 5,
      label: `\`vigil validate\`, ${size}, whole CLI process`,
      unit: 'ms',
      better: 'lower',
      runs: cli.map((result) => result.ms),
      baseline: { label: 'jiti, one file at a time (its load only, start-up not counted)', runs: theirs.map((result) => result.ms) },
      goal: LOAD_GOAL,
      note: `as a user runs it: the CLI's bundle, start-up included; peak RSS ${Math.round(cliPeakRss)} MB`,
    },
    {
      id: `load.rss-${files}x${perFile}`,
      issue: 5,
      label: `peak RSS of load + validate, ${size}`,
      unit: 'MB',
      better: 'lower',
      runs: ours.map((result) => result.peakRssMb),
      baseline: { label: 'jiti, one file at a time', runs: theirs.map((result) => result.peakRssMb) },
      note: 'whole process, including the TypeScript runtime both share',
    },
  ];
}

export const suite: BenchSuite = {
  name: 'load',
  issue: 5,
  async run(context) {
    return [...(await figuresFor(context, 1000, 10)), ...(await figuresFor(context, 100, 100))];
  },
};
