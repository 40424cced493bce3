/**
 * The rows of `check_results` as ENCODING_V2 writes them, and the reading of rows of either encoding.
 * What a passing result costs (about 85 bytes of row and time-index entry, 90 with its share of
 * references and rollups, where ENCODING_V1 took about 370):
 *
 * - `id`: the discriminator of a derived id (result-ids.ts), which SQLite stores in no bytes, and no
 *   entry in an id index; other ids keep their 16 bytes (or text) and the partial index on them.
 * - `run_location`: the key of the location in `check_results_locations` (one or two digits).
 * - `phases`: packed (result-codec.ts `packPhases`), about 11 bytes.
 * - `body`: for a passing result, its delta from the check's current reference result (result-delta.ts),
 *   some 20 bytes; failing and degraded results keep their full document (ENCODING_V1's body).
 *
 * References: a check's first passing result becomes its reference (kept whole, in
 * `check_results_references`), and a new one is taken every REFERENCE_ROWS rows or when a passing
 * result has drifted so far from it that a delta would cost more than a quarter of the whole result, so deltas
 * stay small while a check's responses change over time. `uses` counts the rows taking deltas from a
 * reference; the delete trigger of step 17 (store/sqlite/migrations/readside.ts) lowers it, and deletes a replaced reference once no row
 * uses it, so pruning results (by any statement) never leaves a row without its reference.
 *
 * This decides what a row holds and which reference it takes; the statements are the engine's
 * (store/sqlite/check-results.ts).
 */
import type { SqliteDatabase } from '../store/index.js';
import { decodeDelta, encodeDelta, referenceOf, type DeltaContext, type DeltaReference } from './result-delta.js';
import { decodeResult, deflateDocument, encodeResult, ENCODING_V1, ENCODING_V2, idFromKey, idKey, inflateDocument, packPhases, responseOf, unpackPhases } from '../store/formats/result-codec.js';
import { ResultRowTable, type DocRow, type RowKey } from '../store/sqlite/check-results.js';
import { derivedResultId, MAX_DISCRIMINATOR, parseDerivedId } from './result-ids.js';
import { BoundedMap } from '../bounded-map.js';

type Doc = Record<string, unknown>;

/** Rows a reference serves before the next passing result becomes the check's reference. */
export const REFERENCE_ROWS = 1000;

/**
 * Parsed references kept in memory: one per check writing results is the working set (every passing
 * result is compared with its check's reference), so this is set well above the checks one service
 * runs; past it, the least recently used are parsed again from their row when next needed.
 */
export const REFERENCE_CACHE_ENTRIES = 10_000;

export type { DocRow, FactTuple, RowKey } from '../store/sqlite/check-results.js';

/** Location names by the key ENCODING_V2 rows keep, read once per query (the table has a row per location). */
export type Locations = ReadonlyMap<string, string>;

/** The API id of a row. */
export function idOfRow(checkId: string, key: RowKey, createdMs: number): string {
  return typeof key === 'number' ? derivedResultId(checkId, createdMs, key) : idFromKey(key);
}

/** The location of a row as the API names it. */
export function locationOfRow(encoding: number, column: string, locations: Locations): string {
  return encoding === ENCODING_V2 ? (locations.get(column) ?? column) : column;
}

/**
 * The `id` column value a result id of `checkId` created at `createdMs` has (the same rule the writer
 * uses, so keyset positions compare like stored rows): its discriminator as a SQLite integer when
 * the id is that check's derived id of that time, else ENCODING_V1's key.
 */
export function columnKey(checkId: string, id: string, createdMs: number): bigint | Buffer | string {
  const derived = parseDerivedId(checkId, id);
  return derived && derived.createdMs === createdMs ? BigInt(derived.k) : idKey(id);
}

function passing(doc: Doc): boolean {
  return doc['hasFailures'] === false && doc['hasErrors'] !== true && doc['isDegraded'] !== true;
}

interface CachedReference {
  raw: Buffer;
  reference: DeltaReference;
}

export class ResultRows {
  readonly #referenceRows: number;
  readonly #table: ResultRowTable;
  /** Parsed references by key; an entry counts only while its stored bytes are the same (a rolled-back key can come back with another). */
  readonly #cache: BoundedMap<number, CachedReference>;

  constructor(db: SqliteDatabase, options: { referenceRows?: number; referenceCacheEntries?: number } = {}) {
    this.#referenceRows = options.referenceRows ?? REFERENCE_ROWS;
    this.#cache = new BoundedMap(options.referenceCacheEntries ?? REFERENCE_CACHE_ENTRIES);
    this.#table = new ResultRowTable(db);
  }

