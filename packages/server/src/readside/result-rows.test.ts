import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runnerLikeResult } from '../../../../test/bench/suites/analytics.js';
import type { Store } from '../store/index.js';
import { allResultsOf } from '../result-test-support.js';
import { deflateDocument, reducePassing } from '../store/formats/result-codec.js';
import { parseDerivedId } from './result-ids.js';
import { ResultRows } from './result-rows.js';
import { compactResultRow, type StoredResult } from './results-store.js';
import type { CheckResultDocument } from '../store/result-ports.js';
import { SqliteCheckResults } from '../store/sqlite/check-results-port.js';
import { sqlitePorts } from '../store/sqlite/index.js';
import { migrateSqlite, stepNumberOf } from '../store/sqlite/migrations/index.js';
import { ResultPruningTable } from '../store/sqlite/result-pruning.js';
import { useMemoryStores } from '../store/sqlite/test-store.js';

const openStore = useMemoryStores();

/** The check-results port on SQLite, its references serving `referenceRows` rows (the service's serve 1,000). */
function resultsWith(store: Store, referenceRows: number): SqliteCheckResults {
  return new SqliteCheckResults(store, { referenceRows });
}

const T0 = Date.parse('2026-11-24T08:00:00.000Z');

/** A TCP result as the runner makes it: the API result shape with a socket request and response. */
function tcpResult(checkId: string, at: number, failing = false): StoredResult {
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

function dnsResult(checkId: string, at: number): StoredResult {
  return {
    id: randomUUID(), name: 'DNS', checkId, hasFailures: false, hasErrors: false, isDegraded: false, overMaxResponseTime: false,
    runLocation: 'us-east-1', startedAt: new Date(at - 12).toISOString(), stoppedAt: new Date(at).toISOString(), created_at: new Date(at).toISOString(),
    responseTime: 12, apiCheckResult: null, browserCheckResult: null, multiStepCheckResult: null,
    dnsCheckResult: { query: { name: 'example.com', recordType: 'A', nameServer: '1.1.1.1' }, response: { rcode: 'NOERROR', answers: [{ data: '93.184.216.34', ttl: 3600 - (at % 60) }] }, timingPhases: { total: 12 } },
    checkRunId: Math.floor(at / 1000), attempts: 0, resultType: 'FINAL', sequenceId: randomUUID(), error: null,
  };
}

function multiStepResult(checkId: string, at: number, failing = false): StoredResult {
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

/** Each result stored as a run of its own, one after another (references depend on the order): the runs as stored. */
async function appendEach(results: Pick<SqliteCheckResults, 'appendRun'>, runs: readonly StoredResult[]): Promise<CheckResultDocument[]> {
  const stored: CheckResultDocument[] = [];
  for (const run of runs) stored.push((await results.appendRun('acct', [run]))[0]!);
  return stored;
}

/** What reading a result back gives: the document as recorded, reduced as `reducePassing` documents. */
const asStored = (result: StoredResult) => JSON.stringify(reducePassing(result));

describe('result rows with derived ids and deltas from references, through the check-results port', () => {
  it('reads every shape back as recorded: passing, failing and degraded API, TCP, DNS and multi-step runs', async () => {
    const store = openStore();
    const results = sqlitePorts(store).checkResults;
    const makers = [
      (checkId: string, at: number, index: number) => runnerLikeResult(checkId, at, index % 5 === 3),
      (checkId: string, at: number, index: number) => ({ ...runnerLikeResult(checkId, at, false), isDegraded: index % 4 === 1 }),
      (checkId: string, at: number, index: number) => tcpResult(checkId, at, index % 6 === 2),
      (checkId: string, at: number) => dnsResult(checkId, at),
      (checkId: string, at: number, index: number) => multiStepResult(checkId, at, index % 7 === 4),
    ];
    for (const make of makers) {
      const checkId = randomUUID();
      const recorded = await appendEach(results, Array.from({ length: 12 }, (_, index) => make(checkId, T0 + index * 10_000, index)));
      expect((await allResultsOf(results, 'acct', checkId)).map((result) => JSON.stringify(result))).toEqual(recorded.map(asStored));
      for (const result of recorded) expect(JSON.stringify((await results.find('acct', checkId, result.id)))).toBe(asStored(result));
      const newest = await results.newestFirst('acct', checkId, { limit: 100 });
      expect(newest.map((result) => JSON.stringify(result))).toEqual(recorded.map(asStored).reverse());
      expect(newest.map((result) => [result.id, result.runLocation])).toEqual(recorded.map((result) => [result.id, result.runLocation]).reverse());
    }
  });

  it('gives a run derived ids, unique per check and instant, and the first try\'s id as the sequence id', async () => {
    const results = sqlitePorts(openStore()).checkResults;
    const checkId = randomUUID();
    const attempt = { ...runnerLikeResult(checkId, T0, true), resultType: 'ATTEMPT', sequenceId: 'runner-sequence' };
    const final = { ...runnerLikeResult(checkId, T0, false), attempts: 1, sequenceId: 'runner-sequence' };
    const [storedAttempt, storedFinal] = await results.appendRun('acct', [attempt, final]);
    expect(parseDerivedId(checkId, storedAttempt!.id)).toEqual({ createdMs: T0, k: 0 });
    expect(parseDerivedId(checkId, storedFinal!.id)).toEqual({ createdMs: T0, k: 1 });
    expect([storedAttempt!['sequenceId'], storedFinal!['sequenceId']]).toEqual([storedAttempt!.id, storedAttempt!.id]);
    expect(parseDerivedId(randomUUID(), storedFinal!.id)).toBeUndefined();
    expect(JSON.stringify((await results.find('acct', checkId, storedFinal!.id)))).toBe(asStored(storedFinal!));
    expect((await results.appendKept('acct', storedFinal!))).toBe(false);
    expect((await allResultsOf(results, 'acct', checkId))).toHaveLength(2);
  });

  it('reads a database holding ENCODING_V1 rows and new rows, by range and by id', async () => {
    const store = openStore({ through: stepNumberOf({ scope: 'readside', version: 7 }) });
    const checkId = randomUUID();
    const old = [runnerLikeResult(checkId, T0, false), runnerLikeResult(checkId, T0 + 10_000, true), { ...runnerLikeResult(checkId, T0 + 20_000, false), id: 'seeded-1' }];
    const insertV1 = compactResultRow(store.db);
    store.transaction(() => old.forEach((result) => insertV1('acct', reducePassing(result) as StoredResult)));
    migrateSqlite(store.db); // the steps after, as the next start runs them
    const results = sqlitePorts(store).checkResults;
    const recent = await appendEach(results, [30_000, 40_000, 50_000].map((offset, index) => runnerLikeResult(checkId, T0 + offset, index === 1)));
    expect(store.db.prepare('SELECT encoding, COUNT(*) AS n FROM check_results GROUP BY encoding ORDER BY encoding').all()).toEqual([{ encoding: 0, n: 3 }, { encoding: 1, n: 3 }]);
    expect((await allResultsOf(results, 'acct', checkId)).map((result) => JSON.stringify(result))).toEqual([...old, ...recent].map(asStored));
    for (const result of [...old, ...recent]) expect(JSON.stringify((await results.find('acct', checkId, result.id)))).toBe(asStored(result));
    expect((await results.appendKept('acct', old[0]!))).toBe(false);
    expect((await results.facts('acct', checkId, T0, T0 + 60_000)).map((facts) => [facts.id, facts.hasFailures, facts.runLocation])).toEqual(
      [...old, ...recent].map((result) => [result.id, result.hasFailures, result.runLocation]),
    );
  });

  it('still decodes every older row after its reference is replaced every few rows', async () => {
    const store = openStore();
    const results = resultsWith(store, 4);
    const checkId = randomUUID();
    const recorded = await appendEach(results, Array.from({ length: 23 }, (_, index) => runnerLikeResult(checkId, T0 + index * 10_000, index === 9)));
    const references = store.db.prepare('SELECT current, uses FROM check_results_references ORDER BY key').all();
    expect(references).toEqual([...Array.from({ length: 5 }, () => ({ current: 0, uses: 4 })), { current: 1, uses: 2 }]);
    expect((await allResultsOf(results, 'acct', checkId)).map((result) => JSON.stringify(result))).toEqual(recorded.map(asStored));
  });

  it('takes a new reference when a passing result has drifted far from the current one', async () => {
    const store = openStore();
    const results = resultsWith(store, 1000);
    const checkId = randomUUID();
    const moved = (at: number) => {
      const result = runnerLikeResult(checkId, at, false);
      const check = result.apiCheckResult as { request: Record<string, unknown> };
      check.request = { ...check.request, url: 'https://shop.example.com/api/v2/health?region=eu&verbose=true', headers: { accept: 'application/json', 'x-probe': 'vigil' } };
      return result;
    };
    const runs = [runnerLikeResult(checkId, T0, false), moved(T0 + 10_000), moved(T0 + 20_000)];
    const recorded = await appendEach(results, runs);
    expect(store.db.prepare('SELECT current, uses FROM check_results_references ORDER BY key').all()).toEqual([{ current: 0, uses: 1 }, { current: 1, uses: 2 }]);
    expect(store.db.prepare('SELECT length(body) FROM check_results ORDER BY created_ms').pluck().all().at(-1)).toBeLessThan(40);
    expect((await allResultsOf(results, 'acct', checkId)).map((result) => JSON.stringify(result))).toEqual(recorded.map(asStored));
  });

  it('never loses a reference a row still uses when old rows are pruned, and drops the ones no row uses', async () => {
    const store = openStore();
    const results = resultsWith(store, 4);
    const checkId = randomUUID();
    const recorded = await appendEach(results, Array.from({ length: 23 }, (_, index) => runnerLikeResult(checkId, T0 + index * 10_000, false)));
    // The scheduler's pruning statement, as it runs: batches by key of rows older than the cutoff.
    const pruning = new ResultPruningTable(store.db, 3);
    const prune = (cutoff: number) => {
      while (pruning.pruneResultsBatch(cutoff) > 0);
    };
    const cutoff = T0 + 10 * 10_000;
    prune(cutoff);
    // Rows 10..22 remain: they use references 3 (rows 8..11, partly pruned), 4, 5 and the current 6.
    expect(store.db.prepare('SELECT key, uses FROM check_results_references ORDER BY key').all()).toEqual([
      { key: 3, uses: 2 }, { key: 4, uses: 4 }, { key: 5, uses: 4 }, { key: 6, uses: 3 },
    ]);
    expect((await allResultsOf(results, 'acct', checkId)).map((result) => JSON.stringify(result))).toEqual(recorded.slice(10).map(asStored));
    prune(Number.MAX_SAFE_INTEGER);
    // The current reference stays for the rows to come, unused.
    expect(store.db.prepare('SELECT key, uses, current FROM check_results_references').all()).toEqual([{ key: 6, uses: 0, current: 1 }]);
    const next = (await results.appendRun('acct', [runnerLikeResult(checkId, T0 + 300_000, false)]))[0]!;
    expect(JSON.stringify((await results.find('acct', checkId, next.id)))).toBe(asStored(next));
  });

  it('stores a passing result in at most 94 bytes: half of what Uptime Kuma takes per result', async () => {
    // Growth of every table a result writes to (rows, time index, references, locations, series,
    // hourly and daily rollups: all of dbstat) between 1,000 and 2,000 results of one check every
    // 10 s, 99 % passing: what a result adds, without the first page every table and index has.
    const store = openStore();
    const ports = sqlitePorts(store);
    const checkId = randomUUID();
    const bytes = () => store.db.prepare('SELECT SUM(pgsize) FROM dbstat').pluck().get() as number;
    const record = (from: number) => ports.transaction(async (tx) => {
      for (let index = from; index < from + 1000; index++) await tx.checkResults.appendRun('local', [runnerLikeResult(checkId, T0 + index * 10_000, index % 100 === 7)]);
    });
    await record(0);
    const before = bytes();
    await record(1000);
    expect((bytes() - before) / 1000).toBeLessThanOrEqual(94);
  });
});

describe('ResultRows references kept in memory', () => {
  it('holds at most its bound of parsed references, and reads rows whose reference it let go', async () => {
    const store = openStore();
    const rows = new ResultRows(store.db, { referenceCacheEntries: 3 });
    const written: Array<{ series: number; checkId: string; id: string; doc: StoredResult }> = [];
    for (let round = 0; round < 2; round++) {
      for (let series = 1; series <= 10; series++) {
        const checkId = `00000000-0000-4000-8000-${String(series).padStart(12, '0')}`;
        const at = T0 + round * 10_000;
        const id = rows.freeId(series, checkId, at)!;
        const doc = { ...runnerLikeResult(checkId, at, false), id };
        expect(rows.insert(series, doc)).toBe(true);
        written.push({ series, checkId, id, doc });
        expect(rows.cachedReferences).toBeLessThanOrEqual(3);
      }
    }
    expect(store.db.prepare('SELECT COUNT(*) FROM check_results WHERE ref IS NOT NULL').pluck().get()).toBe(20);
    const locations = rows.locations();
    for (const { series, checkId, id, doc } of written) {
      expect(JSON.stringify(rows.document(checkId, rows.find(series, checkId, id)!, locations))).toBe(JSON.stringify(JSON.parse(JSON.stringify(doc))));
    }
    expect(rows.cachedReferences).toBe(3);
  });

  it('keeps a deflated reference in memory of its own size, not in a view on zlib\'s 16 KB output chunk', async () => {
    const deflated = deflateDocument(runnerLikeResult(randomUUID(), T0, false));
    expect(deflated.length).toBeLessThan(4096);
    expect(deflated.buffer.byteLength).toBe(deflated.length);
  });
});
