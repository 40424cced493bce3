/**
 * Scripts written to do harm, run through the pool as the service runs them: each one fails its own
 * run, with the limit or the refusal named, and the next run (of any tenant) works as usual.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { waitUntil } from '../__fixtures__/wait.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptRequest } from '../types.js';
import { createScriptPool, type ScriptPool } from './index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const request = (): ScriptRequest => ({ url: 'http://example.test/', method: 'GET', headers: {}, queryParameters: {}, body: '' });
const signal = new AbortController().signal;
let pool: ScriptPool;
let serviceData: string;

beforeAll(() => {
  pool = createScriptPool({ size: 2, timeoutMs: 20_000, limits: { cpuSeconds: 2, memoryBytes: 256 * 1024 * 1024, openFiles: 64, processes: 32 } });
  serviceData = mkdtempSync(path.join(os.tmpdir(), 'vigil-service-data-'));
  writeFileSync(path.join(serviceData, 'local.db'), 'every tenant\'s secrets');
});

afterAll(async () => {
  await pool.close();
  rmSync(serviceData, { recursive: true, force: true });
});

const run = (code: string, tenant: string, env: Record<string, string> = {}) => pool.runSetup({ code, request: request(), env, signal, tenant });

/** After each attack: an ordinary script of another tenant still runs. */
async function expectOrdinaryRunWorks(): Promise<void> {
  const outcome = await run("request.headers['x-ok'] = process.env.TOKEN", 'bystander', { TOKEN: 'mine' });
  expect(outcome.error).toBeNull();
  expect(outcome.value.headers['x-ok']).toBe('mine');
}

