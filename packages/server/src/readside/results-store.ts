/**
 * Storage of check results, heartbeat events and the error groups derived from results. Recording a
 * result folds its errors into the check's error groups in the same transaction, so the groups are
 * always exactly what the stored results say.
 *
 * A result is one compact row (result-rows.ts): the facts filters and analytics need as columns,
 * the rest of the document as a delta from a reference result of its check (passing) or deflated
 * (failing). Lists filter and page on the columns and decode only the documents they return;
 * analytics never decodes one.
 */
import { randomUUID } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import { PAGE_LIMIT, type SqliteDatabase } from '../store/index.js';
import { recordError, errorMessagesOf, applyArchivePatch, type ArchivePatch, type ErrorGroupState } from './error-groups.js';
import type { HeartbeatEvent } from './heartbeats.js';
import { boundResult } from './result-bounds.js';
import { encodeResult, ENCODING_V1, idKey, phasesColumnOf, reducePassing, responseOf, unpackPhases } from './result-codec.js';
import type { RawResult, ResultFacts } from './result-facts.js';
import { derivableTime } from './result-ids.js';
import { columnKey, idOfRow, locationOfRow, ResultRows, ROW_COLUMNS, type DocRow, type FactTuple, type Locations, type RowKey } from './result-rows.js';
import { RollupsStore, type Horizons, type RollupFact, type RollupGranularity, type RollupRow } from './rollups-store.js';

/** A stored check result: the wire document (shape in @vigil/schema) with the fields we index. */
export type StoredResult = RawResult & Record<string, unknown>;


interface FactRow extends DocRow {
  final: number;
  has_failures: number;
  attempts: number;
  response_time: number | null;
  status_code: number | null;
}

/** A result as the facts columns give it, with its document decoded only when asked for. */
export interface ResultEntry {
  facts: ResultFacts;
  document(): StoredResult;
}

/**
 * Facts of one row. The id and the timing phases are worked out on first use: a day of analytics
 * reads thousands of rows and usually needs neither (ids only break ties, phases only for phase
 * metrics).
 */
class RowFacts implements ResultFacts {
  readonly checkId: string;
  readonly createdAt: number;
  readonly resultType: ResultFacts['resultType'];
  readonly runLocation: string;
  readonly hasFailures: boolean;
  readonly attempts: number;
  readonly responseTime: number | null;
  readonly statusCode: number | null;
  readonly #idKey: RowKey;
  readonly #phases: Buffer | string | null;
  #id: string | undefined;
  #timingPhases: Record<string, number> | undefined;

  /** `row`: the ROW_COLUMNS in their order (the statement's raw mode: no object per row). */
  constructor(checkId: string, row: FactTuple, locations: Locations) {
    this.checkId = checkId;
    this.#idKey = row[0];
    this.createdAt = row[1];
    this.resultType = row[2] === 1 ? 'FINAL' : 'ATTEMPT';
    this.hasFailures = row[3] === 1;
    this.runLocation = locationOfRow(row[9], row[4], locations);
    this.attempts = row[5];
    this.responseTime = row[6];
    this.statusCode = row[7];
    this.#phases = row[8];
  }

