/**
 * What goes into an ENCODING_V2 row of `check_results`, and how a row of either encoding reads back,
 * whatever engine holds the rows: the id as a derived id's discriminator or ENCODING_V1's key, the
 * location as a key of the locations table, phases packed, and a body that is a passing result's delta
 * from its check's current reference or the whole deflated document (see store/sqlite/result-rows.ts
 * for what a row costs and when a reference is taken). The engines only run the statements; every
 * decision about a row's bytes is made here, once, so SQLite and PostgreSQL store the same rows.
 */
import { BoundedMap } from '../../bounded-map.js';
import { decodeResult, deflateDocument, encodeResult, ENCODING_V1, ENCODING_V2, idFromKey, idKey, inflateDocument, packPhases, reducePassing, responseOf, unpackPhases } from './result-codec.js';
import { decodeDelta, encodeDelta, referenceOf, type DeltaContext, type DeltaReference } from './result-delta.js';
import { derivableTime, derivedResultId, MAX_DISCRIMINATOR, parseDerivedId } from './result-ids.js';

type Doc = Record<string, unknown>;

/** Rows a reference serves before the next passing result becomes the check's reference. */
export const REFERENCE_ROWS = 1000;

/**
 * Parsed references kept in memory: one per check writing results is the working set (every passing
 * result is compared with its check's reference), so this is set well above the checks one service
 * runs; past it, the least recently used are parsed again from their row when next needed.
 */
export const REFERENCE_CACHE_ENTRIES = 10_000;

/** The `id` column: a derived id's discriminator (integer), else ENCODING_V1's key of the id. */
export type RowKey = Buffer | string | number;

/** Location names by the key ENCODING_V2 rows keep, read once per query (the table has a row per location). */
export type Locations = ReadonlyMap<string, string>;

/** A row with what its document is decoded from. */
export interface DocRow {
  id: RowKey;
  created_ms: number;
  run_location: string;
  response_time: number | null;
  phases: Buffer | string | null;
  encoding: number;
  ref: number | null;
  body: Buffer;
}

/** The current reference result of a series: its key, how many rows use it, and its deflated document. */
export interface CurrentReference {
  key: number;
  uses: number;
  created_ms: number;
  doc: Buffer;
}

/** The column values of a new ENCODING_V2 row, but for its series, location key and reference key. */
export interface PlannedColumns {
  createdMs: number;
  id: bigint | Buffer | string;
  final: 0 | 1;
  hasFailures: 0 | 1;
  /** The location's name; the engine stores its key. */
  runLocation: string;
  attempts: number;
  responseTime: number | null;
  statusCode: number | null;
  phases: Buffer | string | null;
  body: Buffer;
}

/** Which reference a planned row takes its delta from: none, the current one, or a new one to store first. */
export type PlannedReference =
  | null
  | { readonly current: number }
  | { readonly fresh: { readonly raw: Buffer; readonly reference: DeltaReference; readonly createdMs: number } };

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
 * uses, so keyset positions compare like stored rows): its discriminator as an integer when the id is
 * that check's derived id of that time, else ENCODING_V1's key.
 */
export function columnKey(checkId: string, id: string, createdMs: number): bigint | Buffer | string {
  const derived = parseDerivedId(checkId, id);
  return derived && derived.createdMs === createdMs ? BigInt(derived.k) : idKey(id);
}

/** The first discriminator not in `taken`: the derived id a new result of that check and instant takes. */
export function freeDerivedId(checkId: string, createdMs: number, taken: Iterable<number>): string | undefined {
  const used = new Set(taken);
  for (let k = 0; k <= MAX_DISCRIMINATOR; k++) if (!used.has(k)) return derivedResultId(checkId, createdMs, k);
  return undefined;
}

/**
 * The tries of one run as stored: each try's id becomes `freeId(try, createdMs)` (the derived id of its
 * check and `created_at`; the engine knows which are taken, including by the tries stored before it
 * in this run, so it calls `store` before the next try's `freeId`), and the run's `sequenceId`, shared
 * by its tries, becomes the first try's id. A try whose `created_at` is not a time keeps the runner's ids.
 */
export function storeRunTries<T extends Doc & { created_at: string }>(tries: readonly T[], freeId: (tried: T, createdMs: number) => string | undefined, store: (tried: T) => void): T[] {
  const runnerSequence = tries[0]?.['sequenceId'];
  let sequenceId: string | undefined;
  return tries.map((tried, index) => {
    const createdMs = Date.parse(tried.created_at);
    const id = derivableTime(createdMs) ? freeId(tried, createdMs) : undefined;
    if (index === 0) sequenceId = id;
    const stored: T = { ...tried, ...(id ? { id } : {}) };
    if (sequenceId && typeof runnerSequence === 'string' && tried['sequenceId'] === runnerSequence) (stored as Doc)['sequenceId'] = sequenceId;
    store(stored);
    return stored;
  });
}

/** A result as a row keeps it and reads it back: reduced (`reducePassing`) and what its JSON keeps. */
export function asStored<T extends Doc>(result: T): T {
  return JSON.parse(JSON.stringify(reducePassing(result))) as T;
}

/** What a FINAL result adds to its rollups: the facts its row keeps, and whether it was degraded. */
export function rollupFactOf(result: Doc & { created_at: string }): { createdMs: number; location: string; failed: boolean; degraded: boolean; attempts: number; responseTime: number | null } {
  const attempts = result['attempts'];
  return {
    createdMs: Date.parse(result.created_at),
    location: String(result['runLocation']),
    failed: result['hasFailures'] === true,
    degraded: result['isDegraded'] === true,
    attempts: typeof attempts === 'number' ? attempts : 0,
    responseTime: typeof result['responseTime'] === 'number' ? result['responseTime'] : null,
  };
}

