import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../store/index.js';
import { readSideOf } from './context.js';
import type { StoredResult } from './results-store.js';
import { migrateSqlite, stepNumberOf } from '../store/sqlite/migrations/index.js';

const stores: Store[] = [];
afterEach(() => stores.splice(0).forEach((store) => store.close()));

function openStore(): Store {
  const store = new Store(':memory:');
  stores.push(store);
  return store;
}

const T0 = Date.parse('2026-11-24T08:00:00.000Z');

/** An API result as the runner makes it. */
function apiResult(overrides: Partial<StoredResult> & { checkId: string }, at = T0): StoredResult {
  const passing = overrides.hasFailures !== true;
  return {
    id: randomUUID(),
    name: 'Shop API',
    hasFailures: false,
    hasErrors: false,
    isDegraded: false,
    overMaxResponseTime: false,
    runLocation: 'eu-west-1',
    startedAt: new Date(at - 46).toISOString(),
    stoppedAt: new Date(at).toISOString(),
    created_at: new Date(at).toISOString(),
    responseTime: 46,
    apiCheckResult: {
      assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', property: '', target: '200', regex: null, actual: passing ? 200 : 500, passed: passing, error: null }],
      request: { method: 'GET', url: 'http://127.0.0.1:37331/health', data: '', headers: {}, params: {} },
      response: {
        status: passing ? 200 : 500,
        statusText: passing ? 'OK' : 'Internal Server Error',
        body: passing ? '{"status":"up"}' : '{"error":"database down"}',
        bodyTruncated: false,
        headers: { 'content-type': 'application/json', date: new Date(at).toUTCString(), connection: 'keep-alive' },
        timings: { socket: 2.21, lookup: 0, connect: 15.58, response: 44.41, end: 46.04 },
        timingPhases: { wait: 2.21, dns: 0, tcp: 13.37, firstByte: 28.83, download: 1.63, total: 46.15 },
      },
      requestError: null,
      jobLog: { setup: [], request: [{ time: at - 46, level: 'INFO', msg: 'GET http://127.0.0.1:37331/health' }], teardown: [] },
      jobAssets: null,
    },
    browserCheckResult: null,
    multiStepCheckResult: null,
    checkRunId: Math.floor(at / 1000),
    attempts: 0,
    resultType: 'FINAL',
    sequenceId: randomUUID(),
    error: passing ? null : 'Expected status code 200, got 500',
    ...overrides,
  };
}

