/**
 * SQLite's compact result rows (result-rows.ts) as the check-results port writes them: ENCODING_V1
 * rows of older databases beside newer ones, reference results replaced and released, what a result
 * costs on disk, the parsed references kept in memory, and the rollups step 15 back-fills. What every
 * engine keeps of a result is the contract suite's (store/contract/check-results-kept.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runnerLikeResult } from '../../../../../test/bench/suites/analytics.js';
import { allResultsOf } from '../../result-test-support.js';
import { deflateDocument, reducePassing } from '../formats/result-codec.js';
import type { CheckResultDocument, RolledUpResults } from '../result-ports.js';
import type { Store } from '../index.js';
import { compactResultRow } from './check-results.js';
import { SqliteCheckResults } from './check-results-port.js';
import { sqlitePorts } from './index.js';
import { migrateSqlite, stepNumberOf } from './migrations/index.js';
import { ResultPruningTable } from './result-pruning.js';
import { ResultRows } from './result-rows.js';
import { useMemoryStores } from './test-store.js';

const openStore = useMemoryStores();

/** The check-results port on SQLite, its references serving `referenceRows` rows (the service's serve 1,000). */
function resultsWith(store: Store, referenceRows: number): SqliteCheckResults {
  return new SqliteCheckResults(store, { referenceRows });
}

const T0 = Date.parse('2026-11-24T08:00:00.000Z');
const DAY_MS = 86_400_000;

/** Each result stored as a run of its own, one after another (references depend on the order): the runs as stored. */
async function appendEach(results: Pick<SqliteCheckResults, 'appendRun'>, runs: readonly CheckResultDocument[]): Promise<CheckResultDocument[]> {
  const stored: CheckResultDocument[] = [];
  for (const run of runs) stored.push((await results.appendRun('acct', [run]))[0]!);
  return stored;
}

/** What reading a result back gives: the document as recorded, reduced as `reducePassing` documents. */
const asStored = (result: CheckResultDocument) => JSON.stringify(reducePassing(result));

describe('result rows with deltas from references, through the check-results port', () => {
  it('reads a database holding ENCODING_V1 rows and new rows, by range and by id', async () => {
    const store = openStore({ through: stepNumberOf({ scope: 'readside', version: 7 }) });
    const checkId = randomUUID();
    const old = [runnerLikeResult(checkId, T0, false), runnerLikeResult(checkId, T0 + 10_000, true), { ...runnerLikeResult(checkId, T0 + 20_000, false), id: 'seeded-1' }];
    const insertV1 = compactResultRow(store.db);
    store.transaction(() => old.forEach((result) => insertV1('acct', reducePassing(result) as CheckResultDocument)));
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
    const written: Array<{ series: number; checkId: string; id: string; doc: CheckResultDocument }> = [];
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

describe('rollups of an older database', () => {
  /** Three days of results of one check, some failing, degraded, retried or ATTEMPTs. */
  const history = (checkId: string) =>
    Array.from({ length: 400 }, (_, index) => ({
      ...runnerLikeResult(checkId, T0 + index * 649_000, index % 11 === 3),
      isDegraded: index % 13 === 5,
      attempts: index % 5 === 0 ? 1 : 0,
      resultType: index % 7 === 0 ? 'ATTEMPT' : 'FINAL',
    }));
  const rowsOf = async (store: Store, checkId: string) => {
    const { checkResults } = sqlitePorts(store);
    return [...(await checkResults.rollups('acct', checkId, 'hourly', T0 - DAY_MS, T0 + 4 * DAY_MS)), ...(await checkResults.rollups('acct', checkId, 'daily', T0 - DAY_MS, T0 + 4 * DAY_MS))];
  };
  // Sums of floating-point response times depend on the order they were added in.
  const exactPart = ({ rtSum: _sum, rtSqSum: _sqSum, ...row }: RolledUpResults) => row;

  it('are back-filled by the migration from the raw results of a database that had none: the rows the port keeps for the same results', async () => {
    const checkId = randomUUID();
    const results = history(checkId);
    // The read side as it was before rollups: migrations 1..5, results written in compact rows only.
    const old = openStore({ through: stepNumberOf({ scope: 'readside', version: 5 }) });
    const insert = compactResultRow(old.db);
    old.transaction(() => results.forEach((result) => insert('acct', result)));
    expect(old.db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'result_rollups_hourly'").pluck().get()).toBe(0);
    migrateSqlite(old.db); // the steps after, as the next start runs them

    const current = openStore();
    await sqlitePorts(current).transaction(async (tx) => {
      for (const result of results) await tx.checkResults.appendKept('acct', result);
    });
    const [backFilled, kept] = [await rowsOf(old, checkId), await rowsOf(current, checkId)];
    expect(backFilled.length).toBeGreaterThan(72);
    expect(backFilled.map(exactPart)).toEqual(kept.map(exactPart));
    backFilled.forEach((row, index) => {
      expect(row.rtSum).toBeCloseTo(kept[index]!.rtSum, 6);
      expect(row.rtSqSum).toBeCloseTo(kept[index]!.rtSqSum, 3);
    });
  });
});
