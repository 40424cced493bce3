/**
 * The SQL of stored check results (steps 14 and 17 of migrations/): one compact row per result in
 * `check_results`, keyed by a per-(account, check) series number (`result_series`), the reference
 * results passing rows are deltas from (`check_results_references`), and the location names rows
 * keep by key (`check_results_locations`). What goes in a row is the row format's
 * (store/formats/result-row-codec.ts, written by result-rows.ts); these tables only store and read them.
 * Statements are prepared once, when a table is built, and the hot reads keep their modes (facts in
 * raw mode: an array per row, no object).
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import { encodeResult, ENCODING_V1, ENCODING_V2, idKey, phasesColumnOf, responseOf } from '../formats/result-codec.js';
import type { FactTuple } from '../formats/result-facts.js';
import type { StoredResultFields } from '../formats/result-fields.js';
import type { CurrentReference, DocRow, PlannedColumns, RowKey } from '../formats/result-row-codec.js';

export type { CurrentReference, DocRow, RowKey };

/** The columns rows are read with, in this order (FactTuple follows it). */
export const ROW_COLUMNS = 'id, created_ms, final, has_failures, run_location, attempts, response_time, status_code, phases, encoding';

/** ROW_COLUMNS of one row, as raw mode reads them. */
export type { FactTuple };

/** A row with its facts and its document. */
export interface FactRow extends DocRow {
  final: number;
  has_failures: number;
  attempts: number;
  response_time: number | null;
  status_code: number | null;
}

/** The column values of a new ENCODING_V2 row (`ResultRowTable.insert`): the planned ones with the engine's keys. */
export interface NewRow extends Omit<PlannedColumns, 'runLocation'> {
  series: number;
  /** The location's key (`ResultRowTable.locationKey`). */
  runLocation: string;
  ref: number | null;
}

/** The series numbers of (account, check) pairs. */
export class ResultSeriesTable {
  readonly #find: Statement;
  readonly #add: Statement;

  constructor(db: SqliteDatabase) {
    this.#find = db.prepare('SELECT key FROM result_series WHERE account_id = ? AND check_id = ?').pluck();
    this.#add = db.prepare('INSERT INTO result_series (account_id, check_id) VALUES (?, ?)');
  }

  /** The check's series; undefined when it has no result stored. */
  find(accountId: string, checkId: string): number | undefined {
    return this.#find.get(accountId, checkId) as number | undefined;
  }

  /** The check's series, created on first use. */
  findOrAdd(accountId: string, checkId: string): number {
    return this.find(accountId, checkId) ?? Number(this.#add.run(accountId, checkId).lastInsertRowid);
  }
}

/** What writing one result touches: its row, its check's reference results and the location keys. */
export class ResultRowTable {
  readonly #insert: Statement;
  readonly #byDerived: Statement;
  readonly #byExplicit: Statement;
  readonly #discriminators: Statement;
  readonly #current: Statement;
  readonly #reference: Statement;
  readonly #addReference: Statement;
  readonly #retire: Statement;
  readonly #dropUnused: Statement;
  readonly #use: Statement;
  readonly #locationKey: Statement;
  readonly #addLocation: Statement;
  readonly #locations: Statement;

  constructor(db: SqliteDatabase) {
    this.#insert = db.prepare(
      `INSERT INTO check_results (series, created_ms, id, final, has_failures, run_location, attempts, response_time, status_code, phases, encoding, body, ref)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${ENCODING_V2}, ?, ?)`,
    );
    const select = `SELECT ${ROW_COLUMNS}, ref, body FROM check_results`;
    this.#byDerived = db.prepare(`${select} WHERE series = ? AND created_ms = ? AND id = ?`);
    // `typeof(id) <> 'integer'` spelled as in the partial index, so the planner uses it.
    this.#byExplicit = db.prepare(`${select} WHERE series = ? AND id = ? AND typeof(id) <> 'integer'`);
    this.#discriminators = db.prepare("SELECT id FROM check_results WHERE series = ? AND created_ms = ? AND typeof(id) = 'integer'").pluck();
    this.#current = db.prepare('SELECT key, uses, created_ms, doc FROM check_results_references WHERE series = ? AND current = 1');
    this.#reference = db.prepare('SELECT created_ms, doc FROM check_results_references WHERE key = ?');
    this.#addReference = db.prepare('INSERT INTO check_results_references (series, created_ms, current, uses, doc) VALUES (?, ?, 1, 0, ?)');
    this.#retire = db.prepare('UPDATE check_results_references SET current = 0 WHERE key = ?');
    this.#dropUnused = db.prepare('DELETE FROM check_results_references WHERE key = ? AND uses <= 0');
    this.#use = db.prepare('UPDATE check_results_references SET uses = uses + 1 WHERE key = ?');
    this.#locationKey = db.prepare('SELECT key FROM check_results_locations WHERE name = ?').pluck();
    this.#addLocation = db.prepare('INSERT INTO check_results_locations (name) VALUES (?)');
    this.#locations = db.prepare('SELECT key, name FROM check_results_locations');
  }

  /** The row of a derived id: its series, instant and discriminator. */
  byDerivedId(series: number, createdMs: number, discriminator: bigint): DocRow | undefined {
    return this.#byDerived.get(series, createdMs, discriminator) as DocRow | undefined;
  }