function passing(doc: Doc): boolean {
  return doc['hasFailures'] === false && doc['hasErrors'] !== true && doc['isDegraded'] !== true;
}

interface CachedReference {
  raw: Buffer;
  reference: DeltaReference;
}

/** The encoder and decoder of rows, with the parsed references it has met (one instance per engine instance). */
export class ResultRowCodec {
  readonly #referenceRows: number;
  /** Parsed references by key; an entry counts only while its stored bytes are the same (a rolled-back key can come back with another). */
  readonly #cache: BoundedMap<number, CachedReference>;

  constructor(options: { referenceRows?: number; referenceCacheEntries?: number } = {}) {
    this.#referenceRows = options.referenceRows ?? REFERENCE_ROWS;
    this.#cache = new BoundedMap(options.referenceCacheEntries ?? REFERENCE_CACHE_ENTRIES);
  }

  get cachedReferences(): number {
    return this.#cache.size;
  }

  /**
   * The row of `result` (bounded, and reduced by `reducePassing`), given its series' current reference: its columns
   * and which reference its delta is from. A fresh reference must be stored, and then `remember`ed
   * under its key, before the row.
   */
  plan(result: Doc & { id: string; checkId: string; created_at: string }, current: CurrentReference | undefined): { columns: PlannedColumns; reference: PlannedReference } {
    // What is stored is what its JSON keeps (no undefined members, no -0), which is what is read back.
    const doc = JSON.parse(JSON.stringify(result)) as Doc;
    const createdMs = Date.parse(result.created_at);
    const phases = responseOf(doc)?.['timingPhases'];
    const runLocation = String(doc['runLocation']);
    const responseTime = typeof doc['responseTime'] === 'number' ? doc['responseTime'] : null;
    const context: DeltaContext = { id: result.id, checkId: result.checkId, createdMs, runLocation, responseTime, phases };
    let reference: PlannedReference = null;
    let body: Buffer | undefined;
    if (passing(doc) && Number.isSafeInteger(createdMs)) ({ reference, body } = this.#delta(doc, context, current));
    body ??= encodeResult(doc, { id: result.id, checkId: result.checkId, createdMs, phases: phases === undefined ? null : JSON.stringify(phases) });
    const status = responseOf(doc)?.['status'];
    const attempts = doc['attempts'];
    return {
      columns: {
        createdMs,
        id: columnKey(result.checkId, result.id, createdMs),
        final: doc['resultType'] === 'ATTEMPT' ? 0 : 1,
        hasFailures: doc['hasFailures'] === true ? 1 : 0,
        runLocation,
        attempts: typeof attempts === 'number' ? attempts : 0,
        responseTime,
        statusCode: typeof status === 'number' ? status : null,
        phases: packPhases(phases),
        body,
      },
      reference,
    };
  }

  /** Keeps a fresh reference's parsed form under the key its engine stored it with. */
  remember(key: number, fresh: { raw: Buffer; reference: DeltaReference }): void {
    this.#cache.set(key, { raw: fresh.raw, reference: fresh.reference });
  }

  /** The document of a row of either encoding; `referenceRow` reads a reference by key. */
  decode(checkId: string, row: DocRow, locations: Locations, referenceRow: (key: number) => { created_ms: number; doc: Buffer } | undefined): Doc {
    const id = idOfRow(checkId, row.id, row.created_ms);
    if (row.encoding === ENCODING_V1) return decodeResult(row.body, ENCODING_V1, { id, checkId, createdMs: row.created_ms, phases: row.phases as string | null });
    if (row.encoding !== ENCODING_V2) throw new Error(`check result ${id} has an unknown storage encoding ${row.encoding}`);
    const phases = unpackPhases(row.phases);
    if (row.ref === null) return decodeResult(row.body, ENCODING_V1, { id, checkId, createdMs: row.created_ms, phases: phases === undefined ? null : JSON.stringify(phases) });
    const runLocation = locationOfRow(row.encoding, row.run_location, locations);
    const stored = referenceRow(row.ref);
    if (!stored) throw new Error(`check result reference ${row.ref} is missing; this is a bug in vigil`);
    return decodeDelta(row.body, { id, checkId, createdMs: row.created_ms, runLocation, responseTime: row.response_time, phases }, this.#cached(row.ref, stored.created_ms, stored.doc));
  }

  /**
   * The delta of a passing result from its check's reference, taking a new reference when there is
   * none yet, the current one has served REFERENCE_ROWS rows, or the result drifted too far from it.
   * No delta (a full body) when even a fresh reference would not give one that decodes to the result.
   */
  #delta(doc: Doc, context: DeltaContext, current: CurrentReference | undefined): { reference: PlannedReference; body: Buffer | undefined } {
    if (current && current.uses < this.#referenceRows) {
      const reference = this.#cached(current.key, current.created_ms, current.doc);
      const delta = this.#verified(doc, context, reference);
      // Small deltas need no comparison; a large one is worth a new reference once it costs more than
      // a quarter of the whole result (then the check's results have changed, and the next ones will
      // look like this one; a result unlike any other costs one reference of about its own size).
      if (delta && (delta.length <= 48 || delta.length * 4 <= encodeResult(doc, { id: context.id, checkId: context.checkId, createdMs: context.createdMs, phases: null }).length)) {
        return { reference: { current: current.key }, body: delta };
      }
    }
    const reference = referenceOf(doc, context);
    const delta = this.#verified(doc, context, reference);
    if (!delta) return { reference: null, body: undefined };
    return { reference: { fresh: { raw: deflateDocument(doc), reference, createdMs: context.createdMs } }, body: delta };
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
