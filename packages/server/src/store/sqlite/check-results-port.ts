/**
 * The CheckResults port on SQLite, around the statements the running service uses (check-results.ts,
 * result-rows.ts, rollups.ts, result-pruning.ts's batched delete of old results): the same rows, the same
 * rollup upserts, the same pruning a batch of rows per statement (the step-17 trigger releases a pruned
 * row's reference). Raw results live in one table here, so `prepareDays` has nothing to do.
 */
import type { CheckResultDocument, CheckResults, DailyResultTotals, PrunedBefore, ResultCursor, ResultFacts, ResultFilter, ResultRetention, RolledUpResults, RollupGranularity } from '../ports.js';
import { checkDailyTotals, checkFactRange, checkPreparedDays, checkResultKey, checkResultPage, checkResultRun, checkResultWindowPage, checkRetention, checkRollupRange, pruneCutoffs, rolledUpOf } from '../port-rules.js';
import { reducePassing } from '../formats/result-codec.js';
import { RowFacts } from '../formats/result-facts.js';
import { asStored, columnKey, idOfRow, locationOfRow, rollupFactOf, storeRunTries, type Locations } from '../formats/result-row-codec.js';
import { committed, type BatchedSqlite } from './batched.js';
import { ResultRangeTable, ResultSeriesTable, type FactTuple } from './check-results.js';
import { ResultRows } from './result-rows.js';
import { RollupTotalsTable } from './rollup-totals.js';
import { RollupTable, spanOf } from './rollups.js';
import { ResultPruningTable } from './result-pruning.js';

/** Rows deleted per statement when pruning, so writers wait for one short batch at most. */
const PRUNE_BATCH = 500;

/** Whether a row meets the filter's conditions other than its window (which the statements apply): no document decoded. */
function meets(filter: ResultFilter, final: number, hasFailures: number, encoding: number, runLocation: string, locations: Locations): boolean {
  return (
    (filter.resultType === undefined || (final === 1) === (filter.resultType === 'FINAL')) &&
    (filter.hasFailures === undefined || (hasFailures === 1) === filter.hasFailures) &&
    (filter.location === undefined || locationOfRow(encoding, runLocation, locations) === filter.location)
  );
}

export class SqliteCheckResults implements CheckResults {
  readonly #store: BatchedSqlite;
  readonly #series: ResultSeriesTable;
  readonly #rows: ResultRows;
  readonly #ranges: ResultRangeTable;
  readonly #rollups: RollupTable;
  readonly #totals: RollupTotalsTable;
  readonly #pruning: ResultPruningTable;

  constructor(store: BatchedSqlite, options: { referenceRows?: number } = {}) {
    this.#store = store;
    this.#series = new ResultSeriesTable(store.db);
    this.#rows = new ResultRows(store.db, options);
    this.#ranges = new ResultRangeTable(store.db);
    this.#rollups = new RollupTable(store.db);
    this.#totals = new RollupTotalsTable(store.db);
    this.#pruning = new ResultPruningTable(store.db, PRUNE_BATCH);
  }

  async prepareDays(fromMs: number, toMs: number): Promise<void> {
    checkPreparedDays(fromMs, toMs);
  }

