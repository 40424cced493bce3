import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptRequest, ScriptResponse } from '../types.js';
import { createScriptPool, type ScriptPool } from './index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/**
 * scripts/setup.ts of the fixture project, bundled by the engine's bundleScript (ESM syntax, runtime
 * imports as require, inline source map): regenerate it with bundleScript when the bundle format changes.
 */
const bundledSetup = readFileSync(path.join(here, '__fixtures__/project/setup.bundle.js'), 'utf8');

const request = (): ScriptRequest => ({
  url: 'http://127.0.0.1:1/items',
  method: 'GET',
  headers: { accept: 'application/json' },
  queryParameters: {},
  body: '',
});

const response = (): ScriptResponse => ({
  status: 200,
  statusText: 'OK',
  headers: { 'content-type': 'application/json' },
  body: '{"items":[1,2,3]}',
  timings: { socket: 0, lookup: 1, connect: 2, response: 5, end: 6 },
  timingPhases: { wait: 0, dns: 1, tcp: 1, firstByte: 3, download: 1, total: 6 },
});

let pool: ScriptPool;
const signal = new AbortController().signal;

beforeAll(async () => {
  // Must never reach a script: scripts see the check's variables only.
  process.env.VIGIL_RUNNER_SECRET = 'runner-only';
  pool = createScriptPool({ size: 2, timeoutMs: 5_000 });
  await pool.warm();
});

afterAll(async () => {
  delete process.env.VIGIL_RUNNER_SECRET;
  await pool.close();
});

describe('setup scripts', () => {
  it('change the request: url, method, headers, query parameters and body', async () => {
    const code = [
      "request.url = request.url + '/extra';",
      "request.method = 'post';",
      "request.headers['X-Custom'] = 'my value';",
      "request.queryParameters['page'] = 2;",
      'request.body = JSON.stringify({ id: 1 });',
    ].join('\n');
    const outcome = await pool.runSetup({ code, request: request(), env: {}, signal });
    expect(outcome.error).toBeNull();
    expect(outcome.value).toEqual({
      url: 'http://127.0.0.1:1/items/extra',
      method: 'POST',
      headers: { accept: 'application/json', 'X-Custom': 'my value' },
      queryParameters: { page: '2' },
      body: '{"id":1}',
    });
  });

  it('run with top-level await', async () => {
    const code = "await new Promise((resolve) => setTimeout(resolve, 20));\nrequest.headers['x-after'] = String(await Promise.resolve(42));";
    const outcome = await pool.runSetup({ code, request: request(), env: {}, signal });
    expect(outcome.error).toBeNull();
    expect(outcome.value.headers['x-after']).toBe('42');
  });

  it('see only the check variables in process.env, and may set new ones', async () => {
    const code = "request.headers['x-env'] = Object.keys(process.env).sort().join(',');\nprocess.env.TOKEN = 'from-setup';";
    const outcome = await pool.runSetup({ code, request: request(), env: { API_HOST: 'h', USER_NAME: 'u' }, signal });
    expect(outcome.error).toBeNull();
    expect(outcome.value.headers['x-env']).toBe('API_HOST,USER_NAME');
    expect(outcome.env).toEqual({ API_HOST: 'h', USER_NAME: 'u', TOKEN: 'from-setup' });
  });

  it('do not see variables of an earlier run in the same process', async () => {
    await pool.runSetup({ code: "process.env.LEFT_OVER = 'x'", request: request(), env: { FIRST: '1' }, signal });
    const code = "request.headers['x-env'] = Object.keys(process.env).join(',')";
    const [a, b] = await Promise.all([
      pool.runSetup({ code, request: request(), env: { SECOND: '2' }, signal }),
      pool.runSetup({ code, request: request(), env: { SECOND: '2' }, signal }),
    ]);
    expect([a?.value.headers['x-env'], b?.value.headers['x-env']]).toEqual(['SECOND', 'SECOND']);
  });

  it('capture console output as job log lines with levels', async () => {
    const code = "console.log('token', { ok: true });\nconsole.warn('slow');\nconsole.error(new Error('shown').message);";
    const outcome = await pool.runSetup({ code, request: request(), env: {}, signal });
    expect(outcome.logs.map(({ level, msg }) => ({ level, msg }))).toEqual([
      { level: 'INFO', msg: 'token { ok: true }' },
      { level: 'WARN', msg: 'slow' },
      { level: 'ERROR', msg: 'shown' },
    ]);
  });

  it('keep console output a script leaves behind out of later runs', async () => {
    await pool.runSetup({ code: "setTimeout(() => console.log('late line of an earlier check'), 50);", request: request(), env: {}, signal });
    const later = await pool.runSetup({ code: "await new Promise((resolve) => setTimeout(resolve, 200));\nconsole.log('own line');", request: request(), env: {}, signal });
    expect(later.logs.map((line) => line.msg)).toEqual(['own line']);
  });

  it('can require Node built-ins', async () => {
    const code = "const { createHash } = require('node:crypto');\nrequest.headers['x-sig'] = createHash('sha1').update('a').digest('hex');";
    const outcome = await pool.runSetup({ code, request: request(), env: {}, signal });
    expect(outcome.value.headers['x-sig']).toBe('86f7e437faa5a7fce15d1ddcb9eaeaea377667b8');
  });

  it('that throw fail with the error at their own file:line, through the bundle source map', async () => {
    const outcome = await pool.runSetup({ code: bundledSetup, request: request(), env: {}, signal });
    expect(outcome.failure).toBe('threw');
    expect(outcome.location).toBe('scripts/sign.ts:3:11');
    expect(outcome.error).toBe('Error: TOKEN is not set (at scripts/sign.ts:3:11)');
    expect(outcome.stack).toBe(['Error: TOKEN is not set', '    at requireToken (scripts/sign.ts:3:11)', '    at scripts/setup.ts:6:30'].join('\n'));
  });

  it('that pass through the same bundle run it with the variables given', async () => {
    const outcome = await pool.runSetup({ code: bundledSetup, request: request(), env: { TOKEN: 't-1' }, signal });
    expect(outcome.error).toBeNull();
    expect(outcome.value.headers['x-token']).toBe('t-1');
  });

  it('written inline report the line within the script when they throw', async () => {
    const outcome = await pool.runSetup({ code: "const a = 1;\nnull.boom;", request: request(), env: {}, signal });
    expect(outcome.location).toBe('setup script:2:6');
    expect(outcome.error).toMatch(/^TypeError: Cannot read properties of null \(reading 'boom'\) \(at setup script:2:6\)$/);
  });

  it('with a syntax error fail with its line', async () => {
    const outcome = await pool.runSetup({ code: "const a = 1;\nrequest.headers['x' = 2;", request: request(), env: {}, signal });
    expect(outcome.failure).toBe('threw');
    expect(outcome.error).toMatch(/^SyntaxError: .* \(at setup script:2:1\)$/);
  });

  it('may come from a bundle whose entry exports something', async () => {
    const code = "var answer = 42;\nrequest.headers['x-answer'] = String(answer);\nexport {\n  answer\n};\n";
    const outcome = await pool.runSetup({ code, request: request(), env: {}, signal });
    expect(outcome.error).toBeNull();
    expect(outcome.value.headers['x-answer']).toBe('42');
  });

  it('that loop forever are stopped at their timeout, and the next run finds a working process', async () => {
    const looping = await pool.runSetup({ code: 'while (true) {}', request: request(), env: {}, signal, timeoutMs: 300 });
    expect(looping.failure).toBe('timeout');
    expect(looping.error).toBe('it did not finish within 300 ms and was stopped');
    const next = await pool.runSetup({ code: "request.headers['x-next'] = 'ok'", request: request(), env: {}, signal });
    expect(next.error).toBeNull();
    expect(next.value.headers['x-next']).toBe('ok');
  });

  it('that call process.exit fail that run only', async () => {
    const exiting = await pool.runSetup({ code: 'process.exit(3)', request: request(), env: {}, signal });
    expect(exiting.failure).toBe('exited');
    expect(exiting.error).toBe('it ended its own process (exit code 3, e.g. through process.exit)');
    const next = await pool.runSetup({ code: "request.headers['x-next'] = 'ok'", request: request(), env: {}, signal });
    expect(next.value.headers['x-next']).toBe('ok');
  });

  it('end at once when the run is cancelled', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const outcome = await pool.runSetup({ code: 'await new Promise(() => {})', request: request(), env: {}, signal: controller.signal });
    expect(outcome.failure).toBe('aborted');
  });
});

