/**
 * Plan and apply at scale (issues #6 and #7), each run through the real CLI as a user runs it:
 * - no-op plan of 1,000 and 10,000 applied resources against a service limited to 600 requests/60 s,
 *   beside the refresh a Terraform-style tool does (one GET per resource, parallelism 10, the same
 *   paced client) measured in the same run; peak RSS of the 10,000 plan;
 * - apply of 1,000 creates against the unthrottled service (creates/s) and, with --full, at 600/60;
 * - an update of 1 resource in a 10,000-resource project, end to end.
 *
 * Every measured run gets a freshly started service on the same data, so each starts with a full
 * rate-limit budget, as a CI job would. The 10,000-resource GET baseline takes ~16 minutes at
 * 600/60, so it only runs with --full.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pLimit from 'p-limit';
import { createClient } from '@vigil/client';
import { generateProject, type GeneratedProject } from '../../support/generate-project.js';
import { repeat, timeMs, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';
import { VIGIL_BIN, freeLoopbackPort, startServiceProcess } from '../lib/service-process.js';

const RATE_LIMIT = '600/60';

interface CliRun {
  readonly wallMs: number;
  readonly peakRssMb: number;
  readonly stdout: string;
}

/**
 * Runs the CLI under GNU time for its wall time and peak RSS. `rateLimit` is what the CLI is told of
 * the service's budget (VIGIL_RATE_LIMIT): the service's own `--rate-limit`, or `off` for none.
 */
function runCli(args: readonly string[], options: { cwd: string; url: string; rateLimit: string }): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('/usr/bin/time', ['-f', 'VIGIL_RSS_KB=%M', process.execPath, VIGIL_BIN, ...args], {
      cwd: options.cwd,
      env: { ...process.env, VIGIL_API_URL: options.url, VIGIL_API_KEY: 'vigil-local', VIGIL_RATE_LIMIT: options.rateLimit, CI: 'true', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => {
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const rss = /VIGIL_RSS_KB=(\d+)/.exec(stderr);
      if (code !== 0 && code !== 2) return reject(new Error(`vigil ${args.join(' ')} exited ${code}\n${stderr}\n${stdout.slice(-2000)}`));
      resolve({ wallMs, peakRssMb: rss ? Number(rss[1]) / 1024 : Number.NaN, stdout });
    });
  });
}

/** An applied project and the service data it was applied to, always served at the same port. */
interface Applied {
  readonly project: GeneratedProject;
  readonly service: ServiceData;
}

interface ServiceData {
  readonly dataDir: string;
  /** State records the target's URL, so each restart of this data must listen where the first did. */
  readonly port: number;
}

/** A project of `files` × 19 checks (+ a group per file + one channel), applied once, unthrottled. */
async function appliedProject(context: BenchContext, name: string, files: number): Promise<Applied> {
  const root = path.join(context.tmpDir, name);
  const project = await generateProject({ root, files, checksPerFile: 19 });
  const service: ServiceData = { dataDir: path.join(context.tmpDir, `${name}-data`), port: await freeLoopbackPort() };
  const started = Date.now();
  await withService(service, { rateLimit: 'off' }, (url) => runCli(['apply', '--auto-approve'], { cwd: root, url, rateLimit: 'off' }));
  context.log(`${name}: applied ${project.addresses.length} resources in ${((Date.now() - started) / 1000).toFixed(1)} s (setup)`);
  return { project, service };
}

/** Runs `work` against a fresh service process on `data` (a full rate-limit budget, as a new CI job has). */
async function withService<T>(data: ServiceData, options: { rateLimit: string; requestLog?: string }, work: (url: string) => Promise<T>): Promise<T> {
  const service = await startServiceProcess({
    dataDir: data.dataDir,
    port: data.port,
    ...(options.rateLimit === 'off' ? {} : { rateLimit: options.rateLimit }),
    ...(options.requestLog ? { requestLog: options.requestLog } : {}),
  });
  try {
    return await work(service.url);
  } finally {
    await service.stop();
  }
}

