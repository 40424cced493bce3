/**
 * The body of PostgreSQL migration step 27 (migrations.ts), in a file of its own because it converts
 * rows in JavaScript (the packed column is store/formats/packed-result-fields.ts's). Like every shipped
 * step it must not change once databases have run it: a later change of layout is a new step.
 *
 * What changes, and why (the disk-growth bench suite measures it): a result row of step 8 took some
 * 140 bytes of heap and 55 of primary-key index, where SQLite's takes about 85 in all.
 * - attempts, response time and status code (doubles, 8 bytes each), the phases (two columns), the
 *   body are one `packed` bytea; final, has_failures and the encoding one `flags`
 *   smallint (bit 0 final, bit 1 has failures, bit 2 ENCODING_V1). Seven columns: a row with a NULL
 *   (a full-body row has no `ref`) then needs no longer header than one without.
 * - `series` and `ref` are integers (keys of result_series and check_results_references, which count
 *   from 1 and gain a row per check and per thousand results).
 * - `id_key` of a derived id with discriminator 0 (nearly every row) is empty, still sorting first.
 * - The primary key (series, created_ms, id_key) becomes an index on (series, created_ms): the id made
 *   its entries 8 bytes longer, and uniqueness is the engine's (appends of a check are serialised by
 *   the row lock of its series, and an id already stored is not appended again).
 * - The rollups and references, which every result updates, get a fillfactor of 50, so an update finds
 *   room on its row's page and stays a HOT update (no new index entries, its old version pruned in
 *   place) rather than leaving a dead row version behind on every page it moves off.
 */
import { sql, type QueryExecutorProvider } from 'kysely';
import { packResultFields } from '../formats/packed-result-fields.js';

/** Rows converted per statement. */
const BATCH = 5000;

interface StepEightRow {
  series: number;
  created_ms: number;
  id_key: Buffer;
  final: number;
  has_failures: number;
  run_location: string;
  attempts: number;
  response_time: number | null;
  status_code: number | null;
  phases: Buffer | null;
  phases_json: string | null;
  encoding: number;
  body: Buffer;
  ref: number | null;
}

export async function narrowResultRows(tx: QueryExecutorProvider): Promise<void> {
  for (const text of [
    'ALTER TABLE check_results RENAME TO check_results_step8',
    'ALTER INDEX check_results_pkey RENAME TO check_results_step8_pkey',
    'ALTER INDEX check_results_explicit_id RENAME TO check_results_step8_explicit_id',
    `CREATE TABLE check_results (
      created_ms BIGINT NOT NULL,
      series INTEGER NOT NULL,
      ref INTEGER,
      flags SMALLINT NOT NULL,
      run_location TEXT NOT NULL,
      id_key BYTEA NOT NULL,
      packed BYTEA NOT NULL
    ) PARTITION BY RANGE (created_ms)`,
    'CREATE INDEX check_results_series_time ON check_results (series, created_ms)',
    "CREATE INDEX check_results_explicit_id ON check_results (series, id_key) WHERE id_key >= '\\x01'::bytea",
    'ALTER TABLE check_results_references SET (fillfactor = 50)',
    'ALTER TABLE result_rollups_hourly SET (fillfactor = 50)',
    'ALTER TABLE result_rollups_daily SET (fillfactor = 50)',
  ]) {
    await sql.raw(text).execute(tx);
  }
  const { rows: partitions } = await sql<{ name: string; bound: string; pending: boolean }>`
    SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound, i.inhdetachpending AS pending
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'check_results_step8'::regclass`.execute(tx);
  for (const partition of partitions) {
    const old = `${partition.name}_step8`;
    await sql.raw(`ALTER TABLE ${partition.name} RENAME TO ${old}`).execute(tx);
    // A day a prune was detaching is past the retention: its rows go rather than move.
    if (!partition.pending) {
      await sql.raw(`CREATE TABLE ${partition.name} (LIKE check_results INCLUDING DEFAULTS)`).execute(tx);
      await copyRows(tx, old, partition.name);
      await sql.raw(`ALTER TABLE check_results ATTACH PARTITION ${partition.name} ${partition.bound}`).execute(tx);
    }
    await sql.raw(`DROP TABLE ${old}`).execute(tx);
  }
  await sql.raw('DROP TABLE check_results_step8').execute(tx);
}

/** Copies a day's rows in the new layout, in batches by the old primary key. */
async function copyRows(tx: QueryExecutorProvider, from: string, to: string): Promise<void> {
  let after: { series: number; createdMs: number; idKey: Buffer } | undefined;
  for (;;) {
    const position = after === undefined ? sql`true` : sql`(series, created_ms, id_key) > (${after.series}, ${after.createdMs}, ${after.idKey})`;
    const { rows } = await sql<StepEightRow>`SELECT * FROM ${sql.table(from)} WHERE ${position} ORDER BY series, created_ms, id_key LIMIT ${BATCH}`.execute(tx);
    if (rows.length === 0) return;
    const flags = rows.map((row) => (row.final === 1 ? 1 : 0) | (row.has_failures === 1 ? 2 : 0) | (row.encoding === 1 ? 4 : 0));
    // A derived id's key with discriminator 0 ([0, 0, 0]) is kept empty.
    const idKeys = rows.map((row) => (row.id_key.length === 3 && row.id_key[0] === 0 && row.id_key[1] === 0 && row.id_key[2] === 0 ? Buffer.alloc(0) : row.id_key));
    const packed = rows.map((row) =>
      packResultFields({ attempts: row.attempts, responseTime: row.response_time, statusCode: row.status_code, phases: row.phases ?? row.phases_json, body: row.body }),
    );
    await sql`INSERT INTO ${sql.table(to)} (created_ms, series, ref, flags, run_location, id_key, packed)
      SELECT * FROM unnest(${rows.map((row) => row.created_ms)}::bigint[], ${rows.map((row) => row.series)}::integer[], ${rows.map((row) => row.ref)}::integer[],
                           ${flags}::smallint[], ${rows.map((row) => row.run_location)}::text[], ${idKeys}::bytea[], ${packed}::bytea[])`.execute(tx);
    const last = rows.at(-1)!;
    after = { series: last.series, createdMs: last.created_ms, idKey: last.id_key };
  }
}
