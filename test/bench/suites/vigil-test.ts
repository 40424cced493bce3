/**
 * `vigil test` at scale: 1,000 generated API checks against a loopback target at
 * parallelism 50, the whole CLI process (load, runs, report), wall time and peak RSS. Baseline, in
 * the same run: what the work cannot avoid — loading the project (`vigil validate`, also a whole
 * process) plus raw undici making the same 1,000 requests, each on a fresh connection as a check run
 * does, 50 at a time (in a process of its own). The target runs in its own process throughout.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { repeat, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
const VIGIL = path.join(repoRoot, 'packages/cli/bin/vigil.mjs');
const CHECKS = 1000;
const PER_FILE = 10;
const PARALLELISM = 50;

const TARGET_SOURCE = `
const http = require('node:http');
const body = JSON.stringify({ status: 'up', items: [1, 2, 3] });
const server = http.createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' }).end(body);
});
server.keepAliveTimeout = 1;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

/** The baseline's requests: undici, a fresh connection each, PARALLELISM at a time. */
const RAW_SOURCE = `
const { Agent } = require(process.argv[1]);
const [base, total, parallelism] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
let next = 0;
async function one(index) {
  const agent = new Agent({ connections: 1, pipelining: 1 });
  try {
    const response = await agent.request({ origin: base, path: '/c/' + index, method: 'GET' });
    const text = await response.body.text();
    if (response.statusCode !== 200 || !JSON.parse(text).status) throw new Error('bad answer');
  } finally {
    await agent.destroy();
  }
}
async function worker() { while (next < total) await one(next++); }
const started = process.hrtime.bigint();
Promise.all(Array.from({ length: parallelism }, worker)).then(() => {
  process.stdout.write(String(Number(process.hrtime.bigint() - started) / 1e6) + '\\n');
});
`;

async function startTarget(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', TARGET_SOURCE], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return { url: `http://127.0.0.1:${chunk.toString().trim()}`, child };
}

async function generate(root: string): Promise<void> {
  await mkdir(path.join(root, 'checks'), { recursive: true });
  await writeFile(path.join(root, 'vigil.config.ts'), "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'Bench', logicalId: 'bench' });\n");
  for (let file = 0; file < CHECKS / PER_FILE; file++) {
    const lines = ["import { ApiCheck, AssertionBuilder, RetryStrategyBuilder } from 'vigil/constructs';", ''];
    for (let check = 0; check < PER_FILE; check++) {
      const n = file * PER_FILE + check;
      lines.push(
        `new ApiCheck('c${n}', { name: 'Check ${n}', retryStrategy: RetryStrategyBuilder.noRetries(), request: { url: '{{TARGET}}/c/${n}', assertions: [AssertionBuilder.statusCode().equals(200), AssertionBuilder.jsonBody('$.status').equals('up')] } });`,
      );
    }
    await writeFile(path.join(root, 'checks', `f${String(file).padStart(3, '0')}.monitor.ts`), `${lines.join('\n')}\n`);
  }
}

interface Timed {
  ms: number;
  peakRssMb: number;
  stdout: string;
}

/** A whole process under GNU time: wall ms and peak RSS. */
function timed(args: readonly string[], cwd: string): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    execFile('/usr/bin/time', ['-f', 'VIGIL_RSS_KB=%M', process.execPath, ...args], { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1', CI: 'true' } }, (error, stdout, stderr) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (error) return reject(new Error(`${args.slice(0, 2).join(' ')} failed: ${stderr.slice(-2000) || error.message}`));
      resolve({ ms, peakRssMb: Number(/VIGIL_RSS_KB=(\d+)/.exec(stderr)?.[1]) / 1024, stdout });
    });
  });
}

export const suite: BenchSuite = {
  name: 'vigil-test',
  issue: 17,
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const root = path.join(context.tmpDir, 'project');
    await generate(root);
    const target = await startTarget();
    const undiciPath = path.join(repoRoot, 'packages/runner/node_modules/undici/index.js');
    try {
      const ours: Timed[] = [];
      context.log(`vigil test: ${CHECKS} API checks at parallelism ${PARALLELISM}, ${context.runs} runs`);
      await repeat(context.runs, async () => {
        const result = await timed([VIGIL, 'test', '--reporter', 'json', '--parallelism', String(PARALLELISM), '-e', `TARGET=${target.url}`], root);
        const summary = JSON.parse(result.stdout).summary as { passed: number; total: number };
        if (summary.passed !== CHECKS || summary.total !== CHECKS) throw new Error(`vigil test passed ${summary.passed} of ${summary.total}, expected ${CHECKS}`);
        ours.push(result);
        return result.ms;
      });
      context.log(`baseline: vigil validate + ${CHECKS} raw undici requests, ${context.runs} runs`);
      const baseline = await repeat(context.runs, async () => {
        const load = await timed([VIGIL, 'validate'], root);
        const requests = await timed(['-e', RAW_SOURCE, undiciPath, target.url, String(CHECKS), String(PARALLELISM)], root);
        return load.ms + requests.ms;
      });
      const note = `${CHECKS} checks, ${CHECKS / PER_FILE} files, parallelism ${PARALLELISM}, loopback target in its own process`;
      return [
        {
          id: 'vigil-test.1000-checks',
          issue: 17,
          label: 'vigil test of 1,000 API checks, whole process',
          unit: 'ms',
          better: 'lower',
          runs: ours.map((item) => item.ms),
          baseline: { label: 'vigil validate + 1,000 raw undici requests', runs: baseline },
          goal: { text: '≤ 1.5× baseline', met: (value, base) => base !== undefined && value <= 1.5 * base },
          note,
        },
        {
          id: 'vigil-test.1000-checks-rss',
          issue: 17,
          label: 'vigil test of 1,000 API checks, peak RSS',
          unit: 'MB',
          better: 'lower',
          runs: ours.map((item) => item.peakRssMb),
          goal: { text: '≤ 300 MB', met: (value) => value <= 300 },
          note,
        },
      ];
    } finally {
      target.child.kill();
    }
  },
};
