/**
 * The service under attack from its own tenants: the API's p99 latency while scheduled checks run a
 * fork bomb, a memory bomb, an endless loop and a detached child in their setup scripts, and a
 * catastrophic regular expression in a TEXT_BODY assertion, beside its p99 when idle, measured in
 * the same run on the same service (goal: within 2× of idle). The attacks run every 10 s on
 * `vigil server`'s own scheduler, in their sandboxes; the load is autocannon in a process of its own.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { repeat, type BenchContext, type BenchFigure, type BenchSuite } from '../harness.js';
import { startServiceProcess } from '../lib/service-process.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const MEASURE_SECONDS = 10;
const COPIES = 3;

const ATTACKS: Record<string, string> = {
  'fork bomb': "const { spawn } = require('node:child_process'); for (;;) spawn(process.execPath, ['-e', 'for(;;){}']);",
  'memory bomb': 'const kept = []; for (;;) kept.push(Buffer.alloc(64 * 1024 * 1024, 1));',
  'endless loop': 'for (;;) {}',
  'detached child': "require('node:child_process').spawn('/bin/sh', ['-c', 'sleep 600'], { detached: true, stdio: 'ignore' }).unref(); for (;;) {}",
};

async function p99Of(url: string): Promise<number> {
  const options = { url: `${url}/v1/checks?limit=100`, connections: 2, duration: MEASURE_SECONDS, headers: { authorization: 'Bearer vigil-local' } };
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(here, '../lib/load-generator.mjs'), JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`load generator exited ${code}`))));
  });
  const result = JSON.parse(output) as { latency: { p99: number }; non2xx: number };
  if (result.non2xx > 0) throw new Error(`the API answered ${result.non2xx} requests with an error during the measurement`);
  return result.latency.p99;
}

const HEADERS = { authorization: 'Bearer vigil-local', 'content-type': 'application/json' };

/** Creates a check, deactivated: the idle figure is measured with every check there, none running. */
async function create(url: string, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${url}/v1/checks/api?autoAssignAlerts=false`, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ frequency: 0, frequencyOffset: 10, activated: false, locations: ['eu-west-1'], ...body }),
  });
  if (response.status !== 201) throw new Error(`creating ${String(body.name)} answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

async function activate(url: string, id: string): Promise<void> {
  const response = await fetch(`${url}/v1/checks/api/${id}?autoAssignAlerts=false`, { method: 'PUT', headers: HEADERS, body: JSON.stringify({ activated: true }) });
  if (response.status !== 200) throw new Error(`activating ${id} answered ${response.status}: ${await response.text()}`);
}

export const suite: BenchSuite = {
  name: 'sandbox-attack',
  issue: 24,
  async run(context: BenchContext): Promise<BenchFigure[]> {
    const target = http.createServer((request, response) => {
      // 34 a's and a '!': a backtracking engine needs about 2^34 steps for ^(a+)+$ on it.
      if (request.url === '/redos') response.end(`${'a'.repeat(34)}!`);
      else response.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    const idle: number[] = [];
    const attacked: number[] = [];
    try {
      await repeat(context.runs, async () => {
        const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vigil-bench-attack-'));
        const service = await startServiceProcess({ dataDir, scheduler: true });
        try {
          const ids = [await create(service.url, { name: 'bystander', request: { method: 'GET', url: `${targetUrl}/` } })];
          for (let copy = 0; copy < COPIES; copy++) {
            for (const [name, script] of Object.entries(ATTACKS)) ids.push(await create(service.url, { name: `${name} ${copy}`, localSetupScript: script, request: { method: 'GET', url: `${targetUrl}/` } }));
            ids.push(await create(service.url, {
              name: `regex ${copy}`,
              request: { method: 'GET', url: `${targetUrl}/redos`, assertions: [{ source: 'TEXT_BODY', comparison: 'NOT_NULL', property: '', target: '', regex: '^(a+)+$' }] },
            }));
          }
          idle.push(await p99Of(service.url));
          for (const id of ids) await activate(service.url, id);
          // The first attacks start within one 10 s period of their creation.
          await new Promise((resolve) => setTimeout(resolve, 10_000));
          attacked.push(await p99Of(service.url));
          return 0;
        } finally {
          await service.stop();
          await rm(dataDir, { recursive: true, force: true });
        }
      });
    } finally {
      await new Promise((resolve) => target.close(resolve));
    }
    return [
      {
        id: 'sandbox-attack.api-p99',
        issue: 24,
        label: `GET /v1/checks?limit=100 p99 latency while ${COPIES} copies each of a fork bomb, a memory bomb, an endless loop, a detached child (setup scripts) and ^(a+)+$ on 34 a's and '!' (TEXT_BODY) run every 10 s`,
        unit: 'ms',
        better: 'lower',
        runs: attacked,
        baseline: { label: 'the same service idle, same run', runs: idle },
        goal: { text: 'within 2× of idle', met: (ours, baseline) => baseline !== undefined && ours <= 2 * baseline },
        note: `2 connections, ${MEASURE_SECONDS} s per measurement, service in its own process with its scheduler`,
      },
    ];
  },
};
