/**
 * The CheckResults port on PostgreSQL. Rows are store/formats/result-row-codec.ts's, as SQLite keeps
 * them, in fewer columns: migration step 27 (postgres/narrow-result-rows.ts) says which are packed
 * together and why.
 *
 * Raw results: `check_results` is partitioned by range of `created_ms`, one partition per UTC day.
 * A partition is made as a plain table and then attached (`ATTACH PARTITION` takes a SHARE UPDATE
 * EXCLUSIVE lock on the parent, which reads and writes pass; `CREATE TABLE … PARTITION OF` would take
 * an ACCESS EXCLUSIVE one). Replicas call `prepareDays` ahead of time (today and the next days), so
 * appends find their day ready; an append to a day without a partition (an old result imported, a
 * clock ahead) makes it first, and one that finds its day dropped under it makes it again. There is no
 * default partition: attaching next to one would scan it under a lock.
 *
 * Pruning drops the days that ended before the cutoff whole: `DETACH PARTITION … CONCURRENTLY` (no
 * lock that stops reads or writes of the other days) and then `DROP TABLE` of the detached day. A
 * detach left pending by a replica that died is finished (`FINALIZE`) by the next prune. The day the
 * cutoff falls in loses its rows older than the cutoff by batched deletes on its partition, each its
 * own short statement, so the retention holds to the millisecond as on SQLite. Replaced references
 * whose last row is older than the cutoff go with a batched delete, as do old rollup rows (ordinary
 * tables).
 *
 * Appends of one check are serialised by a row lock on its series, which is what makes choosing a
 * free derived id, the reference a row takes its delta from and the rollup upserts safe from two
 * replicas at once.
 */
import { sql, type Kysely, type QueryExecutorProvider, type RawBuilder, type Transaction } from 'kysely';
import type { CheckResultDocument, CheckResults, DailyResultTotals, PrunedBefore, ResultCursor, ResultFacts, ResultFilter, ResultRetention, RolledUpResults, RollupGranularity } from '../ports.js';
import { checkDailyTotals, checkFactRange, checkPreparedDays, checkResultKey, checkResultPage, checkResultRun, checkResultWindowPage, checkRetention, checkRollupRange, DAY_MS, dayOf, pruneCutoffs, rolledUpOf } from '../port-rules.js';
import { ENCODING_V1, ENCODING_V2, idKey, reducePassing } from '../formats/result-codec.js';
import { packResultFields, unpackResultFields } from '../formats/packed-result-fields.js';
import { RowFacts, type FactTuple } from '../formats/result-facts.js';
import { bucketOf } from '../formats/rollup-histogram.js';
import { parseDerivedId } from '../formats/result-ids.js';
import { asStored, columnKey, freeDerivedId, ResultRowCodec, rollupFactOf, storeRunTries, type CurrentReference, type DocRow, type RowKey } from '../formats/result-row-codec.js';
import { BoundedMap } from '../../bounded-map.js';
import type { PostgresSchema } from './database.js';
import { blockOf, packBefore, prunePacked, seriesRows } from './packed-results.js';

const HOUR_MS = 3_600_000;
const ROLLUPS: Readonly<Record<RollupGranularity, { table: string; spanMs: number }>> = {
  hourly: { table: 'result_rollups_hourly', spanMs: HOUR_MS },
  daily: { table: 'result_rollups_daily', spanMs: DAY_MS },
};
/** A rollup row's histogram (an integer[] subscripted by bucket, step 31) as the JSON object of its buckets counted that rollup-row.ts reads. */
const ROLLUP_HISTOGRAM_JSON = sql`(SELECT COALESCE(json_object_agg(i, rt_hist[i] ORDER BY i), '{}')::text FROM generate_subscripts(rt_hist, 1) AS i WHERE rt_hist[i] IS NOT NULL)`;
/** Advisory lock of partition creation ("vigilpar"): two replicas making the same day would collide on its name. */
const PARTITION_LOCK = 0x76_69_67_69_6c_70_61_72n;
/** Session advisory lock of pruning ("vigilprn"): one replica detaches at a time, the others skip. */
const PRUNE_LOCK = 0x76_69_67_69_6c_70_72_6en;
/** Rows deleted per statement when pruning the cutoff's day, references and rollups. */
const PRUNE_BATCH = 5000;
/** pg's SQLSTATEs for a row no partition accepts (check_violation), and a day's partition dropped meanwhile (undefined_table). */
const NO_PARTITION = ['23514', '42P01'];

/**
 * Whether an append inside a unit of work needs a savepoint to go on after a missing day (see
 * appendOnce): a day before today does, as another replica's prune may have dropped it. Today's and
 * later days are never dropped (a prune drops only days that ended before its cutoff, and the cutoff
 * is its clock's now less the retention), so a run of today costs no SAVEPOINT and RELEASE.
 */
function needsSavepoint(days: readonly number[]): boolean {
  const today = dayOf(Date.now());
  return days.some((day) => day < today);
}

/**
 * Transactions that have inserted into `check_results`: only in those can an insert route by a list of
 * partitions older than the day it needs (see #append), so only those lock the day's partition first.
 */
const insertedIn = new WeakSet<Transaction<PostgresSchema>>();

