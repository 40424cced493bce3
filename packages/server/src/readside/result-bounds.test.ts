import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../store/index.js';
import { sqlitePorts } from '../store/sqlite/index.js';
import { boundResult, STORED_RESULT_LIMITS } from './result-bounds.js';
import type { CheckResultDocument } from '../store/result-ports.js';

const stores: Store[] = [];
afterEach(() => stores.splice(0).forEach((store) => store.close()));

const MiB = 1024 * 1024;
const T0 = Date.parse('2026-11-24T08:00:00.000Z');

/** A failing API result as an unbounded runner could hand it over: a 5 MiB body everywhere it can go. */
function hugeResult(checkId: string): CheckResultDocument {
  const body = 'b'.repeat(5 * MiB);
  return {
    id: randomUUID(),
    checkId,
    name: 'Big page',
    hasFailures: true,
    hasErrors: false,
    isDegraded: false,
    overMaxResponseTime: false,
    runLocation: 'eu-west-1',
    startedAt: new Date(T0 - 80).toISOString(),
    stoppedAt: new Date(T0).toISOString(),
    created_at: new Date(T0).toISOString(),
    responseTime: 80,
    apiCheckResult: {
      assertions: [{ source: 'TEXT_BODY', comparison: 'CONTAINS', property: '', target: 'zzz', regex: null, actual: body, passed: false, error: null }],
      request: { method: 'GET', url: 'http://127.0.0.1:1/big', data: '', headers: {}, params: {} },
      response: { status: 200, statusText: 'OK', body, bodyTruncated: false, headers: {}, timings: {}, timingPhases: { total: 80 } },
      requestError: null,
      jobLog: {
        setup: Array.from({ length: 1000 }, (_, index) => ({ time: T0, level: 'INFO', msg: `${index} ${'l'.repeat(8000)}` })),
        request: [{ time: T0, level: 'INFO', msg: 'GET http://127.0.0.1:1/big' }],
        teardown: [{ time: T0, level: 'INFO', msg: 'm'.repeat(MiB) }],
      },
      jobAssets: null,
    },
    browserCheckResult: null,
    multiStepCheckResult: null,
    checkRunId: Math.floor(T0 / 1000),
    attempts: 0,
    resultType: 'FINAL',
    sequenceId: randomUUID(),
    error: `assertion failed: TEXT_BODY CONTAINS "zzz": actual ${JSON.stringify(body)}`,
  };
}

const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('boundResult', () => {
  it('cuts body, actual values, error and job log to their limits, with markers, and the whole below resultBytes', () => {
    const bounded = boundResult(hugeResult('c1')) as any;
    expect(size(bounded)).toBeLessThanOrEqual(STORED_RESULT_LIMITS.resultBytes);
    const api = bounded.apiCheckResult;
    expect(api.response.body).toBe('b'.repeat(STORED_RESULT_LIMITS.responseBodyBytes));
    expect(api.response.bodyTruncated).toBe(true);
    expect(api.assertions[0].actual).toBe(`${'b'.repeat(STORED_RESULT_LIMITS.actualBytes)}… [truncated: ${5 * MiB} bytes in all]`);
    expect(bounded.error).toMatch(/^assertion failed: TEXT_BODY CONTAINS "zzz": actual "b+… \[truncated: \d+ bytes in all\]$/);
    expect(Buffer.byteLength(bounded.error)).toBeLessThan(STORED_RESULT_LIMITS.errorBytes + 64);
    const lines = [...api.jobLog.setup, ...api.jobLog.request, ...api.jobLog.teardown] as Array<{ msg: string }>;
    const logged = lines.slice(0, -1).reduce((total, line) => total + Buffer.byteLength(line.msg), 0);
    expect(logged).toBeLessThanOrEqual(STORED_RESULT_LIMITS.jobLogBytes);
    expect(lines.at(-1)!.msg).toBe(`${1000 + 2 - (lines.length - 1)} more job log lines were not stored (at most ${STORED_RESULT_LIMITS.jobLogBytes} bytes of job log are kept per result)`);
  });

  it('leaves a result within the limits as it was', () => {
    const small = { ...hugeResult('c2'), error: 'short', apiCheckResult: null };
    expect(JSON.stringify(boundResult(small))).toBe(JSON.stringify(small));
  });

  it('cuts every string and array of an oversized result it has no field limit for until the whole fits', () => {
    const steps = Array.from({ length: 2000 }, (_, index) => ({ title: `step ${index}`, params: { text: 'p'.repeat(2000) } }));
    const bounded = boundResult({ ...hugeResult('c3'), apiCheckResult: null, multiStepCheckResult: { errors: [], tests: [{ title: 'flow', steps }], jobLog: [] } });
    expect(size(bounded)).toBeLessThanOrEqual(STORED_RESULT_LIMITS.resultBytes);
    expect(bounded).toMatchObject({ id: expect.any(String), checkId: 'c3', hasFailures: true, resultType: 'FINAL', responseTime: 80 });
  });

  it('is what the store keeps: a 5 MiB result, bounded as a run\'s tries are before they are stored, is stored and served within resultBytes', async () => {
    const store = new Store(':memory:');
    stores.push(store);
    const { checkResults } = sqlitePorts(store);
    const huge = hugeResult(randomUUID());
    await checkResults.appendKept('acct', boundResult(huge));
    const stored = (await checkResults.find('acct', huge.checkId, huge.id))!;
    expect(size(stored)).toBeLessThanOrEqual(STORED_RESULT_LIMITS.resultBytes);
    const row = store.db.prepare('SELECT length(body) AS bytes FROM check_results').get() as { bytes: number };
    expect(row.bytes).toBeLessThanOrEqual(STORED_RESULT_LIMITS.resultBytes);
  });
});
