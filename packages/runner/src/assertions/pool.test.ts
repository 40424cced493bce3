import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { AssertedResponse, AssertionInput } from './evaluate.js';
import { MAX_ACTUAL_BYTES, MAX_JSONPATH_MATCHES } from './evaluate.js';
import { AssertionPool } from './pool.js';

/** The pattern and body that froze the service: exponential backtracking on 34 `a`s and a `!`. */
const CATASTROPHIC: AssertionInput = { source: 'TEXT_BODY', comparison: 'EQUALS', target: 'x', regex: '^(a+)+$' };
const RUNAWAY_BODY: AssertedResponse = { status: 200, headers: {}, body: `${'a'.repeat(34)}!`, responseTime: 5 };

const pool = new AssertionPool({ size: 1, timeoutMs: 1_000 });

/** Rejects after `ms`, naming what was awaited. */
function failAfter(ms: number, what: string): Promise<never> {
  return new Promise((_resolve, reject) => setTimeout(() => reject(new Error(`gave up after ${ms} ms waiting for ${what}`)), ms).unref());
}
afterAll(() => pool.close());

describe('assertion pool', () => {
  it('stops a runaway pattern with a message naming the limit, keeps the outcomes around it, and the event loop turns meanwhile', async () => {
    let turned = false;
    const evaluation = pool.evaluate(
      [
        { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' },
        { source: 'TEXT_BODY', comparison: 'EQUALS', target: 'aaa', regex: '^(a{3})' },
        CATASTROPHIC,
        { source: 'TEXT_BODY', comparison: 'EQUALS', target: 'a!', regex: '(a!)$' },
      ],
      RUNAWAY_BODY,
    );
    // A timer due long before the deadline fires while the pattern runs: nothing waits for it.
    setTimeout(() => (turned = true), 10);
    const outcomes = await evaluation;
    expect(turned).toBe(true);
    expect(outcomes.map((outcome) => [outcome.passed, outcome.error])).toEqual([
      [true, null],
      [true, null],
      [false, 'TEXT_BODY assertion: the pattern did not finish within 1000 ms and was stopped'],
      [true, null],
    ]);
    expect(outcomes[2]!.actual).toBeUndefined();
  });

  it('replaces a stopped worker: the next evaluation runs', async () => {
    await pool.evaluate([CATASTROPHIC], RUNAWAY_BODY);
    const [outcome] = await pool.evaluate([{ source: 'HEADERS', property: 'x-id', comparison: 'EQUALS', target: '42', regex: '(\\d+)' }], {
      ...RUNAWAY_BODY,
      headers: { 'x-id': 'id-42' },
    });
    expect(outcome).toMatchObject({ passed: true, actual: '42', error: null });
  });

  it('names the DNS or TCP source a pattern was written for', async () => {
    const [outcome] = await pool.evaluate([{ ...CATASTROPHIC, label: 'TEXT_ANSWER' }], RUNAWAY_BODY);
    expect(outcome!.error).toBe('TEXT_ANSWER assertion: the pattern did not finish within 1000 ms and was stopped');
  });

  it('stops `$..*` on a multi-megabyte JSON body at the match limit', async () => {
    const body = JSON.stringify(Array.from({ length: 60_000 }, (_, id) => ({ id, name: `item ${id}`, tags: ['a', 'b'], nested: { id } })));
    expect(body.length).toBeGreaterThan(3 * 1024 * 1024);
    // A deadline no busy machine reaches, so what stops the walk is the match limit under test.
    const patient = new AssertionPool({ size: 1, timeoutMs: 120_000 });
    const [all, first] = await patient.evaluate(
      [
        { source: 'JSON_BODY', property: '$..*', comparison: 'NOT_EMPTY' },
        { source: 'JSON_BODY', property: '$[0].name', comparison: 'EQUALS', target: 'item 0' },
      ],
      { status: 200, headers: {}, body, responseTime: 5 },
    );
    expect(all!.error).toBe(`the JSONPath "$..*" matched more than ${MAX_JSONPATH_MATCHES} values; an assertion compares at most ${MAX_JSONPATH_MATCHES} (narrow the path)`);
    expect(first).toMatchObject({ passed: true, actual: 'item 0' });
    await patient.close();
  });

  it('keeps at most MAX_ACTUAL_BYTES of an actual value, with a marker, while comparing the whole of it', async () => {
    const body = `${'x'.repeat(5 * 1024 * 1024 - 3)}END`;
    const [inline, isolated] = await pool.evaluate(
      [
        { source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'END' },
        { source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'END', regex: '^([\\s\\S]*)$' },
      ],
      { status: 200, headers: {}, body, responseTime: 5 },
    );
    for (const outcome of [inline!, isolated!]) {
      expect(outcome.passed).toBe(true);
      expect(outcome.actual).toBe(`${'x'.repeat(MAX_ACTUAL_BYTES)}… [truncated: ${5 * 1024 * 1024} bytes in all]`);
    }
  });

  it('fails what it is handed after close, without a worker', async () => {
    const closed = new AssertionPool();
    await closed.close();
    const outcomes = await closed.evaluate([{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }, CATASTROPHIC], RUNAWAY_BODY);
    expect(outcomes.map((outcome) => outcome.error)).toEqual([null, 'TEXT_BODY assertion: the pattern was not evaluated: the runner was closed']);
  });

  it('does not keep the process alive once idle', async () => {
    const tsx = createRequire(import.meta.url).resolve('tsx');
    const script = [
      `import { AssertionPool } from ${JSON.stringify(fileURLToPath(new URL('./pool.ts', import.meta.url)))};`,
      'const pool = new AssertionPool();',
      "const [outcome] = await pool.evaluate([{ source: 'TEXT_BODY', comparison: 'EQUALS', target: 'b', regex: '(b)' }], { status: 200, headers: {}, body: 'abc', responseTime: 1 });",
      'console.log(outcome.passed);',
    ].join('\n');
    const child = spawn(process.execPath, ['--import', tsx, '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const code = await Promise.race([exited, failAfter(45_000, 'the process with an idle assertion pool to exit by itself')]);
    expect(output.trim()).toBe('true');
    expect(code).toBe(0);
  }, 60_000);
});
