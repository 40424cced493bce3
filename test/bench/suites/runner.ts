/**
 * The check runner: the wall time of one API check run against a loopback target next to
 * a raw undici request on a fresh connection (what the run cannot avoid doing), and the runner's CPU
 * per run. The target runs in its own process, so this process's CPU is the client side alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createRunner } from '@vigil/runner';
import { Agent } from 'undici';
import { median, repeat, timeMs, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';

const BLOCK = 20;

const TARGET_SOURCE = `
const http = require('node:http');
const body = JSON.stringify({ status: 'up', items: [1, 2, 3], build: 'x'.repeat(512) });
const server = http.createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'bench' }).end(body);
});
server.keepAliveTimeout = 1;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

async function startTarget(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', TARGET_SOURCE], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return { url: `http://127.0.0.1:${chunk.toString().trim()}/health`, child };
}

/** What any API check run must do at least: a new connection, one request, the whole body read. */
async function rawRequest(url: string): Promise<void> {
  const agent = new Agent({ pipelining: 1, connections: 1 });
  try {
    const response = await agent.request({ origin: new URL(url).origin, path: '/health', method: 'GET' });
    const text = await response.body.text();
    if (response.statusCode !== 200 || text.length === 0) throw new Error(`raw request answered ${response.statusCode}`);
  } finally {
    await agent.destroy();
  }
}

async function cpuMs(work: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

export const suite: BenchSuite = {
  name: 'runner',
  issue: 17,
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const runsPerMeasure = context.full ? 1000 : 200;
    const target = await startTarget();
    const runner = createRunner();
    const check = {
      checkType: 'API',
      name: 'bench',
      request: {
        method: 'GET',
        url: target.url,
        assertions: [
          { source: 'STATUS_CODE', comparison: 'EQUALS', property: '', target: '200', regex: null },
          { source: 'JSON_BODY', comparison: 'EQUALS', property: '$.status', target: 'up', regex: null },
          { source: 'HEADERS', comparison: 'EQUALS', property: 'x-request-id', target: 'bench', regex: null },
        ],
      },
    };
    const runChecks = async (count: number) => {
      for (let index = 0; index < count; index++) {
        const { final } = await runner.run(check, { location: 'eu-west-1', variables: [], retries: 0 });
        if (final.hasFailures) throw new Error(`the bench check failed: ${final.error}`);
      }
    };
    const rawRequests = async (count: number) => {
      for (let index = 0; index < count; index++) await rawRequest(target.url);
    };
    try {
      // Warm both paths (JIT, lazy imports) before measuring.
      await runChecks(BLOCK * 2);
      await rawRequests(BLOCK * 2);
      const raw: number[] = [];
      const rawCpu: number[] = [];
      const oursCpu: number[] = [];
      // Alternating blocks, so a change in the shared machine's load hits both sides alike.
      const ours = await repeat(context.runs, async () => {
        let oursMs = 0;
        let rawMs = 0;
        let oursCpuMs = 0;
        let rawCpuMs = 0;
        for (let block = 0; block < runsPerMeasure / BLOCK; block++) {
          oursMs += await timeMs(async () => (oursCpuMs += await cpuMs(() => runChecks(BLOCK))));
          rawMs += await timeMs(async () => (rawCpuMs += await cpuMs(() => rawRequests(BLOCK))));
        }
        raw.push(rawMs / runsPerMeasure);
        rawCpu.push(rawCpuMs / runsPerMeasure);
        oursCpu.push(oursCpuMs / runsPerMeasure);
        return oursMs / runsPerMeasure;
      });
      context.log(`API check run ${median(ours).toFixed(3)} ms vs raw undici ${median(raw).toFixed(3)} ms`);
      context.log(`API check run CPU ${median(oursCpu).toFixed(3)} ms vs raw undici ${median(rawCpu).toFixed(3)} ms`);
      const note = `${runsPerMeasure} sequential runs per measurement in alternating blocks of ${BLOCK}; 3 assertions (status, JSONPath, header); target in another process`;
      return [
        {
          id: 'runner.api-run',
          issue: 17,
          label: 'Wall time of one API check run (fresh connection, 3 assertions)',
          unit: 'ms',
          better: 'lower',
          runs: ours,
          baseline: { label: 'raw undici request on a fresh connection', runs: raw },
          goal: { text: '≤ 1.2× raw undici', met: (value, baseline) => baseline !== undefined && value <= baseline * 1.2 },
          note,
        },
        {
          id: 'runner.api-run-cpu',
          issue: 17,
          label: 'Runner-process CPU per API check run',
          unit: 'ms',
          better: 'lower',
          runs: oursCpu,
          baseline: { label: 'raw undici request on a fresh connection', runs: rawCpu },
          note,
        },
      ];
    } finally {
      await runner.close();
      target.child.kill();
    }
  },
};
