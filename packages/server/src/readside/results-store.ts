/**
 * Storage of check results, heartbeat events and the error groups derived from results. Recording a
 * result folds its errors into the check's error groups in the same transaction, so the groups are
 * always exactly what the stored results say.
 *
 * A result is one compact row (result-rows.ts): the facts filters and analytics need as columns,
 * the rest of the document as a delta from a reference result of its check (passing) or deflated
 * (failing). Lists filter and page on the columns and decode only the documents they return;
 * analytics never decodes one. The statements are the engine's (store/sqlite/check-results.ts,
 * error-groups.ts, heartbeats.ts).
 */
import type { SqliteDatabase } from '../store/index.js';
import { ResultRangeTable, ResultSeriesTable, type FactRow } from '../store/sqlite/check-results.js';
import { ErrorGroupTable, foldError } from '../store/sqlite/error-groups.js';
import { HeartbeatEventTable } from '../store/sqlite/heartbeats.js';
import { errorMessagesOf } from './error-groups.js';
import type { HeartbeatEvent } from './heartbeats.js';
import { boundResult } from './result-bounds.js';
import { reducePassing } from '../store/formats/result-codec.js';
import { RowFacts } from '../store/formats/result-facts.js';
import type { RawResult, ResultFacts } from './result-facts.js';
import { storeRunTries } from '../store/formats/result-row-codec.js';
import { columnKey, ResultRows, type FactTuple, type Locations } from './result-rows.js';
import { RollupsStore, type Horizons, type RollupFact, type RollupGranularity, type RollupRow } from './rollups-store.js';

/** A stored check result: the wire document (shape in @vigil/schema) with the fields we index. */
export type StoredResult = RawResult & Record<string, unknown>;

/** Step 14's ENCODING_V1 writer; the read side's tests and benchmarks build older databases with it. */
export { compactResultRow } from '../store/sqlite/check-results.js';

/** A result as the facts columns give it, with its document decoded only when asked for. */
export interface ResultEntry {
  facts: ResultFacts;
  document(): StoredResult;
}

function factsOfRow(checkId: string, row: FactRow, locations: Locations): ResultFacts {
  const tuple: FactTuple = [row.id, row.created_ms, row.final, row.has_failures, row.run_location, row.attempts, row.response_time, row.status_code, row.phases, row.encoding];
  return new RowFacts(checkId, tuple, locations);
}

/** What a FINAL result adds to its rollups: the same facts its compact row keeps, and whether it was degraded. */
function rollupFactOf(createdMs: number, result: StoredResult): RollupFact {
  return {
    createdMs,
    location: result.runLocation,
    failed: result.hasFailures,
    degraded: result['isDegraded'] === true,
    attempts: result.attempts ?? 0,
    responseTime: typeof result.responseTime === 'number' ? result.responseTime : null,
  };
}

export class ResultsStore {
  readonly #db: SqliteDatabase;
  readonly #rollups: RollupsStore;
  readonly #rows: ResultRows;
  readonly #series: ResultSeriesTable;
  readonly #ranges: ResultRangeTable;
  readonly #events: HeartbeatEventTable;
  readonly #errorGroups: ErrorGroupTable;

  /** `options.referenceRows`: how many rows a reference result serves (result-rows.ts; tests make it small). */
  constructor(db: SqliteDatabase, rollups = new RollupsStore(db), options: { referenceRows?: number } = {}) {
    this.#db = db;
    this.#rollups = rollups;
    this.#rows = new ResultRows(db, options);
    this.#series = new ResultSeriesTable(db);
    this.#ranges = new ResultRangeTable(db);
    this.#events = new HeartbeatEventTable(db);
    this.#errorGroups = new ErrorGroupTable(db);
  }

  /**
   * Stores a result (a result id already stored is left alone, so loading a seed twice is harmless)
   * and folds its error messages into the check's error groups. Returns whether it was new. What is
   * stored (and folded) is bounded first: result-bounds.ts. A FINAL result is also added to its
   * hourly and daily rollups (rollups-store.ts), in the same transaction.
   */
  recordResult(accountId: string, unbounded: StoredResult): boolean {
    const result = boundResult(unbounded);
    return this.#db.transaction(() => {
      const createdMs = Date.parse(result.created_at);
      if (!this.#rows.insert(this.#series.findOrAdd(accountId, result.checkId), reducePassing(result) as StoredResult)) return false;
      if (result.resultType !== 'ATTEMPT') this.#rollups.record(accountId, result.checkId, rollupFactOf(createdMs, result));
      for (const message of errorMessagesOf(result)) {
        foldError(this.#errorGroups, accountId, { checkId: result.checkId, message, at: createdMs });
      }
      return true;
    })();
  }

