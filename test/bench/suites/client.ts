/**
 * The API client: its overhead per call over raw `fetch` (1,000 sequential GETs, both
 * measured in the same run against the same service), and, with `--full`, how close 1,000 paced
 * creates come to the 100 s that a 600 / 60 s rate limit allows, and how many 429s they meet.
 *
 * The service runs as `vigil server` in its own process, so its work does not share the client's
 * event loop and the overhead figure is the client's alone.
 */
import path from 'node:path';
import { createClient } from '@vigil/client';
import { median, repeat, timeMs, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';
import { startServiceProcess } from '../lib/service-process.js';

const API_KEY = 'bench-key';
const GETS = 1000;
const BLOCK = 50;
const CREATES = 1000;
const RATE_LIMIT = { requests: 600, windowSeconds: 60 };

const checkBody = (name: string) => ({ name, request: { url: 'https://example.com/health' } });

async function overheadFigures(context: BenchContext): Promise<BenchFigure[]> {
  const service = await startServiceProcess({ dataDir: path.join(context.tmpDir, 'overhead'), apiKey: API_KEY });
  const { url } = service;
  try {
    const client = createClient({ baseUrl: url, apiKey: API_KEY, pacing: false });
    const { id } = await client.checks.createApi(checkBody('overhead'));
    const headers = { authorization: `Bearer ${API_KEY}`, accept: 'application/json' };
    const rawGets = async (count: number) => {
      for (let call = 0; call < count; call++) {
        const response = await fetch(`${url}/v1/checks/${id}`, { headers });
        if (!response.ok) throw new Error(`raw GET answered ${response.status}`);
        await response.json();
      }
    };
    const clientGets = async (count: number) => {
      for (let call = 0; call < count; call++) await client.checks.get(id);
    };
    // Warm both paths (JIT, keep-alive sockets) before measuring.
    await rawGets(GETS);
    await clientGets(GETS);
    // Alternating blocks of 50 calls, so a change in machine load (the box is shared) hits both sides
    // alike instead of landing on whichever side happened to run at that moment.
    // CPU time of this process is recorded too: on a loaded box it is far steadier than wall time,
    // and with the service in another process it is exactly the client's own cost.
    const raw: number[] = [];
    const rawCpu: number[] = [];
    const oursCpu: number[] = [];
    const cpuMs = async (work: () => Promise<void>) => {
      const before = process.cpuUsage();
      await work();
      const used = process.cpuUsage(before);
      return (used.user + used.system) / 1000;
    };
    const ours = await repeat(context.runs, async () => {
      let rawMs = 0;
      let clientMs = 0;
      let rawCpuMs = 0;
      let clientCpuMs = 0;
      for (let block = 0; block < GETS / BLOCK; block++) {
        rawMs += await timeMs(async () => (rawCpuMs += await cpuMs(() => rawGets(BLOCK))));
        clientMs += await timeMs(async () => (clientCpuMs += await cpuMs(() => clientGets(BLOCK))));
      }
      raw.push(rawMs / GETS);
      rawCpu.push(rawCpuMs / GETS);
      oursCpu.push(clientCpuMs / GETS);
      return clientMs / GETS;
    });
    context.log(`client GET ${median(ours).toFixed(3)} ms vs raw fetch ${median(raw).toFixed(3)} ms`);
    context.log(`client GET CPU ${median(oursCpu).toFixed(3)} ms vs raw fetch ${median(rawCpu).toFixed(3)} ms`);
    const cpuFigure: BenchFigure = {
      id: 'client.get-cpu',
      issue: 3,
      label: 'Client-process CPU per GET /v1/checks/{id}',
      unit: 'ms',
      better: 'lower',
      runs: oursCpu,
      baseline: { label: 'raw fetch + JSON.parse', runs: rawCpu },
      note: 'same calls as the wall-time figure; the service runs in another process',
    };
    return [cpuFigure, {
      id: 'client.get-overhead',
      issue: 3,
      label: 'Time per GET /v1/checks/{id} through the client',
      unit: 'ms',
      better: 'lower',
      runs: ours,
      baseline: { label: 'raw fetch + JSON.parse', runs: raw },
      goal: { text: '< 10 % over raw fetch', met: (median, baselineMedian) => baselineMedian !== undefined && median < baselineMedian * 1.1 },
      note: `${GETS} sequential calls per run in alternating blocks of ${BLOCK}; client parses every response with its zod schema`,
    }];
  } finally {
    await service.stop();
  }
}

/** One run of 1,000 creates against a fresh service (a full budget, as a new CI job has): seconds and 429s. */
async function pacedCreates(context: BenchContext, run: number): Promise<{ seconds: number; refused: number }> {
  const service = await startServiceProcess({
    dataDir: path.join(context.tmpDir, `paced-${run}`),
    apiKey: API_KEY,
    rateLimit: `${RATE_LIMIT.requests}/${RATE_LIMIT.windowSeconds}`,
  });
  try {
    let refused = 0;
    const client = createClient({
      baseUrl: service.url,
      apiKey: API_KEY,
      pacing: RATE_LIMIT,
      onAttempt: (attempt) => {
        if (attempt.status === 429) refused++;
      },
    });
    const names = Array.from({ length: CREATES }, (_, index) => `paced-${index}`);
    const seconds = (await timeMs(() => Promise.all(names.map((name) => client.checks.createApi(checkBody(name)))))) / 1000;
    context.log(`${CREATES} paced creates in ${seconds.toFixed(1)} s, ${refused} × 429`);
    return { seconds, refused };
  } finally {
    await service.stop();
  }
}

async function pacedCreateFigures(context: BenchContext): Promise<BenchFigure[]> {
  const results: Array<{ seconds: number; refused: number }> = [];
  for (let run = 0; run < context.runs; run++) results.push(await pacedCreates(context, run));
  const boundSeconds = (CREATES / RATE_LIMIT.requests) * RATE_LIMIT.windowSeconds;
  const note = `server --rate-limit ${RATE_LIMIT.requests}/${RATE_LIMIT.windowSeconds} (fixed windows, with x-ratelimit headers), client pacing at the same budget, concurrency 10`;
  return [
    {
      id: 'client.paced-creates',
      issue: 3,
      label: `${CREATES.toLocaleString('en-US')} creates under the rate limit (bound at a steady pace: ${boundSeconds} s)`,
      unit: 's',
      better: 'lower',
      runs: results.map((result) => result.seconds),
      goal: { text: `within 5 % of the ${boundSeconds} s bound`, met: (median) => median <= boundSeconds * 1.05 },
      note,
    },
    {
      id: 'client.paced-creates-429',
      issue: 3,
      label: `429 responses during ${CREATES.toLocaleString('en-US')} paced creates`,
      unit: '',
      better: 'lower',
      runs: results.map((result) => result.refused),
      goal: { text: 'zero', met: (median) => median === 0 },
      note,
    },
  ];
}

export const suite: BenchSuite = {
  name: 'client',
  issue: 3,
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const figures = await overheadFigures(context);
    // 1,000 creates at 600 / 60 s take 100 s by design: only in the full run.
    if (context.full) figures.push(...(await pacedCreateFigures(context)));
    return figures;
  },
};