describe('the pool', () => {
  it('leaves a run cancelled before it starts out, without stopping a worker', async () => {
    const controller = new AbortController();
    controller.abort();
    const cancelled = await pool.runSetup({ code: "request.headers['x'] = '1'", request: request(), env: {}, signal: controller.signal });
    expect(cancelled.failure).toBe('aborted');
    expect(cancelled.durationMs).toBe(0);
    const next = await pool.runSetup({ code: "request.headers['x-next'] = 'ok'", request: request(), env: {}, signal });
    expect(next.value.headers['x-next']).toBe('ok');
  });

  it('runs more scripts than it has processes, in turn', async () => {
    const code = "await new Promise((resolve) => setTimeout(resolve, 30));\nrequest.headers['x-env'] = process.env.N;";
    const outcomes = await Promise.all(['1', '2', '3', '4', '5'].map((n) => pool.runSetup({ code, request: request(), env: { N: n }, signal })));
    expect(outcomes.map((outcome) => outcome.value.headers['x-env'])).toEqual(['1', '2', '3', '4', '5']);
  });
});

describe('a process using the pool', () => {
  it('ends normally after close: idle workers do not keep it alive, and close waits for their exits', async () => {
    const program = [
      `import { createScriptPool } from ${JSON.stringify(pathToFileURL(path.join(here, 'index.ts')).href)};`,
      'const pool = createScriptPool({ size: 1, timeoutMs: 5000 });',
      "const request = { url: 'http://127.0.0.1:1/', method: 'GET', headers: {}, queryParameters: {}, body: '' };",
      "const outcome = await pool.runSetup({ code: \"request.headers.x = 'y'\", request, env: {}, signal: new AbortController().signal });",
      'await pool.close();',
      'console.log(JSON.stringify(outcome.value.headers));',
    ].join('\n');
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', tsx, '--input-type=module', '-e', program], { timeout: 60_000 });
    expect(stdout.trim()).toBe('{"x":"y"}');
  });
});

describe('teardown scripts', () => {
  it('read the request and the response, and may change the response', async () => {
    const code = [
      'const data = JSON.parse(response.body);',
      "console.log(request.method, response.statusCode, response.status, response.headers['content-type'], data.items.length);",
      'response.statusCode = 201;',
      "response.body = JSON.stringify({ count: data.items.length });",
    ].join('\n');
    const outcome = await pool.runTearDown({ code, request: request(), response: response(), env: {}, signal });
    expect(outcome.error).toBeNull();
    expect(outcome.logs.map((line) => line.msg)).toEqual(['GET 200 200 application/json 3']);
    expect(outcome.response).toMatchObject({ status: 201, statusText: 'OK', body: '{"count":3}' });
    expect(outcome.response.timingPhases.total).toBe(6);
  });
});