/** Location keys read committed, by the pool they came through (one per database this process opened). */
const committedLocationKeys = new WeakMap<Kysely<PostgresSchema>, Map<string, string>>();

/** The partition of the UTC day starting at `dayMs`: `check_results_p20261124`. */
export function partitionName(dayMs: number): string {
  return `check_results_p${new Date(dayMs).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

const PARTITION_NAME = /^check_results_p(\d{4})(\d\d)(\d\d)$/;

function dayOfPartition(name: string): number | undefined {
  const match = PARTITION_NAME.exec(name);
  return match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : undefined;
}

/**
 * A result's id as the `id_key` column keeps it, bytes that sort as SQLite sorts its `id` column
 * (integers, then text, then blobs): a derived id's discriminator as a kind byte 0 and two bytes, and
 * nothing at all for discriminator 0 (nearly every row, still sorting first); else a kind byte (1 text,
 * 2 bytes) and the id. Every derived key sorts below EXPLICIT_ID, every other from it on.
 */
export function idKeyBytes(key: RowKey | bigint): Buffer {
  if (typeof key === 'number' || typeof key === 'bigint') return Number(key) === 0 ? Buffer.alloc(0) : Buffer.from([0, Number(key) >> 8, Number(key) & 0xff]);
  return typeof key === 'string' ? Buffer.concat([Buffer.from([1]), Buffer.from(key, 'utf8')]) : Buffer.concat([Buffer.from([2]), key]);
}

/** The first `id_key` of an id the store did not derive (the partial index of those ids names the same bound). */
const EXPLICIT_ID = sql`'\\x01'::bytea`;

function rowKeyOf(bytes: Buffer): RowKey {
  if (bytes.length === 0) return 0;
  if (bytes[0] === 0) return (bytes[1]! << 8) | bytes[2]!;
  return bytes[0] === 1 ? bytes.subarray(1).toString('utf8') : Buffer.from(bytes.subarray(1));
}

/** Bits of the `flags` column (step 27): a FINAL result, one with failures, a row of ENCODING_V1. */
const FINAL_FLAG = 1;
const FAILURES_FLAG = 2;
const ENCODING_V1_FLAG = 4;

/** The `flags` column of a row with these columns of the row codec (store/formats/result-row-codec.ts). */
export function rowFlags(final: number, hasFailures: number, encoding: number): number {
  return (final === 1 ? FINAL_FLAG : 0) | (hasFailures === 1 ? FAILURES_FLAG : 0) | (encoding === ENCODING_V2 ? 0 : ENCODING_V1_FLAG);
}

function encodingOf(flags: number): number {
  return flags & ENCODING_V1_FLAG ? ENCODING_V1 : ENCODING_V2;
}

/**
 * How long a reference's `last_used_ms` may lag behind its newest row: an append moves it only once a
 * row is newer by more than this, so the per-result update of `uses` changes no indexed column and
 * stays a HOT update. Pruning keeps a replaced reference this much longer in return.
 */
const LAST_USED_SLACK_MS = HOUR_MS;

/** Whether a run's tries take ids the store derives (`appendRun`) or keep their own (`appendKept`). */
type RunIds = 'derive' | 'keep';

interface Appended {
  readonly stored: CheckResultDocument[];
  /** How many tries were new (a try whose id was stored already is left alone). */
  readonly inserted: number;
}

interface StoredRow {
  created_ms: number;
  id_key: Buffer;
  run_location: string;
  flags: number;
  packed: Buffer;
  ref: number | null;
  ref_created_ms: number | null;
  ref_doc: Buffer | null;
}

/** The columns `facts` reads (store/formats/result-facts.ts `FactTuple`, the rest of it packed). */
interface FactColumns {
  id_key: Buffer;
  created_ms: number;
  flags: number;
  run_location: string;
  packed: Buffer;
}

/** The columns of a row (the engine's `r`) that its document is decoded from. */
const ROW_COLUMNS = sql`r.created_ms, r.id_key, r.run_location, r.flags, r.packed, r.ref`;
const READ_COLUMNS = sql`${ROW_COLUMNS}, f.created_ms AS ref_created_ms, f.doc AS ref_doc`;
/** Checks whose series key a replica keeps (about 100 bytes each). */
const SERIES_KEYS_KEPT = 50_000;

export class PostgresCheckResults implements CheckResults {
  readonly #db: Kysely<PostgresSchema>;
  /** Where partitions are made: the pool, in a transaction of their own, even when `#db` is a unit's. */
  readonly #pool: Kysely<PostgresSchema>;
  readonly #codec: ResultRowCodec;
  /** Days this replica knows have a partition (another replica's prune can drop one: see appendRun). */
  readonly #days: Set<number>;
  /** By check series, the block this replica last packed the check's rows before (postgres/packed-results.ts). */
  readonly #packedBefore: Map<number, number>;
  /**
   * Series keys by account and check, as read through the pool: a series row is never changed nor
   * deleted, so an API read of a check's results looks its key up once, not at every request. Never
   * kept from a unit's reads, which may see a series its transaction made and then rolls back.
   */
  readonly #seriesKeys = new BoundedMap<string, number>(SERIES_KEYS_KEPT);
  /** Location names by key as last read through the pool: keys are only ever added, so one a row names that is not here is read anew. */
  #locationNames: ReadonlyMap<string, string> = new Map();

  /**
   * `db`: the pool, or a unit of work's transaction, with `options.pool` the pool (a day's partition
   * is made and attached in a short transaction of its own, never held until the unit commits) and
   * `options.days` and `options.codec` the pool's instance's days known and parsed references, shared.
   */
  constructor(db: Kysely<PostgresSchema>, options: { referenceRows?: number; pool?: Kysely<PostgresSchema>; days?: Set<number>; packedBefore?: Map<number, number>; codec?: ResultRowCodec } = {}) {
    this.#db = db;
    this.#pool = options.pool ?? db;
    this.#days = options.days ?? new Set();
    this.#packedBefore = options.packedBefore ?? new Map();
    this.#codec = options.codec ?? new ResultRowCodec(options);
  }

  /** The same port inside a unit of work: writes through `tx`, shares this one's days known and references parsed. */
  inUnit(tx: Kysely<PostgresSchema>): PostgresCheckResults {
    return new PostgresCheckResults(tx, { pool: this.#pool, days: this.#days, packedBefore: this.#packedBefore, codec: this.#codec });
  }

  async prepareDays(fromMs: number, toMs: number): Promise<void> {
    checkPreparedDays(fromMs, toMs);
    const days: number[] = [];
    for (let day = dayOf(fromMs); day <= dayOf(toMs); day += DAY_MS) days.push(day);
    await this.#ensureDays(days);
  }

  async #ensureDays(days: readonly number[]): Promise<void> {
    const missing = days.filter((day) => !this.#days.has(day));
    if (missing.length === 0) return;
    await this.#pool.transaction().execute(async (tx) => {
      await sql`SELECT pg_advisory_xact_lock(${PARTITION_LOCK.toString()}::bigint)`.execute(tx);
      const attached = new Set((await this.#partitions(tx)).map((partition) => partition.name));
      for (const day of missing) {
        const name = partitionName(day);
        if (attached.has(name)) continue;
        // A table of that name left detached by an interrupted prune is attached again: its rows go at the next prune.
        await sql.raw(`CREATE TABLE IF NOT EXISTS ${name} (LIKE check_results INCLUDING DEFAULTS)`).execute(tx);
        await sql.raw(`ALTER TABLE check_results ATTACH PARTITION ${name} FOR VALUES FROM (${day}) TO (${day + DAY_MS})`).execute(tx);
      }
    });
    for (const day of missing) this.#days.add(day);
  }

  async #partitions(db: QueryExecutorProvider): Promise<Array<{ name: string; pending: boolean }>> {
    const { rows } = await sql<{ name: string; pending: boolean }>`
      SELECT c.relname AS name, i.inhdetachpending AS pending FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'check_results'::regclass`.execute(db);
    return rows;
  }

  async appendRun(accountId: string, tries: readonly CheckResultDocument[]): Promise<CheckResultDocument[]> {
    checkResultRun(accountId, tries);
    return (await this.#appendPrepared(accountId, tries, 'derive')).stored;
  }

  async appendKept(accountId: string, result: CheckResultDocument): Promise<boolean> {
    checkResultRun(accountId, [result]);
    return (await this.#appendPrepared(accountId, [result], 'keep')).inserted > 0;
  }

  /** Appends on days with a partition: made first when missing, and again when another replica pruned one this one still counted as there. */
  async #appendPrepared(accountId: string, tries: readonly CheckResultDocument[], ids: RunIds): Promise<Appended> {
    const days = [...new Set(tries.map((tried) => dayOf(Date.parse(tried.created_at))))];
    await this.#ensureDays(days);
    try {
      return await this.#appendOnce(accountId, tries, ids);
    } catch (error) {
      if (!NO_PARTITION.includes((error as { code?: unknown }).code as string)) throw error;
      for (const day of days) this.#days.delete(day);
      await this.#ensureDays(days);
      // Without a savepoint the unit's transaction is aborted: it fails, and the next append finds its day.
      if (this.#db.isTransaction && !needsSavepoint(days)) throw error;
      return this.#appendOnce(accountId, tries, ids);
    }
  }

  /**
   * In a transaction of its own, or inside a unit's in a savepoint: a failed statement aborts the
   * whole transaction, and only the savepoint lets the unit go on to append again after the missing
   * day is made. A run of today (nearly every run: one that just ended) goes without the savepoint
   * (`needsSavepoint`).
   */
  async #appendOnce(accountId: string, tries: readonly CheckResultDocument[], ids: RunIds): Promise<Appended> {
    if (!this.#db.isTransaction) return this.#db.transaction().execute((tx) => this.#append(tx, accountId, tries, ids));
    const tx = this.#db as Transaction<PostgresSchema>;
    if (!needsSavepoint(tries.map((tried) => dayOf(Date.parse(tried.created_at))))) return this.#append(tx, accountId, tries, ids);
    await sql`SAVEPOINT vigil_append`.execute(tx);
    try {
      const appended = await this.#append(tx, accountId, tries, ids);
      await sql`RELEASE SAVEPOINT vigil_append`.execute(tx);
      return appended;
    } catch (error) {
      await sql`ROLLBACK TO SAVEPOINT vigil_append`.execute(tx);
      throw error;
    }
  }

  async #append(tx: Transaction<PostgresSchema>, accountId: string, tries: readonly CheckResultDocument[], ids: RunIds): Promise<Appended> {
    const checkId = tries[0]!.checkId;
    const series = await this.#lockedSeries(tx, accountId, checkId);
    const locationKeys = await this.#locationKeys(tx, [...new Set(tries.map((tried) => tried.runLocation))]);
    const instants = [...new Set(tries.map((tried) => Date.parse(tried.created_at)))];
    const taken = new Map<number, number[]>();
    /** Ids derived here from the discriminators read under the series' lock: free by construction, never probed. */
    const derivedHere = new Set<string>();
    // The derived ids taken at the run's instants and the series' current reference, in one statement
    // (a round trip fewer a run): read after the series' lock, so no other append changes either
    // until this transaction ends. One row at least, the reference's columns on each.
    const { rows: found } = await sql<{ created_ms: number | null; id_key: Buffer | null; key: number | null; uses: number; ref_created_ms: number; doc: Buffer }>`
      SELECT t.created_ms, t.id_key, c.key, c.uses, c.created_ms AS ref_created_ms, c.doc
        FROM (VALUES (1)) AS one (x)
        LEFT JOIN (SELECT key, uses, created_ms, doc FROM check_results_references WHERE series = ${series} AND current) c ON true
        LEFT JOIN (SELECT created_ms, id_key FROM ${seriesRows(series, { fromMs: Math.min(...instants), toMs: Math.max(...instants) + 1 })} r
                    WHERE created_ms = ANY(${instants}::bigint[]) AND id_key < ${EXPLICIT_ID}) t ON true`.execute(tx);
    for (const row of found) if (row.created_ms !== null) taken.set(row.created_ms, [...(taken.get(row.created_ms) ?? []), rowKeyOf(row.id_key!) as number]);
    const head = found[0]!;
    /** The current reference as read with the ids, until this append's first row (which may replace it) is inserted. */
    let currentAsRead: { reference: CurrentReference | undefined } | undefined = {
      reference: head.key === null ? undefined : { key: head.key, uses: head.uses, created_ms: head.ref_created_ms, doc: head.doc },
    };
    const toStore: CheckResultDocument[] = [];
    const stored = storeRunTries(
      tries,
      (_tried, createdMs) => {
        if (ids === 'keep') return undefined;
        const id = freeDerivedId(checkId, createdMs, taken.get(createdMs) ?? []);
        if (id !== undefined) derivedHere.add(id);
        return id;
      },
      (result) => {
        const createdMs = Date.parse(result.created_at);
        const derived = parseDerivedId(checkId, result.id);
        if (derived && derived.createdMs === createdMs) taken.set(createdMs, [...(taken.get(createdMs) ?? []), derived.k]);
        toStore.push(result);
      },
    );
    // A lock on a table this transaction has not yet locked in that mode makes it take in the catalog
    // changes committed since, a day's partition just attached by the pool among them: a transaction's
    // first insert into `check_results` routes by the partitions there now (#ensureDays made the
    // day's before this append). One that inserted before (a unit that appended to another day, or
    // this append again after its day was made anew) holds that lock already and would route by what
    // it knew then, finding no partition: it locks each day's partition first. A run's unit appends
    // once, so a run costs no LOCK statement.
    if (insertedIn.has(tx)) {
      for (const day of new Set(toStore.map((result) => dayOf(Date.parse(result.created_at))))) {
        await sql`LOCK TABLE ${sql.table(partitionName(day))} IN ROW EXCLUSIVE MODE`.execute(tx);
      }
    }
    insertedIn.add(tx);
    let inserted = 0;
    for (const result of toStore) {
      if (!derivedHere.has(result.id) && (await this.#stored(tx, series, checkId, result.id))) continue;
      inserted += 1;
      const current = currentAsRead ? currentAsRead.reference : (await sql<CurrentReference>`SELECT key, uses, created_ms, doc FROM check_results_references WHERE series = ${series} AND current`.execute(tx)).rows[0];
      currentAsRead = undefined;
      const { columns, reference } = this.#codec.plan(reducePassing(result) as CheckResultDocument, current);
      let ref: number | null = null;
      if (reference !== null && 'current' in reference) ref = reference.current;
      else if (reference !== null) {
        if (current) await sql`UPDATE check_results_references SET current = false WHERE key = ${current.key}`.execute(tx);
        ref = (
          await sql<{ key: number }>`INSERT INTO check_results_references (series, created_ms, current, uses, last_used_ms, doc)
            VALUES (${series}, ${reference.fresh.createdMs}, true, 0, ${reference.fresh.createdMs}, ${reference.fresh.raw}) RETURNING key`.execute(tx)
        ).rows[0]!.key;
        this.#codec.remember(ref, reference.fresh);
      }
      await sql`INSERT INTO check_results (created_ms, series, ref, flags, run_location, id_key, packed)
        VALUES (${columns.createdMs}, ${series}, ${ref}, ${rowFlags(columns.final, columns.hasFailures, ENCODING_V2)}, ${locationKeys.get(columns.runLocation)!}, ${idKeyBytes(columns.id)},
                ${packResultFields(columns)})`.execute(tx);
      if (ref !== null) {
        await sql`UPDATE check_results_references SET uses = uses + 1,
          last_used_ms = CASE WHEN ${columns.createdMs}::bigint > last_used_ms + ${LAST_USED_SLACK_MS} THEN ${columns.createdMs}::bigint ELSE last_used_ms END WHERE key = ${ref}`.execute(tx);
      }
      if (result['resultType'] !== 'ATTEMPT') await this.#rollUp(tx, series, rollupFactOf(result));
    }
    // The first append in a later block packs the check's rows of the blocks before it.
    const block = blockOf(Math.max(...instants));
    if (inserted > 0 && this.#packedBefore.get(series) !== block) {
      await packBefore(tx, series, block);
      this.#packedBefore.set(series, block);
    }
    return { stored: stored.map(asStored), inserted };
  }

  /**
   * The check's series, its row locked until the transaction ends: appends of one check one after the
   * other. Looked for first, as it is there for every result but a check's first (an INSERT … ON
   * CONFLICT first would be a statement more per result, and take a key from the sequence each time).
   */
  async #lockedSeries(tx: Transaction<PostgresSchema>, accountId: string, checkId: string): Promise<number> {
    const locked = sql<{ key: number }>`SELECT key FROM result_series WHERE account_id = ${accountId} AND check_id = ${checkId} FOR UPDATE`;
    const existing = (await locked.execute(tx)).rows[0];
    if (existing) return existing.key;
    await sql`INSERT INTO result_series (account_id, check_id) VALUES (${accountId}, ${checkId}) ON CONFLICT DO NOTHING`.execute(tx);
    return (await locked.execute(tx)).rows[0]!.key;
  }

  /**
   * The keys rows keep `names` by, made for new names. A key never changes once committed, so the
   * keys found committed are kept in memory (`committedLocationKeys`) and a run at a known location
   * costs no statement; a key this transaction made itself is not kept, as the transaction may yet
   * roll back.
   */
  async #locationKeys(tx: Transaction<PostgresSchema>, names: readonly string[]): Promise<ReadonlyMap<string, string>> {
    let known = committedLocationKeys.get(this.#pool);
    if (!known) committedLocationKeys.set(this.#pool, (known = new Map()));
    // In one order, so two appends adding the same new locations never wait on each other crosswise.
    const missing = names.filter((name) => !known.has(name)).sort();
    if (missing.length === 0) return known;
    const made = await sql<{ name: string }>`INSERT INTO check_results_locations (name) SELECT unnest(${missing}::text[]) ORDER BY 1 ON CONFLICT (name) DO NOTHING RETURNING name`.execute(tx);
    const madeHere = new Set(made.rows.map((row) => row.name));
    const keys = new Map(known);
    for (const row of (await sql<{ key: number; name: string }>`SELECT key, name FROM check_results_locations WHERE name = ANY(${missing}::text[])`.execute(tx)).rows) {
      keys.set(row.name, String(row.key));
      if (!madeHere.has(row.name)) known.set(row.name, String(row.key));
    }
    return keys;
  }

  /** Whether result `id` of the check is stored, whichever way its id is kept. */
  async #stored(db: QueryExecutorProvider, series: number, checkId: string, id: string): Promise<boolean> {
    return (await this.#rowOf(db, series, checkId, id)) !== undefined;
  }

  async #rowOf(db: QueryExecutorProvider, series: number, checkId: string, id: string): Promise<StoredRow | undefined> {
    const derived = parseDerivedId(checkId, id);
    if (derived) {
      const { rows } = await sql<StoredRow>`SELECT ${READ_COLUMNS} FROM ${seriesRows(series, { fromMs: derived.createdMs, toMs: derived.createdMs + 1 })} r
        LEFT JOIN check_results_references f ON f.key = r.ref WHERE r.id_key = ${idKeyBytes(derived.k)}`.execute(db);
      if (rows[0]) return rows[0];
    }
    // An id the store did not derive is never packed (postgres/packed-results.ts): one probe of its partial index.
    const { rows } = await sql<StoredRow>`SELECT ${READ_COLUMNS} FROM check_results r LEFT JOIN check_results_references f ON f.key = r.ref
      WHERE r.series = ${series} AND r.id_key = ${idKeyBytes(idKey(id))} AND r.id_key >= ${EXPLICIT_ID}`.execute(db);
    return rows[0];
  }

  async #rollUp(db: QueryExecutorProvider, series: number, fact: ReturnType<typeof rollupFactOf>): Promise<void> {
    const rt = fact.responseTime;
    const bucket = rt === null ? null : bucketOf(rt);
    // The histogram an integer[] subscripted by bucket (step 31): a new row's one bucket, or one more in a row's.
    const histogram = bucket === null ? sql`'{}'::integer[]` : sql`array_fill(1, ARRAY[1], ARRAY[${bucket}::integer])`;
    const counted = bucket === null ? sql`` : sql`,
          rt_hist[${bucket}::integer] = COALESCE(r.rt_hist[${bucket}::integer], 0) + 1`;
    const upsert = ({ table, spanMs }: (typeof ROLLUPS)[RollupGranularity]) => sql`INSERT INTO ${sql.table(table)} AS r (series, start_ms, location, results, failures, degraded, attempts, rt_count, rt_sum, rt_sq_sum, rt_min, rt_max, rt_hist)
        VALUES (${series}, ${Math.floor(fact.createdMs / spanMs) * spanMs}, ${fact.location}, 1, ${fact.failed ? 1 : 0}, ${fact.degraded ? 1 : 0}, ${fact.attempts},
                ${rt === null ? 0 : 1}, ${rt ?? 0}, ${rt === null ? 0 : rt * rt}, ${rt}, ${rt}, ${histogram})
        ON CONFLICT (series, start_ms, location) DO UPDATE SET
          results = r.results + 1,
          failures = r.failures + excluded.failures,
          degraded = r.degraded + excluded.degraded,
          attempts = r.attempts + excluded.attempts,
          rt_count = r.rt_count + excluded.rt_count,
          rt_sum = r.rt_sum + excluded.rt_sum,
          rt_sq_sum = r.rt_sq_sum + excluded.rt_sq_sum,
          rt_min = LEAST(r.rt_min, excluded.rt_min),
          rt_max = GREATEST(r.rt_max, excluded.rt_max)${counted}`;
    // Both in one statement, a round trip fewer per result: an INSERT in a WITH runs once, to its end,
    // whether or not anything reads it.
    await sql`WITH hourly AS (${upsert(ROLLUPS.hourly)}) ${upsert(ROLLUPS.daily)}`.execute(db);
  }

  async #series(accountId: string, checkId: string): Promise<number | undefined> {
    const throughPool = this.#db === this.#pool;
    const cacheKey = `${accountId}\u0000${checkId}`;
    const known = throughPool ? this.#seriesKeys.get(cacheKey) : undefined;
    if (known !== undefined) return known;
    const { rows } = await sql<{ key: number }>`SELECT key FROM result_series WHERE account_id = ${accountId} AND check_id = ${checkId}`.execute(this.#db);
    const key = rows[0]?.key;
    if (throughPool && key !== undefined) this.#seriesKeys.set(cacheKey, key);
    return key;
  }

  /** Location names by the key rows keep: read again only when one of `rows` names a key not known yet, or inside a unit. */
  async #locations(rows: readonly { readonly flags: number; readonly run_location: string }[]): Promise<ReadonlyMap<string, string>> {
    const throughPool = this.#db === this.#pool;
    const known = this.#locationNames;
    if (throughPool && rows.every((row) => encodingOf(row.flags) !== ENCODING_V2 || known.has(row.run_location))) return known;
    const read = await sql<{ key: number; name: string }>`SELECT key, name FROM check_results_locations`.execute(this.#db);
    const locations = new Map(read.rows.map((row) => [String(row.key), row.name]));
    if (throughPool) this.#locationNames = locations;
    return locations;
  }

  async #documents(checkId: string, rows: readonly StoredRow[]): Promise<CheckResultDocument[]> {
    if (rows.length === 0) return [];
    const locations = await this.#locations(rows);
    return rows.map((row) => {
      const { responseTime, phases, body } = unpackResultFields(row.packed);
      const docRow: DocRow = { id: rowKeyOf(row.id_key), created_ms: row.created_ms, run_location: row.run_location, response_time: responseTime, phases, encoding: encodingOf(row.flags), ref: row.ref, body };
      const reference = row.ref_doc === null ? undefined : { created_ms: row.ref_created_ms!, doc: row.ref_doc };
      return this.#codec.decode(checkId, docRow, locations, () => reference) as CheckResultDocument;
    });
  }

  /** The rows of `series` meeting the filter, as conditions on `r`: a location by the key rows keep it as, or by its name in rows of the first encoding. */
  async #meeting(series: number, filter: ResultFilter): Promise<RawBuilder<unknown>> {
    const conditions = [sql`r.series = ${series}`];
    if (filter.fromMs !== undefined) conditions.push(sql`r.created_ms >= ${filter.fromMs}`);
    if (filter.toMs !== undefined) conditions.push(sql`r.created_ms < ${filter.toMs}`);
    if (filter.resultType !== undefined) conditions.push(sql`r.flags & ${FINAL_FLAG} = ${filter.resultType === 'FINAL' ? FINAL_FLAG : 0}`);
    if (filter.hasFailures !== undefined) conditions.push(sql`r.flags & ${FAILURES_FLAG} = ${filter.hasFailures ? FAILURES_FLAG : 0}`);
    if (filter.location !== undefined) {
      const { rows } = await sql<{ key: number }>`SELECT key FROM check_results_locations WHERE name = ${filter.location}`.execute(this.#db);
      const key = rows[0] === undefined ? null : String(rows[0].key);
      conditions.push(sql`(CASE WHEN r.flags & ${ENCODING_V1_FLAG} = 0 THEN r.run_location = ${key}::text ELSE r.run_location = ${filter.location} END)`);
    }
    return sql.join(conditions, sql` AND `);
  }

  async newestFirst(accountId: string, checkId: string, page: ResultFilter & { readonly limit: number; readonly offset?: number | undefined; readonly before?: ResultCursor | undefined }): Promise<CheckResultDocument[]> {
    checkResultPage(accountId, checkId, page);
    const series = await this.#series(accountId, checkId);
    if (series === undefined) return [];
    const before = page.before ?? { createdMs: Number.MAX_SAFE_INTEGER, id: '' };
    const position = idKeyBytes(columnKey(checkId, before.id, before.createdMs));
    // The page's rows are picked first and only they are joined to their reference: the rows an
    // offset skips would otherwise each look up theirs.
    const { rows } = await sql<StoredRow>`SELECT ${READ_COLUMNS}
      FROM (SELECT ${ROW_COLUMNS} FROM ${seriesRows(series, { fromMs: page.fromMs, toMs: Math.min(page.toMs ?? Number.MAX_SAFE_INTEGER, before.createdMs + 1) })} r
        WHERE ${await this.#meeting(series, page)} AND (r.created_ms, r.id_key) < (${before.createdMs}, ${position})
        ORDER BY r.created_ms DESC, r.id_key DESC LIMIT ${page.limit} OFFSET ${page.offset ?? 0}) r
      LEFT JOIN check_results_references f ON f.key = r.ref
      ORDER BY r.created_ms DESC, r.id_key DESC`.execute(this.#db);
    return this.#documents(checkId, rows);
  }

  async oldestFirst(accountId: string, checkId: string, query: ResultFilter & { readonly page: number; readonly limit: number }): Promise<{ items: CheckResultDocument[]; total: number }> {
    checkResultWindowPage(accountId, checkId, query);
    const series = await this.#series(accountId, checkId);
    if (series === undefined) return { items: [], total: 0 };
    const meeting = await this.#meeting(series, query);
    const rows = seriesRows(series, query);
    const offset = (query.page - 1) * query.limit;
    // The count and the page in one statement: one round trip, one snapshot. Past the last page the
    // count still comes back, on one row without a result.
    const { rows: read } = await sql<{ [column in keyof StoredRow]: StoredRow[column] | null } & { total: number | string }>`
      SELECT counted.total, page.created_ms, page.id_key, page.run_location, page.flags, page.packed, page.ref, page.ref_created_ms, page.ref_doc
      FROM (SELECT COUNT(*) AS total FROM ${rows} r WHERE ${meeting}) AS counted
      LEFT JOIN LATERAL (SELECT ${READ_COLUMNS} FROM ${rows} r LEFT JOIN check_results_references f ON f.key = r.ref
        WHERE ${meeting} ORDER BY r.created_ms, r.id_key LIMIT ${query.limit} OFFSET ${offset}) AS page ON true
      ORDER BY page.created_ms, page.id_key`.execute(this.#db);
    const total = Number(read[0]!.total);
    const page = read.filter((row): row is typeof row & StoredRow => row.created_ms !== null);
    return { items: await this.#documents(checkId, page), total };
  }

  async find(accountId: string, checkId: string, id: string): Promise<CheckResultDocument | undefined> {
    checkResultKey(accountId, checkId, id);
    const series = await this.#series(accountId, checkId);
    const row = series === undefined ? undefined : await this.#rowOf(this.#db, series, checkId, id);
    return row && (await this.#documents(checkId, [row]))[0];
  }

  async facts(accountId: string, checkId: string, fromMs: number, toMs: number): Promise<ResultFacts[]> {
    checkFactRange(accountId, checkId, fromMs, toMs);
    const series = await this.#series(accountId, checkId);
    if (series === undefined) return [];
    const { rows } = await sql<FactColumns>`SELECT id_key, created_ms, flags, run_location, packed
      FROM ${seriesRows(series, { fromMs, toMs })} r ORDER BY created_ms`.execute(this.#db);
    if (rows.length === 0) return [];
    const locations = await this.#locations(rows);
    return rows.map((row) => {
      const packed = unpackResultFields(row.packed);
      const tuple: FactTuple = [
        rowKeyOf(row.id_key), row.created_ms, row.flags & FINAL_FLAG ? 1 : 0, row.flags & FAILURES_FLAG ? 1 : 0, row.run_location,
        packed.attempts, packed.responseTime, packed.statusCode, packed.phases, encodingOf(row.flags),
      ];
      return new RowFacts(checkId, tuple, locations);
    });
  }

  async rollups(accountId: string, checkId: string, granularity: RollupGranularity, fromMs: number, toMs: number): Promise<RolledUpResults[]> {
    checkRollupRange(accountId, checkId, granularity, fromMs, toMs);
    const series = await this.#series(accountId, checkId);
    if (series === undefined) return [];
    const { table, spanMs } = ROLLUPS[granularity];
    const { rows } = await sql<Parameters<typeof rolledUpOf>[0]>`
      SELECT start_ms, location, results, failures, degraded, attempts, rt_count, rt_sum, rt_sq_sum, rt_min, rt_max, ${ROLLUP_HISTOGRAM_JSON} AS rt_hist
        FROM ${sql.table(table)} WHERE series = ${series} AND start_ms >= ${fromMs} AND start_ms < ${toMs} ORDER BY start_ms, location COLLATE "C"`.execute(this.#db);
    return rows.map((row) => rolledUpOf(row, spanMs));
  }

  async dailyTotals(accountId: string, checkIds: readonly string[], fromMs: number, toMs: number): Promise<Map<string, DailyResultTotals[]>> {
    checkDailyTotals(accountId, checkIds, fromMs, toMs);
    const byCheck = new Map<string, DailyResultTotals[]>();
    if (checkIds.length === 0) return byCheck;
    const { rows } = await sql<{ check_id: string; start_ms: number; results: number; failures: number }>`
      SELECT s.check_id, r.start_ms, SUM(r.results)::bigint AS results, SUM(r.failures)::bigint AS failures
        FROM result_series s JOIN result_rollups_daily r ON r.series = s.key
       WHERE s.account_id = ${accountId} AND s.check_id = ANY(${[...checkIds]}::text[]) AND r.start_ms >= ${fromMs} AND r.start_ms < ${toMs}
       GROUP BY s.check_id, r.start_ms`.execute(this.#db);
    for (const row of rows) {
      let days = byCheck.get(row.check_id);
      if (!days) byCheck.set(row.check_id, (days = []));
      days.push({ startMs: row.start_ms, results: row.results, failures: row.failures });
    }
    return byCheck;
  }

  async prune(nowMs: number, retention: ResultRetention): Promise<PrunedBefore> {
    checkRetention(nowMs, retention);
    const cutoffs = pruneCutoffs(nowMs, retention);
    // DETACH … CONCURRENTLY runs outside a transaction, so the lock that keeps two replicas from
    // detaching the same day is a session lock on this one connection.
    const prunedRaw = await this.#db.connection().execute(async (connection) => {
      const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_lock(${PRUNE_LOCK.toString()}::bigint) AS locked`.execute(connection);
      if (!rows[0]!.locked) return false;
      try {
        await this.#pruneRaw(connection, cutoffs.rawMs);
        await prunePacked(connection, cutoffs.rawMs);
        return true;
      } finally {
        await sql`SELECT pg_advisory_unlock(${PRUNE_LOCK.toString()}::bigint)`.execute(connection);
      }
    });
    // A replica that found another pruning leaves the raw horizon and the references to it: rows older
    // than the cutoff may still be there, and a row whose reference is gone could not be read.
    if (prunedRaw) {
      await this.#advanceHorizon('raw', cutoffs.rawMs);
      await this.#deleteInBatches(sql`DELETE FROM check_results_references WHERE key IN (
        SELECT key FROM check_results_references WHERE NOT current AND last_used_ms < ${cutoffs.rawMs - LAST_USED_SLACK_MS} LIMIT ${PRUNE_BATCH})`);
    }
    for (const granularity of ['hourly', 'daily'] as const) {
      const cutoff = cutoffs[`${granularity}Ms`];
      const table = sql.table(ROLLUPS[granularity].table);
      await this.#deleteInBatches(sql`DELETE FROM ${table} WHERE (series, start_ms, location) IN (
        SELECT series, start_ms, location FROM ${table} WHERE start_ms < ${cutoff} LIMIT ${PRUNE_BATCH})`);
      await this.#advanceHorizon(granularity, cutoff);
    }
    return (await this.horizons()) as PrunedBefore;
  }

  /** Drops the days that ended by `cutoffMs`, then deletes the rows of the day it falls in that are older. */
  async #pruneRaw(connection: QueryExecutorProvider, cutoffMs: number): Promise<void> {
    const boundaryDay = dayOf(cutoffMs);
    let boundary: string | undefined;
    for (const partition of await this.#partitions(connection)) {
      const day = dayOfPartition(partition.name);
      if (day === undefined) continue;
      if (day === boundaryDay && !partition.pending) boundary = partition.name;
      if (day + DAY_MS > cutoffMs) continue;
      const mode = partition.pending ? 'FINALIZE' : 'CONCURRENTLY';
      await sql.raw(`ALTER TABLE check_results DETACH PARTITION ${partition.name} ${mode}`).execute(connection);
      await sql.raw(`DROP TABLE ${partition.name}`).execute(connection);
      this.#days.delete(day);
    }
    if (boundary === undefined || cutoffMs === boundaryDay) return;
    // The partition by name: the statement touches that one table, and ctid means one row in it.
    const partition = sql.table(boundary);
    const batch = sql`DELETE FROM ${partition} WHERE ctid IN (SELECT ctid FROM ${partition} WHERE created_ms < ${cutoffMs} LIMIT ${PRUNE_BATCH})`;
    while (Number((await batch.execute(connection)).numAffectedRows ?? 0) > 0);
  }

  async #deleteInBatches(statement: ReturnType<typeof sql>): Promise<void> {
    while (Number((await statement.execute(this.#db)).numAffectedRows ?? 0) > 0);
  }

  /** Only ever forward: after a longer retention is configured, what was deleted stays deleted. */
  async #advanceHorizon(name: 'raw' | RollupGranularity, beforeMs: number): Promise<void> {
    await sql`INSERT INTO rollup_horizons (name, before_ms) VALUES (${name}, ${beforeMs})
      ON CONFLICT (name) DO UPDATE SET before_ms = GREATEST(rollup_horizons.before_ms, excluded.before_ms)`.execute(this.#db);
  }

  async horizons(): Promise<{ raw?: number; hourly?: number; daily?: number }> {
    const { rows } = await sql<{ name: 'raw' | RollupGranularity; before_ms: number }>`SELECT name, before_ms FROM rollup_horizons`.execute(this.#db);
    const horizons: { raw?: number; hourly?: number; daily?: number } = {};
    for (const row of rows) horizons[row.name] = row.before_ms;
    return horizons;
  }
}