  async appendRun(accountId: string, tries: readonly CheckResultDocument[]): Promise<CheckResultDocument[]> {
    checkResultRun(accountId, tries);
    const checkId = tries[0]!.checkId;
    const stored = await committed(this.#store, () =>
      storeRunTries(
        tries,
        (_tried, createdMs) => this.#rows.freeId(this.#series.find(accountId, checkId), checkId, createdMs),
        (stored) => {
          const series = this.#series.findOrAdd(accountId, checkId);
          if (!this.#rows.insert(series, reducePassing(stored) as CheckResultDocument)) return;
          if (stored['resultType'] !== 'ATTEMPT') this.#rollups.add(series, rollupFactOf(stored));
        },
      ),
    );
    return stored.map(asStored);
  }

  async appendKept(accountId: string, result: CheckResultDocument): Promise<boolean> {
    checkResultRun(accountId, [result]);
    return committed(this.#store, () => {
      const series = this.#series.findOrAdd(accountId, result.checkId);
      if (!this.#rows.insert(series, reducePassing(result) as CheckResultDocument)) return false;
      if (result['resultType'] !== 'ATTEMPT') this.#rollups.add(series, rollupFactOf(result));
      return true;
    });
  }

  async newestFirst(accountId: string, checkId: string, page: ResultFilter & { readonly limit: number; readonly offset?: number | undefined; readonly before?: ResultCursor | undefined }): Promise<CheckResultDocument[]> {
    checkResultPage(accountId, checkId, page);
    const series = this.#series.find(accountId, checkId);
    if (series === undefined) return [];
    const before = page.before ?? { createdMs: Number.MAX_SAFE_INTEGER, id: '' };
    const locations = this.#rows.locations();
    const found: CheckResultDocument[] = [];
    let toSkip = page.offset ?? 0;
    const fromMs = page.fromMs ?? Number.MIN_SAFE_INTEGER;
    const toMs = page.toMs ?? Number.MAX_SAFE_INTEGER;
    const beforeKey = columnKey(checkId, before.id, before.createdMs);
    if (page.resultType === undefined && page.hasFailures === undefined && page.location === undefined) {
      // Every row in the window meets the filter: the statement skips and limits, so a deep page by
      // number (the dashboard's) steps over the rows before it without reading them into JavaScript.
      return this.#ranges.newestPage(series, fromMs, toMs, before.createdMs, beforeKey, page.limit, toSkip).map((row) => this.#rows.document(checkId, row, locations) as CheckResultDocument);
    }
    const rows = this.#ranges.newestFirst(series, fromMs, toMs, before.createdMs, beforeKey);
    // Read as iterated: the statement stops as soon as the page is full, however many rows the filter
    // or the offset skips, and a skipped row is never decoded.
    for (const row of rows) {
      if (!meets(page, row.final, row.has_failures, row.encoding, row.run_location, locations)) continue;
      if (toSkip > 0) {
        toSkip--;
        continue;
      }
      found.push(this.#rows.document(checkId, row, locations) as CheckResultDocument);
      if (found.length === page.limit) break;
    }
    return found;
  }

  async oldestFirst(accountId: string, checkId: string, query: ResultFilter & { readonly page: number; readonly limit: number }): Promise<{ items: CheckResultDocument[]; total: number }> {
    checkResultWindowPage(accountId, checkId, query);
    const series = this.#series.find(accountId, checkId);
    if (series === undefined) return { items: [], total: 0 };
    const locations = this.#rows.locations();
    // Filtered on the facts columns (an array per row); only the page's rows are read whole and decoded.
    const matching = this.#ranges
      .facts(series, query.fromMs ?? Number.MIN_SAFE_INTEGER, query.toMs ?? Number.MAX_SAFE_INTEGER)
      .filter((row) => meets(query, row[2], row[3], row[9], row[4], locations));
    // The statement orders by time only (ties too would cost a temporary b-tree per read): ids break ties here.
    const idOf = (row: FactTuple): string => idOfRow(checkId, row[0], row[1]);
    matching.sort((a, b) => a[1] - b[1] || (a[0] === b[0] ? 0 : idOf(a) < idOf(b) ? -1 : 1));
    const start = (query.page - 1) * query.limit;
    const items = matching.slice(start, start + query.limit).map((row) => this.#rows.document(checkId, this.#rows.atKey(series, row[1], row[0])!, locations) as CheckResultDocument);
    return { items, total: matching.length };
  }

  async find(accountId: string, checkId: string, id: string): Promise<CheckResultDocument | undefined> {
    checkResultKey(accountId, checkId, id);
    const series = this.#series.find(accountId, checkId);
    const row = series === undefined ? undefined : this.#rows.find(series, checkId, id);
    return row && (this.#rows.document(checkId, row, this.#rows.locations()) as CheckResultDocument);
  }

  async facts(accountId: string, checkId: string, fromMs: number, toMs: number): Promise<ResultFacts[]> {
    checkFactRange(accountId, checkId, fromMs, toMs);
    const series = this.#series.find(accountId, checkId);
    if (series === undefined) return [];
    const locations = this.#rows.locations();
    return this.#ranges.facts(series, fromMs, toMs).map((row) => new RowFacts(checkId, row, locations));
  }

  async rollups(accountId: string, checkId: string, granularity: RollupGranularity, fromMs: number, toMs: number): Promise<RolledUpResults[]> {
    checkRollupRange(accountId, checkId, granularity, fromMs, toMs);
    const series = this.#series.find(accountId, checkId);
    if (series === undefined) return [];
    return this.#rollups.rows(series, granularity, fromMs, toMs).map((row) => rolledUpOf(row, spanOf(granularity)));
  }

  async dailyTotals(accountId: string, checkIds: readonly string[], fromMs: number, toMs: number): Promise<Map<string, DailyResultTotals[]>> {
    checkDailyTotals(accountId, checkIds, fromMs, toMs);
    return this.#totals.dailyTotals(accountId, checkIds, fromMs, toMs);
  }

  async prune(nowMs: number, retention: ResultRetention): Promise<PrunedBefore> {
    checkRetention(nowMs, retention);
    const cutoffs = pruneCutoffs(nowMs, retention);
    // Each batch its own short transaction, so writers wait for one batch at most.
    while ((await committed(this.#store, () => this.#pruning.pruneResultsBatch(cutoffs.rawMs))) > 0);
    await committed(this.#store, () => this.#rollups.advanceHorizon('raw', cutoffs.rawMs));
    for (const granularity of ['hourly', 'daily'] as const) {
      const cutoff = cutoffs[`${granularity}Ms`];
      while ((await committed(this.#store, () => this.#rollups.pruneBatch(granularity, cutoff))) > 0);
      await committed(this.#store, () => this.#rollups.advanceHorizon(granularity, cutoff));
    }
    return this.horizons() as Promise<PrunedBefore>;
  }

  async horizons(): Promise<{ raw?: number; hourly?: number; daily?: number }> {
    const horizons: { raw?: number; hourly?: number; daily?: number } = {};
    for (const name of ['raw', 'hourly', 'daily'] as const) {
      const before = this.#rollups.horizon(name);
      if (before !== undefined) horizons[name] = before;
    }
    return horizons;
  }
}