  /** The row of an id kept whole (ENCODING_V1's key). */
  byExplicitId(series: number, key: Buffer | string): DocRow | undefined {
    return this.#byExplicit.get(series, key) as DocRow | undefined;
  }

  /** The discriminators of the derived ids stored at one instant of a series. */
  discriminatorsAt(series: number, createdMs: number): number[] {
    return this.#discriminators.all(series, createdMs) as number[];
  }

  /** Writes an ENCODING_V2 row; its reference's count of uses goes up with it. */
  insert(row: NewRow): void {
    this.#insert.run(
      row.series,
      row.createdMs,
      row.id,
      row.final,
      row.hasFailures,
      row.runLocation,
      row.attempts,
      row.responseTime,
      row.statusCode,
      row.phases,
      row.body,
      row.ref,
    );
    if (row.ref !== null) this.#use.run(row.ref);
  }

  currentReference(series: number): CurrentReference | undefined {
    return this.#current.get(series) as CurrentReference | undefined;
  }

  reference(key: number): { created_ms: number; doc: Buffer } | undefined {
    return this.#reference.get(key) as { created_ms: number; doc: Buffer } | undefined;
  }

  /**
   * Makes a new reference the series' current one; the one it replaces stops being current, and is
   * deleted now if no row uses it (else the delete trigger of step 17 does it when its last row goes).
   */
  replaceReference(series: number, replaced: number | undefined, createdMs: number, doc: Buffer): number {
    if (replaced !== undefined) {
      this.#retire.run(replaced);
      this.#dropUnused.run(replaced);
    }
    return Number(this.#addReference.run(series, createdMs, doc).lastInsertRowid);
  }

  /** The key rows keep for a location's name, added on first use. */
  locationKey(name: string): string {
    const key = (this.#locationKey.get(name) as number | undefined) ?? Number(this.#addLocation.run(name).lastInsertRowid);
    return String(key);
  }

  /** Every location's name by its key. */
  locations(): Map<string, string> {
    return new Map((this.#locations.all() as Array<{ key: number; name: string }>).map((row) => [String(row.key), row.name]));
  }
}

/** The reads of a series' rows over a time range. */
export class ResultRangeTable {
  readonly #factsInRange: Statement;
  readonly #docsInRange: Statement;
  readonly #newestFirst: Statement;
  readonly #newestPage: Statement;

  constructor(db: SqliteDatabase) {
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
    // The same order, with the rows an offset skips stepped over inside SQLite rather than each read into JavaScript.
    this.#newestPage = db.prepare(
      `SELECT ${docColumns} FROM check_results
        WHERE series = ? AND created_ms >= ? AND created_ms < ? AND (created_ms < ? OR (created_ms = ? AND id < ?))
        ORDER BY created_ms DESC, id DESC LIMIT ? OFFSET ?`,
    );
  }

  /** The facts of the rows created in `[fromMs, toMs)`, oldest first (ties as stored), an array per row. */
  facts(series: number, fromMs: number, toMs: number): FactTuple[] {
    return this.#factsInRange.all(series, fromMs, toMs) as FactTuple[];
  }

  /** The rows created in `[fromMs, toMs)`, oldest first (ties by id). */
  documents(series: number, fromMs: number, toMs: number): DocRow[] {
    return this.#docsInRange.all(series, fromMs, toMs) as DocRow[];
  }

  /** The rows in `[fromMs, toMs)` strictly before (`beforeMs`, `beforeKey`), newest first, read as iterated. */
  newestFirst(series: number, fromMs: number, toMs: number, beforeMs: number, beforeKey: bigint | Buffer | string): Iterable<FactRow> {
    return this.#newestFirst.iterate(series, fromMs, toMs, beforeMs, beforeMs, beforeKey) as Iterable<FactRow>;
  }

  /** As `newestFirst`, up to `limit` rows after leaving out the first `offset`. */
  newestPage(series: number, fromMs: number, toMs: number, beforeMs: number, beforeKey: bigint | Buffer | string, limit: number, offset: number): FactRow[] {
    return this.#newestPage.all(series, fromMs, toMs, beforeMs, beforeMs, beforeKey, limit, offset) as FactRow[];
  }
}

/** A result document, with the fields its ENCODING_V1 row keeps as columns. */
export interface ResultDocument extends StoredResultFields, Record<string, unknown> {}

/**
 * The ENCODING_V1 insert of one compact row, creating the (account, check) series on first use:
 * step 14 of migrations/ carries older databases over with it (before step 17 exists, so rows of
 * that time are all of one form). The service writes result-rows.ts rows. Returns whether
 * the row was new.
 */
export function compactResultRow(db: SqliteDatabase): (accountId: string, result: ResultDocument) => boolean {
  const series = new ResultSeriesTable(db);
  const insert = db.prepare(
    'INSERT OR IGNORE INTO check_results (series, created_ms, id, final, has_failures, run_location, attempts, response_time, status_code, phases, encoding, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  return (accountId, result) => {
    const createdMs = Date.parse(result.created_at);
    const phases = phasesColumnOf(result);
    const status = responseOf(result)?.['status'];
    return (
      insert.run(
        series.findOrAdd(accountId, result.checkId),
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
