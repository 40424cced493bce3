/**
 * What the check-results port keeps of the results it is given, the same assertions on every engine
 * (see engines.ts): every shape of result the runner makes reads back as stored, a run's tries get the
 * ids the store derives, and the rollups of a realistic spread of results say what the results said.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runnerLikeResult } from '../../../../../test/bench/suites/analytics.js';
import { allResultsOf } from '../../result-test-support.js';
import { percentile } from '../../readside/stats.js';
import { parseDerivedId } from '../formats/result-ids.js';
import { HISTOGRAM_RELATIVE_ERROR, histogramPercentile } from '../formats/rollup-histogram.js';
import { DAY_MS, HOUR_MS } from '../port-rules.js';
import type { CheckResultDocument, RolledUpResults, RollupGranularity, StoragePorts } from '../ports.js';
import { enginesUnderTest, twoReplicas } from './engines.js';

const engines = enginesUnderTest();
const T0 = Date.parse('2026-11-24T08:00:00.000Z');

/** A TCP result as the runner makes it: the API result shape with a socket request and response. */
function tcpResult(checkId: string, at: number, failing = false): CheckResultDocument {
  return {
    id: randomUUID(), name: 'Redis', checkId, hasFailures: failing, hasErrors: false, isDegraded: false, overMaxResponseTime: false,
    runLocation: 'eu-west-1', startedAt: new Date(at - 3).toISOString(), stoppedAt: new Date(at).toISOString(), created_at: new Date(at).toISOString(),
    responseTime: 3,
    apiCheckResult: {
      assertions: [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', property: '', target: 'PONG', regex: null, actual: failing ? '' : '+PONG', passed: !failing, error: null }],
      request: { host: '127.0.0.1', port: 6379, data: 'PING\r\n' },
      response: { data: failing ? '' : '+PONG\r\n', timingPhases: { dns: 0, connection: 1.12 + (at % 7) / 100, data: 0.84, total: 2.71 } },
      requestError: failing ? 'connect ECONNREFUSED 127.0.0.1:6379' : null,
    },
    browserCheckResult: null, multiStepCheckResult: null, checkRunId: Math.floor(at / 1000), attempts: 0, resultType: 'FINAL', sequenceId: randomUUID(),
    error: failing ? 'connect ECONNREFUSED 127.0.0.1:6379' : null,
  };
}

function dnsResult(checkId: string, at: number): CheckResultDocument {
  return {
    id: randomUUID(), name: 'DNS', checkId, hasFailures: false, hasErrors: false, isDegraded: false, overMaxResponseTime: false,
    runLocation: 'us-east-1', startedAt: new Date(at - 12).toISOString(), stoppedAt: new Date(at).toISOString(), created_at: new Date(at).toISOString(),
    responseTime: 12, apiCheckResult: null, browserCheckResult: null, multiStepCheckResult: null,
    dnsCheckResult: { query: { name: 'example.com', recordType: 'A', nameServer: '1.1.1.1' }, response: { rcode: 'NOERROR', answers: [{ data: '93.184.216.34', ttl: 3600 - (at % 60) }] }, timingPhases: { total: 12 } },
    checkRunId: Math.floor(at / 1000), attempts: 0, resultType: 'FINAL', sequenceId: randomUUID(), error: null,
  };
}

function multiStepResult(checkId: string, at: number, failing = false): CheckResultDocument {
  return {
    id: randomUUID(), name: 'Checkout flow', checkId, hasFailures: failing, hasErrors: failing, isDegraded: false, overMaxResponseTime: false,
    runLocation: 'eu-west-1', startedAt: new Date(at - 2400).toISOString(), stoppedAt: new Date(at).toISOString(), created_at: new Date(at).toISOString(),
    responseTime: 2400, apiCheckResult: null, browserCheckResult: null,
    multiStepCheckResult: {
      playwrightTestResults: [{ title: 'checkout', status: failing ? 'failed' : 'passed', duration: 2380 + (at % 13) }],
      errors: failing ? ['step 2 failed: expected 200, got 503'] : [],
      jobLog: [{ time: at - 2400, level: 'INFO', msg: 'Running 1 test using 1 worker' }, { time: at, level: 'INFO', msg: `1 ${failing ? 'failed' : 'passed'} (${(2380 + (at % 13)) / 1000}s)` }],
    },
    checkRunId: Math.floor(at / 1000), attempts: 0, resultType: 'FINAL', sequenceId: randomUUID(), error: failing ? 'step 2 failed' : null,
  };
}

/** Each result appended as a run of its own, one after another (a passing one is kept as its difference from an earlier one): the runs as stored. */
async function appendEach(ports: StoragePorts, runs: readonly CheckResultDocument[]): Promise<CheckResultDocument[]> {
  const stored: CheckResultDocument[] = [];
  for (const run of runs) stored.push((await ports.checkResults.appendRun('acct', [run]))[0]!);
  return stored;
}

/** A deterministic spread of results over three days: response times from 0.4 ms to a few seconds, some failing, degraded, retried, without a response time, or ATTEMPTs. */
function spreadResults(checkId: string, count: number): CheckResultDocument[] {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return Array.from({ length: count }, (_, index) => {
    const failing = random() < 0.1;
    const at = T0 + Math.floor(random() * 3 * DAY_MS);
    return {
      id: randomUUID(),
      checkId,
      created_at: new Date(at).toISOString(),
      runLocation: index % 3 === 0 ? 'us-east-1' : 'eu-west-1',
      hasFailures: failing,
      isDegraded: !failing && random() < 0.05,
      attempts: failing ? 2 : random() < 0.1 ? 1 : 0,
      responseTime: index % 50 === 0 ? null : Math.round((0.4 + random() ** 3 * 4000) * 100) / 100,
      resultType: index % 7 === 0 ? 'ATTEMPT' : 'FINAL',
    };
  });
}

interface ExpectedRollup {
  results: number;
  failures: number;
  degraded: number;
  attempts: number;
  times: number[];
}

/** What the rows of one granularity should hold, worked out from the results one by one, keyed by start and location. */
function expectedRollups(results: readonly CheckResultDocument[], spanMs: number): Map<string, ExpectedRollup> {
  const expected = new Map<string, ExpectedRollup>();
  for (const result of results.filter((r) => r['resultType'] !== 'ATTEMPT')) {
    const key = `${Math.floor(Date.parse(result.created_at) / spanMs) * spanMs} ${result.runLocation}`;
    const entry = expected.get(key) ?? { results: 0, failures: 0, degraded: 0, attempts: 0, times: [] };
    entry.results += 1;
    if (result.hasFailures) entry.failures += 1;
    if (result['isDegraded'] === true) entry.degraded += 1;
    entry.attempts += result['attempts'] as number;
    if (typeof result['responseTime'] === 'number') entry.times.push(result['responseTime']);
    expected.set(key, entry);
  }
  return expected;
}

function expectRowsToMatch(rows: readonly RolledUpResults[], expected: Map<string, ExpectedRollup>, spanMs: number): void {
  const byKey = new Map(rows.map((row) => [`${row.startMs} ${row.location}`, row]));
  expect([...byKey.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [key, want] of expected) {
    const row = byKey.get(key)!;
    expect({ spanMs: row.spanMs, results: row.results, failures: row.failures, degraded: row.degraded, attempts: row.attempts, rtCount: row.rtCount }, key).toEqual({
      spanMs,
      results: want.results,
      failures: want.failures,
      degraded: want.degraded,
      attempts: want.attempts,
      rtCount: want.times.length,
    });
    if (want.times.length === 0) continue;
    expect(row.rtSum, key).toBeCloseTo(want.times.reduce((sum, time) => sum + time, 0), 6);
    expect(row.rtSqSum, key).toBeCloseTo(want.times.reduce((sum, time) => sum + time * time, 0), 3);
    const min = Math.min(...want.times);
    const max = Math.max(...want.times);
    expect([row.rtMin, row.rtMax], key).toEqual([min, max]);
    expect([...row.histogram.values()].reduce((sum, count) => sum + count, 0), key).toBe(want.times.length);
    for (const p of [50, 90, 95, 99]) {
      const exact = percentile(want.times, p);
      const estimate = histogramPercentile(new Map(row.histogram), p, { min, max });
      // Values below 1 ms add an absolute error of up to 0.5 ms to the relative bound.
      const bound = exact * HISTOGRAM_RELATIVE_ERROR + (want.times.some((time) => time < 1) ? 0.5 : 0);
      expect(Math.abs(estimate - exact), `${key} p${p}: ${estimate} against ${exact}`).toBeLessThanOrEqual(bound + 1e-9);
    }
  }
}

describe.each(engines)('what the check-results port keeps on $name', (engine) => {
  it('reads every shape back as stored: passing, failing and degraded API, TCP, DNS and multi-step runs, by range, by id and newest first', async () => {
    const [a, b] = await twoReplicas(engine);
    const makers = [
      (checkId: string, at: number, index: number) => runnerLikeResult(checkId, at, index % 5 === 3),
      (checkId: string, at: number, index: number) => ({ ...runnerLikeResult(checkId, at, false), isDegraded: index % 4 === 1 }),
      (checkId: string, at: number, index: number) => tcpResult(checkId, at, index % 6 === 2),
      (checkId: string, at: number) => dnsResult(checkId, at),
      (checkId: string, at: number, index: number) => multiStepResult(checkId, at, index % 7 === 4),
    ];
    for (const make of makers) {
      const checkId = randomUUID();
      const stored = await appendEach(a, Array.from({ length: 12 }, (_, index) => make(checkId, T0 + index * 10_000, index)));
      expect(await allResultsOf(b.checkResults, 'acct', checkId)).toEqual(stored);
      for (const result of stored) expect(await b.checkResults.find('acct', checkId, result.id)).toEqual(result);
      expect(await b.checkResults.newestFirst('acct', checkId, { limit: 100 })).toEqual([...stored].reverse());
    }
  });

  it("gives a run's tries ids derived from check and time, distinct within an instant, and the first try's id as the run's sequence id", async () => {
    const [a, b] = await twoReplicas(engine);
    const checkId = randomUUID();
    const attempt = { ...runnerLikeResult(checkId, T0, true), resultType: 'ATTEMPT', sequenceId: 'runner-sequence' };
    const final = { ...runnerLikeResult(checkId, T0, false), attempts: 1, sequenceId: 'runner-sequence' };
    const [storedAttempt, storedFinal] = await a.checkResults.appendRun('acct', [attempt, final]);
    expect(parseDerivedId(checkId, storedAttempt!.id)).toEqual({ createdMs: T0, k: 0 });
    expect(parseDerivedId(checkId, storedFinal!.id)).toEqual({ createdMs: T0, k: 1 });
    expect([storedAttempt!['sequenceId'], storedFinal!['sequenceId']]).toEqual([storedAttempt!.id, storedAttempt!.id]);
    expect(parseDerivedId(randomUUID(), storedFinal!.id)).toBeUndefined();
    expect(await b.checkResults.find('acct', checkId, storedFinal!.id)).toEqual(storedFinal);
    expect(await b.checkResults.appendKept('acct', storedFinal!)).toBe(false);
    expect(await allResultsOf(b.checkResults, 'acct', checkId)).toHaveLength(2);
  });

  it('keeps rollups per hour and per day and location that say what the FINAL results said: counts and sums exactly, percentiles within the histogram bound', async () => {
    const [a, b] = await twoReplicas(engine);
    const spread = spreadResults('check-1', 400);
    await a.transaction(async (tx) => {
      for (const result of spread) await tx.checkResults.appendKept('acct', result);
    });
    for (const [granularity, spanMs] of [['hourly', HOUR_MS], ['daily', DAY_MS]] as Array<[RollupGranularity, number]>) {
      expectRowsToMatch(await b.checkResults.rollups('acct', 'check-1', granularity, T0 - DAY_MS, T0 + 4 * DAY_MS), expectedRollups(spread, spanMs), spanMs);
    }
  });
});