  get id(): string {
    return (this.#id ??= idOfRow(this.checkId, this.#idKey, this.createdAt));
  }

  get timingPhases(): Readonly<Record<string, number>> {
    return (this.#timingPhases ??= finitePhases(this.#phases));
  }
}

/** The finite numbers of a phases column (either form); the parsed object itself when all of it is (the usual case). */
function finitePhases(column: Buffer | string | null): Record<string, number> {
  const phases = unpackPhases(column);
  if (phases === null || typeof phases !== 'object' || Array.isArray(phases)) return {};
  const parsed = phases as Record<string, unknown>;
  let clean = true;
  for (const name in parsed) {
    const value = parsed[name];
    if (typeof value !== 'number' || !Number.isFinite(value)) clean = false;
  }
  if (clean) return parsed as Record<string, number>;
  const timingPhases: Record<string, number> = {};
  for (const [name, value] of Object.entries(parsed)) if (typeof value === 'number' && Number.isFinite(value)) timingPhases[name] = value;
  return timingPhases;
}

function factsOfRow(checkId: string, row: FactRow, locations: Locations): ResultFacts {
  const tuple: FactTuple = [row.id, row.created_ms, row.final, row.has_failures, row.run_location, row.attempts, row.response_time, row.status_code, row.phases, row.encoding];
  return new RowFacts(checkId, tuple, locations);
}

/**
 * The ENCODING_V1 insert of one compact row, creating the (account, check) series on first use:
 * step 14 of store/sqlite/migrations/ carries older databases over with it (before step 17 exists,
 * so rows of that time are all of one form). The store writes result-rows.ts rows. Returns whether the row was new.
 */
export function compactResultRow(db: SqliteDatabase): (accountId: string, result: StoredResult) => boolean {
  const seriesOf = seriesLookup(db, true);
  const insert = db.prepare(
    'INSERT OR IGNORE INTO check_results (series, created_ms, id, final, has_failures, run_location, attempts, response_time, status_code, phases, encoding, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  return (accountId, result) => {
    const createdMs = Date.parse(result.created_at);
    const phases = phasesColumnOf(result);
    const status = responseOf(result)?.['status'];
    return (
      insert.run(
        seriesOf(accountId, result.checkId),
        createdMs,
        idKey(result.id),
        result.resultType === 'ATTEMPT' ? 0 : 1,
        result.hasFailures ? 1 : 0,
        result.runLocation,
        result.attempts ?? 0,
        typeof result.responseTime === 'number' ? result.responseTime : null,
        typeof status === 'number' ? status : null,
        phases,
        ENCODING_V1,
        encodeResult(result, { id: result.id, checkId: result.checkId, createdMs, phases }),
      ).changes > 0
    );
  };
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

function seriesLookup(db: SqliteDatabase, create: true): (accountId: string, checkId: string) => number;
function seriesLookup(db: SqliteDatabase, create: false): (accountId: string, checkId: string) => number | undefined;
function seriesLookup(db: SqliteDatabase, create: boolean): (accountId: string, checkId: string) => number | undefined {
  const find = db.prepare('SELECT key FROM result_series WHERE account_id = ? AND check_id = ?').pluck();
  const add = db.prepare('INSERT INTO result_series (account_id, check_id) VALUES (?, ?)');
  return (accountId, checkId) => {
    const key = find.get(accountId, checkId) as number | undefined;
    if (key !== undefined || !create) return key;
    return Number(add.run(accountId, checkId).lastInsertRowid);
  };
}

export class ResultsStore {
  readonly #db: SqliteDatabase;
  readonly #rollups: RollupsStore;
  readonly #rows: ResultRows;
  readonly #seriesFor: (accountId: string, checkId: string) => number;
  readonly #seriesOf: (accountId: string, checkId: string) => number | undefined;
  readonly #factsInRange: Statement;
  readonly #docsInRange: Statement;
  readonly #newestFirst: Statement;
  readonly #insertEvent: Statement;
  readonly #eventsOfCheck: Statement;
  readonly #groupByHash: Statement;
  readonly #groupById: Statement;
  readonly #insertGroup: Statement;
  readonly #updateGroup: Statement;
  readonly #groupsOfCheck: Statement;
  readonly #countGroupsOfCheck: Statement;

  /** `options.referenceRows`: how many rows a reference result serves (result-rows.ts; tests make it small). */
  constructor(db: SqliteDatabase, rollups = new RollupsStore(db), options: { referenceRows?: number } = {}) {
    this.#db = db;
    this.#rollups = rollups;
    this.#rows = new ResultRows(db, options);
    this.#seriesFor = seriesLookup(db, true);
    this.#seriesOf = seriesLookup(db, false);
    // Ties by id: as text for the ids the API hands out, which is what a UUID's bytes sort as too, and
    // what the discriminators of derived ids of one instant sort as (a derived id's column is an
    // integer, which SQLite sorts before any other id: a tie between the two kinds, a result stored
    // by the service and one imported in the same millisecond, is ordered that way).
    // Facts come in index order only (ties as stored): their readers order ties themselves, and
    // sorting a day of rows by id too would cost a temporary b-tree per query.
    const docColumns = `${ROW_COLUMNS}, ref, body`;
    this.#factsInRange = db.prepare(
      `SELECT ${ROW_COLUMNS} FROM check_results WHERE series = ? AND created_ms >= ? AND created_ms < ? ORDER BY created_ms`,
    ).raw(true);
    this.#docsInRange = db.prepare(
      `SELECT ${docColumns} FROM check_results WHERE series = ? AND created_ms >= ? AND created_ms < ? ORDER BY created_ms, id`,
    );
    this.#newestFirst = db.prepare(
      `SELECT ${docColumns} FROM check_results
        WHERE series = ? AND created_ms >= ? AND created_ms < ? AND (created_ms < ? OR (created_ms = ? AND id < ?))
        ORDER BY created_ms DESC, id DESC`,
    );
    this.#insertEvent = db.prepare(
      'INSERT OR IGNORE INTO heartbeat_events (account_id, id, check_id, at_ms, doc) VALUES (?, ?, ?, ?, ?)',
    );
    this.#eventsOfCheck = db.prepare('SELECT doc FROM heartbeat_events WHERE account_id = ? AND check_id = ? ORDER BY at_ms, id');
    this.#groupByHash = db.prepare('SELECT state FROM error_groups WHERE account_id = ? AND check_id = ? AND error_hash = ?');
    this.#groupById = db.prepare('SELECT state FROM error_groups WHERE account_id = ? AND id = ?');
    this.#insertGroup = db.prepare('INSERT INTO error_groups (account_id, id, check_id, error_hash, state) VALUES (?, ?, ?, ?, ?)');
    this.#updateGroup = db.prepare('UPDATE error_groups SET state = ? WHERE account_id = ? AND id = ?');
    this.#groupsOfCheck = db.prepare(`SELECT state FROM error_groups WHERE account_id = ? AND check_id = ? ORDER BY seq ${PAGE_LIMIT}`);
    this.#countGroupsOfCheck = db.prepare('SELECT COUNT(*) AS total FROM error_groups WHERE account_id = ? AND check_id = ?');
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
      if (!this.#rows.insert(this.#seriesFor(accountId, result.checkId), reducePassing(result) as StoredResult)) return false;
      if (result.resultType !== 'ATTEMPT') this.#rollups.record(accountId, result.checkId, rollupFactOf(createdMs, result));
      for (const message of errorMessagesOf(result)) {
        this.#foldError(accountId, { checkId: result.checkId, message, at: createdMs });
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
    return this.#db.transaction(() => {
      const runnerSequence = tries[0]?.['sequenceId'];
      let sequenceId: string | undefined;
      return tries.map((tried, index) => {
        const createdMs = Date.parse(tried.created_at);
        const id = derivableTime(createdMs) ? this.#rows.freeId(this.#seriesOf(accountId, tried.checkId), tried.checkId, createdMs) : undefined;
        if (index === 0) sequenceId = id;
        const stored: StoredResult = { ...tried, ...(id ? { id } : {}) };
        if (sequenceId && typeof runnerSequence === 'string' && tried['sequenceId'] === runnerSequence) stored['sequenceId'] = sequenceId;
        this.recordResult(accountId, stored);
        return stored;
      });
    })();
  }

  #foldError(accountId: string, occurrence: { checkId: string; message: string; at: number }): void {
    const fresh = recordError(undefined, occurrence, randomUUID);
    const row = this.#groupByHash.get(accountId, occurrence.checkId, fresh.errorHash) as { state: string } | undefined;
    if (!row) {
      this.#insertGroup.run(accountId, fresh.id, fresh.checkId, fresh.errorHash, JSON.stringify(fresh));
      return;
    }
    const next = recordError(JSON.parse(row.state) as ErrorGroupState, occurrence, randomUUID);
    this.#updateGroup.run(JSON.stringify(next), accountId, next.id);
  }

  /** The rollup rows answering for `window` and the part left to raw results (rollups-store.ts `coverageOf`). */
  rollupsFor(accountId: string, checkId: string, window: { from: number; to: number }): ReturnType<RollupsStore['rollupsFor']> {
    return this.#rollups.rollupsFor(this.#seriesOf(accountId, checkId), window);
  }

  /** A check's rollup rows of one granularity starting in `window` (rollups-store.ts `rowsOf`). */
  rollupRowsOf(accountId: string, checkId: string, granularity: RollupGranularity, window: { from: number; to: number }): RollupRow[] {
    return this.#rollups.rowsOf(this.#seriesOf(accountId, checkId), granularity, window);
  }

  /** How far back raw results and hourly rollups are complete (rollups-store.ts `Horizons`). */
  horizons(): Horizons {
    return this.#rollups.horizons();
  }

  /** A check's results created in `[fromMs, toMs)`, oldest first (ties by id). */
  resultsBetween(accountId: string, checkId: string, fromMs: number, toMs: number): StoredResult[] {
    const series = this.#seriesOf(accountId, checkId);
    if (series === undefined) return [];
    const locations = this.#rows.locations();
    return (this.#docsInRange.all(series, fromMs, toMs) as DocRow[]).map((row) => this.#rows.document(checkId, row, locations) as StoredResult);
  }

  /** The facts of a check's results created in `[fromMs, toMs)`, oldest first (ties in no particular order), without decoding a document. */
  factsBetween(accountId: string, checkId: string, fromMs: number, toMs: number): ResultFacts[] {
    const series = this.#seriesOf(accountId, checkId);
    if (series === undefined) return [];
    const locations = this.#rows.locations();
    return (this.#factsInRange.all(series, fromMs, toMs) as FactTuple[]).map((row) => new RowFacts(checkId, row, locations));
  }

  /**
   * A check's results in `[fromMs, toMs)` strictly before `before` (by time, then id), newest first,
   * read lazily: a page stops reading as soon as it is full.
   */
  *newestFirst(accountId: string, checkId: string, fromMs: number, toMs: number, before: { createdMs: number; id: string }): Generator<ResultEntry> {
    const series = this.#seriesOf(accountId, checkId);
    if (series === undefined) return;
    const locations = this.#rows.locations();
    const position = columnKey(checkId, before.id, before.createdMs);
    const rows = this.#newestFirst.iterate(series, fromMs, toMs, before.createdMs, before.createdMs, position) as Iterable<FactRow>;
    for (const row of rows) yield { facts: factsOfRow(checkId, row, locations), document: () => this.#rows.document(checkId, row, locations) as StoredResult };
  }

  /** One result of a check, or undefined. */
  result(accountId: string, checkId: string, id: string): StoredResult | undefined {
    const series = this.#seriesOf(accountId, checkId);
    const row = series === undefined ? undefined : this.#rows.find(series, checkId, id);
    return row ? (this.#rows.document(checkId, row, this.#rows.locations()) as StoredResult) : undefined;
  }

  /** Every stored result of a check, oldest first. */
  resultsOf(accountId: string, checkId: string): StoredResult[] {
    return this.resultsBetween(accountId, checkId, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  }

  /** Stores a heartbeat ping of a check (an id already stored is left alone); returns whether it was new. */
  recordHeartbeatEvent(accountId: string, checkId: string, event: HeartbeatEvent): boolean {
    return this.#insertEvent.run(accountId, event.id, checkId, Date.parse(event.timestamp), JSON.stringify(event)).changes > 0;
  }

  heartbeatEventsOf(accountId: string, checkId: string): HeartbeatEvent[] {
    return (this.#eventsOfCheck.all(accountId, checkId) as Array<{ doc: string }>).map((row) => JSON.parse(row.doc) as HeartbeatEvent);
  }

  /** One page of a check's error groups, in order of first recording. */
  errorGroupsOf(accountId: string, checkId: string, paging: { page: number; limit: number }): { items: ErrorGroupState[]; total: number } {
    const { total } = this.#countGroupsOfCheck.get(accountId, checkId) as { total: number };
    const offset = (paging.page - 1) * paging.limit;
    const rows = offset >= total ? [] : (this.#groupsOfCheck.all(accountId, checkId, paging.limit, offset) as Array<{ state: string }>);
    return { items: rows.map((row) => JSON.parse(row.state) as ErrorGroupState), total };
  }

  errorGroup(accountId: string, id: string): ErrorGroupState | undefined {
    const row = this.#groupById.get(accountId, id) as { state: string } | undefined;
    return row ? (JSON.parse(row.state) as ErrorGroupState) : undefined;
  }

  /** Applies an archive PATCH; `undefined` when the account has no such group. */
  patchErrorGroup(accountId: string, id: string, patch: ArchivePatch, now: number): ErrorGroupState | undefined {
    const group = this.errorGroup(accountId, id);
    if (!group) return undefined;
    const next = applyArchivePatch(group, patch, now);
    this.#updateGroup.run(JSON.stringify(next), accountId, id);
    return next;
  }
}