/** The Terraform-style refresh: one GET per managed resource, 10 at a time, through the same paced client. */
async function perResourceRefresh(applied: Applied): Promise<number> {
  const state = JSON.parse(await readFile(path.join(applied.project.root, '.vigil/state.json'), 'utf8')) as {
    resources: Record<string, { kind: string; remoteId: string | number }>;
  };
  return withService(applied.service, { rateLimit: RATE_LIMIT }, async (url) => {
    const client = createClient({ baseUrl: url, apiKey: 'vigil-local', pacing: { requests: 600, windowSeconds: 60 } });
    const limit = pLimit(10);
    const endpoint = { 'api-check': 'checks.get', 'check-group': 'checkGroups.get', 'alert-channel': 'alertChannels.get' } as const;
    return timeMs(() =>
      Promise.all(
        Object.values(state.resources).map((resource) =>
          limit(() => client.endpoints.call(endpoint[resource.kind as keyof typeof endpoint], { params: { id: resource.remoteId } } as never)),
        ),
      ),
    );
  });
}

async function noopPlanFigures(
  context: BenchContext,
  applied: Applied,
  size: string,
  options: { baseline: boolean; baselineRuns?: number; goal: { ms: number; ratio?: number } },
): Promise<BenchFigure[]> {
  const runs: CliRun[] = [];
  for (let run = 0; run < context.runs; run += 1) {
    const result = await withService(applied.service, { rateLimit: RATE_LIMIT }, (url) =>
      runCli(['plan', '--detailed-exitcode'], { cwd: applied.project.root, url, rateLimit: RATE_LIMIT }),
    );
    if (!result.stdout.startsWith('No changes.')) throw new Error(`the ${size} no-op plan was not empty:\n${result.stdout.slice(0, 2000)}`);
    runs.push(result);
  }
  const baselineRuns = options.baseline ? await repeat(options.baselineRuns ?? (context.full ? context.runs : 1), () => perResourceRefresh(applied)) : undefined;
  const { ratio, ms } = options.goal;
  const figures: BenchFigure[] = [
    {
      id: `plan.noop-${size}`,
      issue: 6,
      label: `no-op \`vigil plan\`, ${size} applied resources, service at ${RATE_LIMIT}`,
      unit: 'ms',
      better: 'lower',
      runs: runs.map((run) => run.wallMs),
      ...(baselineRuns
        ? { baseline: { label: `one GET per resource, parallelism 10, same pacing; ${baselineRuns.length === 1 ? '1 run' : `median of ${baselineRuns.length}`}`, runs: baselineRuns } }
        : {}),
      goal: {
        text: ratio ? `≤ ${ms / 1000} s and ≥ ${ratio}× faster` : `≤ ${ms / 1000} s`,
        met: (median, baseline) => median <= ms && (!ratio || (baseline !== undefined && baseline / median >= ratio)),
      },
      note: 'whole CLI run: load, refresh, plan',
    },
  ];
  if (size === '10,000') {
    figures.push({
      id: 'plan.noop-10000-rss',
      issue: 6,
      label: 'peak RSS of that 10,000-resource plan',
      unit: 'MB',
      better: 'lower',
      runs: runs.map((run) => run.peakRssMb),
      goal: { text: '≤ 300 MB', met: (value) => value <= 300 },
    });
  }
  return figures;
}

/**
 * Applies a fresh 1,001-resource project to an empty service. With a rate limit, the service logs
 * every request, so the figure can show the calls the apply made beyond one create per resource and
 * the refresh's list pages (retries, 429s, extra reads): the issue's goal is none.
 */