describe('a hostile script', () => {
  it("cannot read another tenant's secret through a process.env setter or a global it leaves behind", async () => {
    const plant = "if (!globalThis.seen) { globalThis.seen = []; Object.defineProperty(process, 'env', { configurable: true, set(value) { globalThis.seen.push(value); }, get() { return globalThis.seen.at(-1) ?? {}; } }); }";
    expect((await run(plant, 'mallory')).error).toBeNull();
    for (let round = 0; round < 3; round++) {
      const victim = await run("request.headers['x-token'] = process.env.B_SECRET_TOKEN", 'tenant-b', { B_SECRET_TOKEN: 'b-secret' });
      expect(victim.value.headers['x-token']).toBe('b-secret');
      expect((await run(plant, 'mallory')).error).toBeNull();
    }
    const harvest = await run("console.log(JSON.stringify(globalThis.seen ?? null))", 'mallory');
    // The setter did see mallory's own runs (same process): the sandbox separates tenants, not runs of one.
    expect(harvest.logs.map((line) => line.msg)[0]).toMatch(/^\[/);
    expect(JSON.stringify(harvest)).not.toContain('b-secret');
  });

  it('leaves no socket or server open past its run, even for the next script of its own account', async () => {
    const opened = await run("globalThis.left = require('node:net').createServer().listen(0, '127.0.0.1'); await new Promise((resolve) => globalThis.left.once('listening', resolve)); globalThis.udp = require('node:dgram').createSocket('udp4'); await new Promise((resolve) => globalThis.udp.bind(0, '127.0.0.1', resolve)); console.log('open');", 'lingerer');
    expect(opened.logs.map((line) => line.msg)).toEqual(['open']);
    const next = await run("console.log(String(globalThis.left?.listening), String(Boolean(globalThis.left)))", 'lingerer');
    expect(next.logs.map((line) => line.msg)).toEqual(['false true']);
  });

  it('runs the scripts of one tenant in its own processes, never in those of another', async () => {
    // A pid is the namespace's own under bubblewrap (the same in every sandbox): a mark left in the process tells them apart.
    const pidOf = async (tenant: string) => (await run('globalThis.mark ??= Math.random(); console.log(globalThis.mark)', tenant)).logs[0]?.msg;
    const first = await pidOf('tenant-x');
    const other = await pidOf('tenant-y');
    const again = await pidOf('tenant-x');
    expect(other).not.toBe(first);
    expect(again).toBe(first);
  });

  it.each([
    ['/proc/<parent>/cmdline (every API key)', "require('node:fs').readFileSync('/proc/' + process.ppid + '/cmdline', 'utf8')"],
    ['/proc/<parent>/environ (the service\'s environment)', "require('node:fs').readFileSync('/proc/' + process.ppid + '/environ', 'utf8')"],
    ['/proc/1/environ', "require('node:fs').readFileSync('/proc/1/environ', 'utf8')"],
    ["the service's database", "require('node:fs').readFileSync(DATABASE, 'utf8')"],
  ])('cannot read %s', async (_what, expression) => {
    const outcome = await run(`console.log(${expression.replace('DATABASE', JSON.stringify(path.join(serviceData, 'local.db')))})`, 'mallory');
    expect(outcome.error).toMatch(/^Error: Access to this API has been restricted: the script sandbox does not allow reading \/\S+ \(scripts may use only their own run directory, and start no processes\) \(at setup script:1:\d+\)$/);
    await expectOrdinaryRunWorks();
  });

  it('cannot start a fork bomb: no child processes at all', async () => {
    const outcome = await run("const { spawn } = require('node:child_process'); for (;;) spawn(process.execPath, ['-e', 'for(;;){}']);", 'mallory');
    expect(outcome.error).toMatch(/^Error: Access to this API has been restricted: the script sandbox does not allow starting a child process \(scripts may use only their own run directory, and start no processes\) \(at setup script:1:\d+\)$/);
    await expectOrdinaryRunWorks();
  });

  it('cannot leave a detached child behind', async () => {
    const outcome = await run("require('node:child_process').spawn('/bin/sleep', ['300'], { detached: true, stdio: 'ignore' }).unref();", 'mallory');
    expect(outcome.error).toMatch(/^Error: Access to this API has been restricted: the script sandbox does not allow starting a child process /);
    await expectOrdinaryRunWorks();
  });

  it('with a memory bomb fails at the memory limit', async () => {
    const outcome = await run('const kept = []; for (;;) kept.push(Buffer.alloc(32 * 1024 * 1024, 1));', 'mallory');
    expect(outcome.failure).toBe('limit');
    expect(outcome.error).toMatch(/^it passed the memory limit \(512 MiB of heap, 256 MiB in all\) and was stopped \(RangeError: Array buffer allocation failed \(at setup script:1:\d+\)\)$/);
    await expectOrdinaryRunWorks();
  });

  it('with an endless loop fails at the CPU time limit', async () => {
    const outcome = await run('for (;;) {}', 'mallory');
    expect(outcome).toMatchObject({ failure: 'limit', error: 'it passed the CPU time limit (2 s) and was stopped' });
    await expectOrdinaryRunWorks();
  });

  it('flooding stdout fails at the output limit', async () => {
    const outcome = await run("for (;;) { process.stdout.write('x'.repeat(4096)); await new Promise((resolve) => setImmediate(resolve)); }", 'mallory');
    expect(outcome).toMatchObject({ failure: 'limit', error: 'it passed the output limit (64 KiB) and was stopped' });
    await expectOrdinaryRunWorks();
  });

  it('opening files without end fails with EMFILE at the open-file limit', async () => {
    const outcome = await run("const fs = require('node:fs'); for (let i = 0; i < 1000; i++) fs.openSync('f' + i, 'w');", 'mallory');
    expect(outcome.error).toMatch(/^Error: EMFILE: too many open files, open 'f\d+' \(at setup script:1:\d+\)$/);
    await expectOrdinaryRunWorks();
  });
});

describe('the pool between tenants', () => {
  it("takes tenants in turn: one tenant's queue of slow scripts does not hold back another's", async () => {
    const fair = createScriptPool({ size: 1, timeoutMs: 20_000 });
    try {
      const finished: string[] = [];
      const slow = "await new Promise((resolve) => setTimeout(resolve, 200));";
      const runs = [
        ...['a1', 'a2', 'a3', 'a4'].map((name) => fair.runSetup({ code: slow, request: request(), env: {}, signal, tenant: 'a' }).then(() => finished.push(name))),
        fair.runSetup({ code: '', request: request(), env: {}, signal, tenant: 'b' }).then(() => finished.push('b1')),
      ];
      await Promise.all(runs);
      expect(finished).toEqual(['a1', 'b1', 'a2', 'a3', 'a4']);
    } finally {
      await fair.close();
    }
  });
});

/** Pids of script processes on this machine (their command line names the permission model and the worker). */
function scriptProcesses(): Set<number> {
  const found = new Set<number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmdline.includes('--experimental-permission') && cmdline.includes('vigil-script-worker')) found.add(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe('a service killed with -9 while a script runs', () => {
  it('takes the script process with it', async () => {
    const before = scriptProcesses();
    const program = [
      `import { createScriptPool } from ${JSON.stringify(pathToFileURL(path.join(here, 'index.ts')).href)};`,
      'const pool = createScriptPool({ size: 1, timeoutMs: 600000 });',
      "const request = { url: 'http://127.0.0.1:1/', method: 'GET', headers: {}, queryParameters: {}, body: '' };",
      "void pool.runSetup({ code: 'for (;;) {}', request, env: {}, signal: new AbortController().signal });",
    ].join('\n');
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const service = spawn(process.execPath, ['--import', tsx, '--input-type=module', '-e', program], { stdio: 'ignore' });
    let spinning: number[] = [];
    await waitUntil('the spinning script process to start', () => (spinning = [...scriptProcesses()].filter((pid) => !before.has(pid))).length > 0);
    service.kill('SIGKILL');
    await waitUntil('the script process to die with the service', () => spinning.every((pid) => !scriptProcesses().has(pid)));
  });
});