describe('ResultsStore compact rows', () => {
  it('reads a failing result back exactly as recorded, keys in the same order', () => {
    const { results } = readSideOf(openStore());
    const failing = apiResult({ checkId: randomUUID(), hasFailures: true, hasErrors: true });
    results.recordResult('acct', failing);
    expect(JSON.stringify(results.result('acct', failing.checkId, failing.id))).toBe(JSON.stringify(failing));
  });

  it('keeps ids that are not UUIDs and times that are not in ISO millisecond form as they were', () => {
    const { results } = readSideOf(openStore());
    const odd = apiResult({ id: 'seed-result-1', checkId: 'seed-check', created_at: '2026-11-24T08:00:00Z', hasFailures: true });
    results.recordResult('acct', odd);
    expect(JSON.stringify(results.resultsOf('acct', 'seed-check'))).toBe(JSON.stringify([odd]));
  });

  it("stores a passing run without the target's response body and headers, everything else intact", () => {
    const { results } = readSideOf(openStore());
    const passing = apiResult({ checkId: randomUUID() });
    results.recordResult('acct', passing);
    const response = (passing.apiCheckResult as { response: Record<string, unknown> }).response;
    const expected = { ...passing, apiCheckResult: { ...(passing.apiCheckResult as object), response: { ...response, body: '', headers: {} } } };
    expect(JSON.stringify(results.result('acct', passing.checkId, passing.id))).toBe(JSON.stringify(expected));
  });

  it('keeps the body and headers of a degraded run', () => {
    const { results } = readSideOf(openStore());
    const degraded = apiResult({ checkId: randomUUID(), isDegraded: true });
    results.recordResult('acct', degraded);
    expect(results.result('acct', degraded.checkId, degraded.id)).toEqual(degraded);
  });

  it('gives analytics the facts from columns: type, location, failures, attempts, response time, status and finite timing phases', () => {
    const { results } = readSideOf(openStore());
    const checkId = randomUUID();
    const attempt = apiResult({ checkId, resultType: 'ATTEMPT', hasFailures: true, attempts: 1, runLocation: 'us-east-1' }, T0);
    results.recordResult('acct', attempt);
    const facts = results.factsBetween('acct', checkId, T0, T0 + 1).map((fact) => ({ ...fact, id: fact.id, timingPhases: fact.timingPhases }));
    expect(facts).toEqual([
      {
        id: attempt.id,
        checkId,
        createdAt: T0,
        resultType: 'ATTEMPT',
        runLocation: 'us-east-1',
        hasFailures: true,
        attempts: 1,
        responseTime: 46,
        statusCode: 500,
        timingPhases: { wait: 2.21, dns: 0, tcp: 13.37, firstByte: 28.83, download: 1.63, total: 46.15 },
      },
    ]);
  });

  it("never shows one tenant another's results for the same check id", () => {
    const { results } = readSideOf(openStore());
    const checkId = randomUUID();
    const mine = apiResult({ checkId });
    results.recordResult('mine', mine);
    expect(results.factsBetween('theirs', checkId, 0, Number.MAX_SAFE_INTEGER)).toEqual([]);
    expect(results.result('theirs', checkId, mine.id)).toBeUndefined();
    expect([...results.newestFirst('theirs', checkId, 0, Number.MAX_SAFE_INTEGER, { createdMs: Number.MAX_SAFE_INTEGER, id: '' })]).toEqual([]);
  });

  it('walks newest first from a position, ties by id, decoding documents only when asked', () => {
    const { results } = readSideOf(openStore());
    const checkId = randomUUID();
    const recorded = [0, 1000, 1000, 2000].map((offset) => apiResult({ checkId, hasFailures: true }, T0 + offset));
    for (const result of recorded) results.recordResult('acct', result);
    const all = [...results.newestFirst('acct', checkId, 0, Number.MAX_SAFE_INTEGER, { createdMs: Number.MAX_SAFE_INTEGER, id: '' })];
    const tied = recorded.slice(1, 3).map((result) => result.id).sort().reverse();
    expect(all.map((entry) => entry.facts.id)).toEqual([recorded[3]!.id, ...tied, recorded[0]!.id]);
    const after = [...results.newestFirst('acct', checkId, 0, Number.MAX_SAFE_INTEGER, { createdMs: T0 + 1000, id: tied[0]! })];
    expect(after.map((entry) => entry.document())).toEqual([recorded.find((result) => result.id === tied[1])!, recorded[0]!]);
  });

  it('stores a passing API result in at most 500 bytes of table and index pages', () => {
    const store = openStore();
    const { results } = readSideOf(store);
    const checks = Array.from({ length: 20 }, () => randomUUID());
    store.transaction(() => {
      for (let slot = 0; slot < 100; slot++) for (const checkId of checks) results.recordResult('local', apiResult({ checkId }, T0 + slot * 60_000));
    });
    const { bytes } = store.db.prepare("SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name LIKE 'check_results%'").get() as { bytes: number };
    expect(bytes / 2000).toBeLessThanOrEqual(500);
  });
});

describe('readside migration 5', () => {
  it('carries the JSON rows of an older database over to compact rows that read back the same', () => {
    const store = new Store(':memory:', { through: stepNumberOf({ scope: 'readside', version: 4 }) });
    stores.push(store);
    const checkId = randomUUID();
    const old = [apiResult({ checkId }, T0), apiResult({ checkId, hasFailures: true }, T0 + 60_000), apiResult({ id: 'seeded', checkId, created_at: '2026-11-24T08:02:00Z' })];
    const insert = store.db.prepare('INSERT INTO check_results (account_id, id, check_id, created_ms, doc) VALUES (?, ?, ?, ?, ?)');
    for (const result of old) insert.run('acct', result.id, checkId, Date.parse(result.created_at), JSON.stringify(result));
    migrateSqlite(store.db); // the steps after, as the next start runs them
    const { results } = readSideOf(store);
    // Carried over as they were: the passing run keeps its body and headers.
    expect(JSON.stringify(results.resultsOf('acct', checkId))).toBe(JSON.stringify(old));
    expect(results.factsBetween('acct', checkId, T0, T0 + 60_001).map((facts) => facts.hasFailures)).toEqual([false, true]);
  });
});