  /** How many parsed references are held in memory. */
  get cachedReferences(): number {
    return this.#cache.size;
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

  /** The derived id a new result of the check in `series` created at `createdMs` takes: the first discriminator free at that instant. */
  freeId(series: number | undefined, checkId: string, createdMs: number): string | undefined {
    const taken = new Set(series === undefined ? [] : this.#table.discriminatorsAt(series, createdMs));
    for (let k = 0; k <= MAX_DISCRIMINATOR; k++) if (!taken.has(k)) return derivedResultId(checkId, createdMs, k);
    return undefined;
  }

  /** Writes `result` (already bounded and reduced) as an ENCODING_V2 row unless its id is stored; returns whether it was. */
  insert(series: number, result: Doc & { id: string; checkId: string; created_at: string }): boolean {
    if (this.find(series, result.checkId, result.id)) return false;
    // What is stored is what its JSON keeps (no undefined members, no -0), which is what is read back.
    const doc = JSON.parse(JSON.stringify(result)) as Doc;
    const createdMs = Date.parse(result.created_at);
    const phases = responseOf(doc)?.['timingPhases'];
    const runLocation = String(doc['runLocation']);
    const responseTime = typeof doc['responseTime'] === 'number' ? doc['responseTime'] : null;
    const context: DeltaContext = { id: result.id, checkId: result.checkId, createdMs, runLocation, responseTime, phases };
    let ref: number | null = null;
    let body: Buffer | undefined;
    if (passing(doc) && Number.isSafeInteger(createdMs)) ({ ref, body } = this.#delta(series, doc, context));
    body ??= encodeResult(doc, { id: result.id, checkId: result.checkId, createdMs, phases: phases === undefined ? null : JSON.stringify(phases) });
    const status = responseOf(doc)?.['status'];
    const attempts = doc['attempts'];
    this.#table.insert({
      series,
      createdMs,
      id: columnKey(result.checkId, result.id, createdMs),
      final: doc['resultType'] === 'ATTEMPT' ? 0 : 1,
      hasFailures: doc['hasFailures'] === true ? 1 : 0,
      runLocation: this.#table.locationKey(runLocation),
      attempts: typeof attempts === 'number' ? attempts : 0,
      responseTime,
      statusCode: typeof status === 'number' ? status : null,
      phases: packPhases(phases),
      body,
      ref,
    });
    return true;
  }

  /** The document of a row of either encoding. */
  document(checkId: string, row: DocRow, locations: Locations): Doc {
    const id = idOfRow(checkId, row.id, row.created_ms);
    if (row.encoding === ENCODING_V1) return decodeResult(row.body, ENCODING_V1, { id, checkId, createdMs: row.created_ms, phases: row.phases as string | null });
    if (row.encoding !== ENCODING_V2) throw new Error(`check result ${id} has an unknown storage encoding ${row.encoding}`);
    const phases = unpackPhases(row.phases);
    if (row.ref === null) return decodeResult(row.body, ENCODING_V1, { id, checkId, createdMs: row.created_ms, phases: phases === undefined ? null : JSON.stringify(phases) });
    const runLocation = locationOfRow(row.encoding, row.run_location, locations);
    return decodeDelta(row.body, { id, checkId, createdMs: row.created_ms, runLocation, responseTime: row.response_time, phases }, this.#referenceByKey(row.ref));
  }

  /**
   * The delta of a passing result from its check's reference, taking a new reference when there is
   * none yet, the current one has served REFERENCE_ROWS rows, or the result drifted too far from it.
   * No delta (a full body) when even a fresh reference would not give one that decodes to the result.
   */
  #delta(series: number, doc: Doc, context: DeltaContext): { ref: number | null; body: Buffer | undefined } {
    const current = this.#table.currentReference(series);
    if (current && current.uses < this.#referenceRows) {
      const reference = this.#cached(current.key, current.created_ms, current.doc);
      const delta = this.#verified(doc, context, reference);
      // Small deltas need no comparison; a large one is worth a new reference once it costs more than
      // a quarter of the whole result (then the check's results have changed, and the next ones will
      // look like this one; a result unlike any other costs one reference of about its own size).
      if (delta && (delta.length <= 48 || delta.length * 4 <= encodeResult(doc, { id: context.id, checkId: context.checkId, createdMs: context.createdMs, phases: null }).length)) {
        return { ref: current.key, body: delta };
      }
    }
    const reference = referenceOf(doc, context);
    const delta = this.#verified(doc, context, reference);
    if (!delta) return { ref: null, body: undefined };
    const raw = deflateDocument(doc);
    const key = this.#table.replaceReference(series, current?.key, context.createdMs, raw);
    this.#cache.set(key, { raw, reference });
    return { ref: key, body: delta };
  }

  /** The delta, if decoding it gives the result back exactly. */
  #verified(doc: Doc, context: DeltaContext, reference: DeltaReference): Buffer | undefined {
    const delta = encodeDelta(doc, context, reference);
    try {
      return JSON.stringify(decodeDelta(delta, context, reference)) === JSON.stringify(doc) ? delta : undefined;
    } catch {
      return undefined;
    }
  }

  #referenceByKey(key: number): DeltaReference {
    const row = this.#table.reference(key);
    if (!row) throw new Error(`check result reference ${key} is missing; this is a bug in vigil`);
    return this.#cached(key, row.created_ms, row.doc);
  }

  #cached(key: number, createdMs: number, raw: Buffer): DeltaReference {
    const hit = this.#cache.get(key);
    if (hit && hit.raw.equals(raw)) return hit.reference;
    const doc = inflateDocument(raw);
    const reference = referenceOf(doc, {
      id: String(doc['id']),
      checkId: String(doc['checkId']),
      createdMs,
      runLocation: doc['runLocation'],
      responseTime: typeof doc['responseTime'] === 'number' ? doc['responseTime'] : null,
      phases: responseOf(doc)?.['timingPhases'],
    });
    this.#cache.set(key, { raw, reference });
    return reference;
  }
}
