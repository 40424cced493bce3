/** The SQLite engine's compact result rows (check-results.ts, result-rows.ts), written and read through the check-results port. */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { allResultsOf } from '../../result-test-support.js';
import type { CheckResultDocument as StoredResult } from '../result-ports.js';
import { sqlitePorts } from './index.js';
import { migrateSqlite, stepNumberOf } from './migrations/index.js';
import { useMemoryStores } from './test-store.js';

const openStore = useMemoryStores();

/** The check-results port on a fresh in-memory store. */
function openResults() {
  return sqlitePorts(openStore()).checkResults;
}

const T0 = Date.parse('2026-11-24T08:00:00.000Z');

/** An API result as the runner makes it. */
function apiResult(overrides: Partial<StoredResult> & { checkId: string }, at = T0): StoredResult & Record<string, unknown> {
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

describe('compact result rows on SQLite, through the check-results port', () => {
  it('reads a failing result back exactly as recorded, keys in the same order', async () => {
    const results = openResults();
    const failing = apiResult({ checkId: randomUUID(), hasFailures: true, hasErrors: true });
    await results.appendKept('acct', failing);
    expect(JSON.stringify((await results.find('acct', failing.checkId, failing.id)))).toBe(JSON.stringify(failing));
  });

  it('keeps ids that are not UUIDs and times that are not in ISO millisecond form as they were', async () => {
    const results = openResults();
    const odd = apiResult({ id: 'seed-result-1', checkId: 'seed-check', created_at: '2026-11-24T08:00:00Z', hasFailures: true });
    await results.appendKept('acct', odd);
    expect(JSON.stringify((await allResultsOf(results, 'acct', 'seed-check')))).toBe(JSON.stringify([odd]));
  });

  it("stores a passing run without the target's response body and headers, everything else intact", async () => {
    const results = openResults();
    const passing = apiResult({ checkId: randomUUID() });
    await results.appendKept('acct', passing);
    const response = (passing.apiCheckResult as { response: Record<string, unknown> }).response;
    const expected = { ...passing, apiCheckResult: { ...(passing.apiCheckResult as object), response: { ...response, body: '', headers: {} } } };
    expect(JSON.stringify((await results.find('acct', passing.checkId, passing.id)))).toBe(JSON.stringify(expected));
  });

  it('keeps the body and headers of a degraded run', async () => {
    const results = openResults();
    const degraded = apiResult({ checkId: randomUUID(), isDegraded: true });
    await results.appendKept('acct', degraded);
    expect((await results.find('acct', degraded.checkId, degraded.id))).toEqual(degraded);
  });

  it('gives analytics the facts from columns: type, location, failures, attempts, response time, status and finite timing phases', async () => {
    const results = openResults();
    const checkId = randomUUID();
    const attempt = apiResult({ checkId, resultType: 'ATTEMPT', hasFailures: true, attempts: 1, runLocation: 'us-east-1' }, T0);
    await results.appendKept('acct', attempt);
    const facts = (await results.facts('acct', checkId, T0, T0 + 1)).map((fact) => ({ ...fact, id: fact.id, timingPhases: fact.timingPhases }));
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

  it("never shows one tenant another's results for the same check id", async () => {
    const results = openResults();
    const checkId = randomUUID();
    const mine = apiResult({ checkId });
    await results.appendKept('mine', mine);
    expect(await results.facts('theirs', checkId, 0, Number.MAX_SAFE_INTEGER)).toEqual([]);
    expect((await results.find('theirs', checkId, mine.id))).toBeUndefined();
    expect(await results.newestFirst('theirs', checkId, { limit: 10 })).toEqual([]);
  });

  it('walks newest first from a position, ties by id', async () => {
    const results = openResults();
    const checkId = randomUUID();
    const recorded = [0, 1000, 1000, 2000].map((offset) => apiResult({ checkId, hasFailures: true }, T0 + offset));
    for (const result of recorded) await results.appendKept('acct', result);
    const all = await results.newestFirst('acct', checkId, { limit: 10 });
    const tied = recorded.slice(1, 3).map((result) => result.id).sort().reverse();
    expect(all.map((result) => result.id)).toEqual([recorded[3]!.id, ...tied, recorded[0]!.id]);
    const after = await results.newestFirst('acct', checkId, { limit: 10, before: { createdMs: T0 + 1000, id: tied[0]! } });
    expect(after).toEqual([recorded.find((result) => result.id === tied[1])!, recorded[0]!]);
  });

  it('stores a passing API result in at most 500 bytes of table and index pages', async () => {
    const store = openStore();
    const checks = Array.from({ length: 20 }, () => randomUUID());
    await sqlitePorts(store).transaction(async (tx) => {
      for (let slot = 0; slot < 100; slot++) for (const checkId of checks) await tx.checkResults.appendKept('local', apiResult({ checkId }, T0 + slot * 60_000));
    });
    const { bytes } = store.db.prepare("SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name LIKE 'check_results%'").get() as { bytes: number };
    expect(bytes / 2000).toBeLessThanOrEqual(500);
  });
});

describe('readside migration 5', () => {
  it('carries the JSON rows of an older database over to compact rows that read back the same', async () => {
    const store = openStore({ through: stepNumberOf({ scope: 'readside', version: 4 }) });
    const checkId = randomUUID();
    const old = [apiResult({ checkId }, T0), apiResult({ checkId, hasFailures: true }, T0 + 60_000), apiResult({ id: 'seeded', checkId, created_at: '2026-11-24T08:02:00Z' })];
    const insert = store.db.prepare('INSERT INTO check_results (account_id, id, check_id, created_ms, doc) VALUES (?, ?, ?, ?, ?)');
    for (const result of old) insert.run('acct', result.id, checkId, Date.parse(result.created_at), JSON.stringify(result));
    migrateSqlite(store.db); // the steps after, as the next start runs them
    const results = sqlitePorts(store).checkResults;
    // Carried over as they were: the passing run keeps its body and headers.
    expect(JSON.stringify(await allResultsOf(results, 'acct', checkId))).toBe(JSON.stringify(old));
    expect((await results.facts('acct', checkId, T0, T0 + 60_001)).map((facts) => facts.hasFailures)).toEqual([false, true]);
  });
});