  /**
   * Stores the tries of one run (ATTEMPT results, then the FINAL one) under ids the store derives
   * (result-ids.ts): each try's id becomes the derived id of its check and `created_at`, and the run's
   * `sequenceId`, shared by its tries, becomes the first try's id. The runner's ids are random, and a
   * random id costs its row 16 bytes and an index entry; a derived one costs nothing. Returns the
   * tries as stored, which is what alerts and the API must name. A try whose `created_at` is not a
   * time keeps the runner's ids.
   */
  recordRun(accountId: string, tries: readonly StoredResult[]): StoredResult[] {
    return this.#db.transaction(() =>
      storeRunTries(
        tries,
        (tried, createdMs) => this.#rows.freeId(this.#series.find(accountId, tried.checkId), tried.checkId, createdMs),
        (stored) => this.recordResult(accountId, stored),
      ),
    )();
  }

  /** A check's rollup rows of one granularity starting in `window` (rollups-store.ts `rowsOf`). */
  rollupRowsOf(accountId: string, checkId: string, granularity: RollupGranularity, window: { from: number; to: number }): RollupRow[] {
    return this.#rollups.rowsOf(this.#series.find(accountId, checkId), granularity, window);
  }

  /** How far back raw results and hourly rollups are complete (rollups-store.ts `Horizons`). */
  horizons(): Horizons {
    return this.#rollups.horizons();
  }

  /** A check's results created in `[fromMs, toMs)`, oldest first (ties by id). */
  resultsBetween(accountId: string, checkId: string, fromMs: number, toMs: number): StoredResult[] {
    const series = this.#series.find(accountId, checkId);
    if (series === undefined) return [];
    const locations = this.#rows.locations();
    return this.#ranges.documents(series, fromMs, toMs).map((row) => this.#rows.document(checkId, row, locations) as StoredResult);
  }

  /** The facts of a check's results created in `[fromMs, toMs)`, oldest first (ties in no particular order), without decoding a document. */
  factsBetween(accountId: string, checkId: string, fromMs: number, toMs: number): ResultFacts[] {
    const series = this.#series.find(accountId, checkId);
    if (series === undefined) return [];
    const locations = this.#rows.locations();
    return this.#ranges.facts(series, fromMs, toMs).map((row) => new RowFacts(checkId, row, locations));
  }

  /**
   * A check's results in `[fromMs, toMs)` strictly before `before` (by time, then id), newest first,
   * read lazily: a page stops reading as soon as it is full.
   */
  *newestFirst(accountId: string, checkId: string, fromMs: number, toMs: number, before: { createdMs: number; id: string }): Generator<ResultEntry> {
    const series = this.#series.find(accountId, checkId);
    if (series === undefined) return;
    const locations = this.#rows.locations();
    const position = columnKey(checkId, before.id, before.createdMs);
    const rows = this.#ranges.newestFirst(series, fromMs, toMs, before.createdMs, position);
    for (const row of rows) yield { facts: factsOfRow(checkId, row, locations), document: () => this.#rows.document(checkId, row, locations) as StoredResult };
  }

  /** One result of a check, or undefined. */
  result(accountId: string, checkId: string, id: string): StoredResult | undefined {
    const series = this.#series.find(accountId, checkId);
    const row = series === undefined ? undefined : this.#rows.find(series, checkId, id);
    return row ? (this.#rows.document(checkId, row, this.#rows.locations()) as StoredResult) : undefined;
  }

  /** Every stored result of a check, oldest first. */
  resultsOf(accountId: string, checkId: string): StoredResult[] {
    return this.resultsBetween(accountId, checkId, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  }

  /** Stores a heartbeat ping of a check (an id already stored is left alone); returns whether it was new. */
  recordHeartbeatEvent(accountId: string, checkId: string, event: HeartbeatEvent): boolean {
    return this.#events.add(accountId, event.id, checkId, Date.parse(event.timestamp), JSON.stringify(event));
  }
}
