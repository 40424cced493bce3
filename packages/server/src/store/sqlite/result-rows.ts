/**
 * The rows of `check_results` as ENCODING_V2 writes them into SQLite, and the reading of rows of either encoding.
 * What a passing result costs (about 85 bytes of row and time-index entry, 90 with its share of
 * references and rollups, where ENCODING_V1 took about 370):
 *
 * - `id`: the discriminator of a derived id (store/formats/result-ids.ts), which SQLite stores in no bytes, and no
 *   entry in an id index; other ids keep their 16 bytes (or text) and the partial index on them.
 * - `run_location`: the key of the location in `check_results_locations` (one or two digits).
 * - `phases`: packed (result-codec.ts `packPhases`), about 11 bytes.
 * - `body`: for a passing result, its delta from the check's current reference result (store/formats/result-delta.ts),
 *   some 20 bytes; failing and degraded results keep their full document (ENCODING_V1's body).
 *
 * References: a check's first passing result becomes its reference (kept whole, in
 * `check_results_references`), and a new one is taken every REFERENCE_ROWS rows or when a passing
 * result has drifted so far from it that a delta would cost more than a quarter of the whole result, so deltas
 * stay small while a check's responses change over time. `uses` counts the rows taking deltas from a
 * reference; the delete trigger of step 17 (store/sqlite/migrations/readside.ts) lowers it, and deletes a replaced reference once no row
 * uses it, so pruning results (by any statement) never leaves a row without its reference.
 *
 * What a row holds and which reference it takes is decided by store/formats/result-row-codec.ts (the
 * PostgreSQL engine stores the same rows); the statements are store/sqlite/check-results.ts's.
 */
import type { SqliteDatabase } from '../database.js';
import { idKey } from '../formats/result-codec.js';
import { freeDerivedId, ResultRowCodec, type DocRow, type Locations, type RowKey } from '../formats/result-row-codec.js';
import { parseDerivedId } from '../formats/result-ids.js';
import { ResultRowTable } from './check-results.js';

type Doc = Record<string, unknown>;

export class ResultRows {
  readonly #table: ResultRowTable;
  readonly #codec: ResultRowCodec;

  constructor(db: SqliteDatabase, options: { referenceRows?: number; referenceCacheEntries?: number } = {}) {
    this.#codec = new ResultRowCodec(options);
    this.#table = new ResultRowTable(db);
  }

  /** How many parsed references are held in memory. */
  get cachedReferences(): number {
    return this.#codec.cachedReferences;
  }

  locations(): Locations {
    return this.#table.locations();
  }

  /** The stored row of result `id` of the check in `series`, whichever way its id is kept. */
  find(series: number, checkId: string, id: string): DocRow | undefined {
    const derived = parseDerivedId(checkId, id);
    const row = derived ? this.#table.byDerivedId(series, derived.createdMs, BigInt(derived.k)) : undefined;
    return row ?? this.#table.byExplicitId(series, idKey(id));
  }

  /** The stored row at a row's key (its time and `id` column, as the facts columns give them). */
  atKey(series: number, createdMs: number, key: RowKey): DocRow | undefined {
    return typeof key === 'number' ? this.#table.byDerivedId(series, createdMs, BigInt(key)) : this.#table.byExplicitId(series, key);
  }

  /** The derived id a new result of the check in `series` created at `createdMs` takes: the first discriminator free at that instant. */
  freeId(series: number | undefined, checkId: string, createdMs: number): string | undefined {
    return freeDerivedId(checkId, createdMs, series === undefined ? [] : this.#table.discriminatorsAt(series, createdMs));
  }

  /** Writes `result` (already bounded and reduced) as an ENCODING_V2 row unless its id is stored; returns whether it was. */
  insert(series: number, result: Doc & { id: string; checkId: string; created_at: string }): boolean {
    if (this.find(series, result.checkId, result.id)) return false;
    const current = this.#table.currentReference(series);
    const { columns, reference } = this.#codec.plan(result, current);
    let ref: number | null = null;
    if (reference !== null && 'current' in reference) ref = reference.current;
    else if (reference !== null) {
      ref = this.#table.replaceReference(series, current?.key, reference.fresh.createdMs, reference.fresh.raw);
      this.#codec.remember(ref, reference.fresh);
    }
    this.#table.insert({ ...columns, series, runLocation: this.#table.locationKey(columns.runLocation), ref });
    return true;
  }

  /** The document of a row of either encoding. */
  document(checkId: string, row: DocRow, locations: Locations): Doc {
    return this.#codec.decode(checkId, row, locations, (key) => this.#table.reference(key));
  }
}