async function createFigures(
  context: BenchContext,
  options: { rateLimit: string; id: string; label: string; goal: BenchFigure['goal']; unit: 'creates/s' | 's' },
): Promise<BenchFigure[]> {
  const paced = options.rateLimit !== 'off';
  const extraCalls: number[] = [];
  const runs = await repeat(paced && !context.full ? 1 : context.runs, async (run) => {
    const root = path.join(context.tmpDir, `${options.id}-${run}`);
    const project = await generateProject({ root, files: 50, checksPerFile: 19 });
    const service: ServiceData = { dataDir: path.join(context.tmpDir, `${options.id}-${run}-data`), port: await freeLoopbackPort() };
    const requestLog = path.join(context.tmpDir, `${options.id}-${run}-requests.jsonl`);
    const result = await withService(service, { rateLimit: options.rateLimit, ...(paced ? { requestLog } : {}) }, (url) =>
      runCli(['apply', '--auto-approve'], { cwd: root, url, rateLimit: options.rateLimit }),
    );
    const creates = project.addresses.length;
    if (!result.stdout.includes(`Apply complete! Resources: ${creates} added`)) throw new Error(`apply did not create ${creates} resources:\n${result.stdout.slice(-2000)}`);
    if (paced) {
      const requests = (await readFile(requestLog, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { method: string; path: string; status: number });
      const created = requests.filter((request) => request.method === 'POST' && request.status === 201).length;
      // A list page is a GET on a collection: no id segment after it.
      const listPages = requests.filter((request) => request.method === 'GET' && !/\/(\d+|[0-9a-f-]{36})$/.test(request.path)).length;
      const refused = requests.filter((request) => request.status === 429).length;
      extraCalls.push(requests.length - created - listPages);
      context.log(`${options.id}: ${requests.length} calls = ${created} creates + ${listPages} list pages + ${requests.length - created - listPages} other (${refused} × 429), ${(result.wallMs / 1000).toFixed(1)} s`);
    }
    return options.unit === 's' ? result.wallMs / 1000 : creates / (result.wallMs / 1000);
  });
  const note = '1,001 resources, whole CLI run';
  const figures: BenchFigure[] = [
    { id: options.id, issue: 7, label: options.label, unit: options.unit, better: options.unit === 's' ? 'lower' : 'higher', runs, ...(options.goal ? { goal: options.goal } : {}), note },
  ];
  if (paced) {
    figures.push({
      id: `${options.id}-extra-calls`,
      issue: 7,
      label: 'calls of that apply beyond one per create and the refresh pages',
      unit: 'calls',
      better: 'lower',
      runs: extraCalls,
      goal: { text: '0', met: (value) => value === 0 },
      note: 'counted in the service\'s request log; a 429 or a retry would count',
    });
  }
  return figures;
}

async function updateOneFigure(context: BenchContext, applied: Applied): Promise<BenchFigure> {
  const file = path.join(applied.project.root, 'monitors', 'team-0.monitor.ts');
  const original = await readFile(file, 'utf8');
  const runs = await repeat(context.runs, async (run) => {
    // Alternate the first check's frequency so every run has exactly one update to make.
    await writeFile(file, original.replace('frequency: 10,', `frequency: ${run % 2 === 0 ? 5 : 10},`));
    const result = await withService(applied.service, { rateLimit: RATE_LIMIT }, (url) =>
      runCli(['apply', '--auto-approve'], { cwd: applied.project.root, url, rateLimit: RATE_LIMIT }),
    );
    if (!result.stdout.includes('Resources: 0 added, 1 changed, 0 destroyed.')) throw new Error(`expected one update:\n${result.stdout.slice(-2000)}`);
    return result.wallMs;
  });
  return {
    id: 'apply.update-1-of-10000',
    issue: 7,
    label: 'apply an update of 1 resource in a 10,000-resource project, service at 600/60',
    unit: 'ms',
    better: 'lower',
    runs,
    goal: { text: '≤ 10 s', met: (value) => value <= 10_000 },
  };
}

export const suite: BenchSuite = {
  name: 'plan-apply',
  issue: 6,
  async run(context) {
    const figures: BenchFigure[] = [];
    const thousand = await appliedProject(context, 'p1000', 50);
    figures.push(...(await noopPlanFigures(context, thousand, '1,000', { baseline: true, goal: { ms: 3000, ratio: 30 } })));
    figures.push(
      ...(await createFigures(context, {
        id: 'apply.create-1000',
        rateLimit: 'off',
        label: 'apply 1,000 creates, unthrottled local service',
        unit: 'creates/s',
        goal: { text: '≥ 200 creates/s', met: (value) => value >= 200 },
      })),
    );
    if (context.full) {
      figures.push(
        ...(await createFigures(context, {
          id: 'apply.create-1000-paced',
          rateLimit: RATE_LIMIT,
          label: `apply 1,000 creates, service at ${RATE_LIMIT} (bound: 100 s at a steady pace)`,
          unit: 's',
          goal: { text: '≤ 105 s', met: (value) => value <= 105 },
        })),
      );
    }
    const tenThousand = await appliedProject(context, 'p10000', 500);
    // 10,000 GETs at 600/60 take ~17 minutes whatever the client does, so the baseline runs once.
    figures.push(...(await noopPlanFigures(context, tenThousand, '10,000', { baseline: context.full, baselineRuns: 1, goal: { ms: 10_000 } })));
    figures.push(await updateOneFigure(context, tenThousand));
    return figures;
  },
};
