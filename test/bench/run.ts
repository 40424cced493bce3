/**
 * `pnpm bench [--runs N] [--full] [--only NAME[,NAME]] [--out FILE]`: runs every suite in
 * test/bench/suites/ and writes the figures to BENCHMARKS.md (and test/bench/out/results.json).
 */
import { mkdtemp, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { advantage, machineDescription, median, type BenchFigure, type BenchSuite } from './harness.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    full: { type: 'boolean', default: false },
    only: { type: 'string' },
    out: { type: 'string', default: path.join(repoRoot, 'BENCHMARKS.md') },
  },
});

const runs = Number(flags.runs);
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write(`--runs must be a positive integer, got "${flags.runs}"\n`);
  process.exit(2);
}
const only = flags.only ? new Set(flags.only.split(',')) : undefined;

async function loadSuites(): Promise<BenchSuite[]> {
  const files = (await readdir(path.join(here, 'suites'))).filter((f) => f.endsWith('.ts')).sort();
  const suites: BenchSuite[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(path.join(here, 'suites', file)).href)) as { suite?: BenchSuite };
    if (!module.suite) throw new Error(`test/bench/suites/${file} does not export "suite"`);
    if (!only || only.has(module.suite.name)) suites.push(module.suite);
  }
  return suites;
}

function format(value: number, unit: string): string {
  if (!Number.isFinite(value)) return 'n/a';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toLocaleString('en-US', { maximumFractionDigits: digits })} ${unit}`;
}

function row(figure: BenchFigure): string {
  const ours = median(figure.runs);
  const baseline = figure.baseline ? median(figure.baseline.runs) : undefined;
  const ratio = advantage(figure);
  const goal = figure.goal ? `${figure.goal.text} — ${figure.goal.met(ours, baseline) ? 'met' : '**not met**'}` : '';
  return [
    figure.issue === undefined ? '—' : `#${figure.issue}`,
    figure.label + (figure.note ? ` (${figure.note})` : ''),
    format(ours, figure.unit),
    String(figure.runs.length),
    figure.baseline ? `${format(baseline!, figure.unit)} (${figure.baseline.label})` : '—',
    ratio === undefined ? '—' : `${ratio.toFixed(1)}×`,
    goal,
  ].join(' | ');
}

/** The 1-minute load average, for the record: figures taken on a busy machine are not comparable. */
function loadAverage(): string {
  return os.loadavg()[0]!.toFixed(2);
}

async function main(): Promise<void> {
  const suites = await loadSuites();
  const loadAtStart = loadAverage();
  const startedAt = Date.now();
  const figures: BenchFigure[] = [];
  for (const suite of suites) {
    const tmpDir = await mkdtemp(path.join(os.tmpdir(), `vigil-bench-${suite.name}-`));
    process.stdout.write(`▶ ${suite.name}\n`);
    try {
      const result = await suite.run({
        runs,
        full: flags.full,
        tmpDir,
        log: (message) => process.stdout.write(`  ${message}\n`),
      });
      for (const figure of result) process.stdout.write(`  ${row(figure)}\n`);
      figures.push(...result);
    } finally {
      await rm(tmpDir, { recursive: true, force: true });
    }
  }

  const lines = [
    '# Benchmarks',
    '',
    'Produced by `pnpm bench` in one run (`pnpm bench --full` for the sizes and durations that take',
    'minutes). Every figure is the median of the runs shown; a baseline is measured in the same run on',
    'the same machine. "×" is our advantage over the baseline (> 1 means better). Network: loopback only.',
    '',
    `- Machine: ${machineDescription()}`,
    `- Date: ${new Date().toISOString().slice(0, 10)}`,
    `- Command: \`pnpm bench --runs ${runs}${flags.full ? ' --full' : ''}${flags.only ? ` --only ${flags.only}` : ''}\``,
    `- Duration: ${Math.round((Date.now() - startedAt) / 60_000)} min; 1-minute load average ${loadAtStart} at the start, ${loadAverage()} at the end`,
    '',
    'Reproduce on a quiet machine (nothing else running: the suites time a 2-core box): `pnpm install`, then',
    '`pnpm bench` (a few minutes) or `pnpm bench --full --runs 5` (about 45 minutes: the paced figures wait',
    'out real rate-limit windows, and the 10,000-resource per-GET baseline alone takes ~17 minutes).',
    '`--only server,client,load,plan-apply` picks suites. Raw runs: `test/bench/out/results.json`.',
    '',
    '| issue | figure | median | runs | baseline (same run) | × | goal |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...figures.map((figure) => `| ${row(figure)} |`),
    '',
  ];
  await writeFile(flags.out, lines.join('\n'));
  await mkdir(path.join(here, 'out'), { recursive: true });
  await writeFile(path.join(here, 'out', 'results.json'), JSON.stringify({ machine: machineDescription(), figures }, null, 2));
  process.stdout.write(`wrote ${path.relative(process.cwd(), flags.out)}\n`);
}

await main();
