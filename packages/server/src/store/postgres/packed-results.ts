/**
 * Packed results on PostgreSQL (migration steps 29 and 30): a check's results of a five-minute block,
 * once the block is over, live in one row of `check_results_packed` holding each column of those rows
 * as an array, rather than a row each in the day's partition of `check_results`.
 *
 * Why: a row per result pays about 28 bytes of tuple header and line pointer and 28 of index entry
 * before its data, so a result could not take less than some 120 bytes; a block's row pays that once
 * for its results (about 15 of a check run every 20 s).
 *
 * A block's row (under 1 kB for 15 results) is not compressed: PostgreSQL compresses only rows over
 * its TOAST threshold of about 2 kB, whatever the table's `toast_tuple_target` (set, with the arrays'
 * storage MAIN, for blocks that do pass it: compressed in the row rather than moved out of line). So
 * the layout is made small uncompressed (step 30):
 * - `offset_ms`: each result's `created_ms` less the block's `start_ms`, 4 bytes where an int8 took 8;
 * - every other column holds ONE element when all the block's results agree on it (the location, the
 *   flags, the reference, an id of discriminator 0 nearly always do), read as that value for each of
 *   the block's results: an array's element costs its 4-byte length (and padding) besides its data, so
 *   the repeated values were about a quarter of a block's row. `vigil_block_column` (step 30) makes such
 *   an array from a block's column.
 *
 * Which rows are packed: those of a check with an id the store derived (every result the service
 * records), by the append that first lands in a later block for the check (holding the check's row
 * lock, as every append does), every such row older than that block at once. Rows whose id was kept
 * (a heartbeat's results, results imported with their ids) are never packed, so finding them by id
 * stays one probe of the partial index of those ids. A result appended late into a block already packed
 * makes a second row for that block at the next packing; a block may have several rows.
 *
 * Reads read both: `seriesRows` is the relation of a check's rows in a time range, unpacked and
 * unpacked-from-blocks alike, with the columns of `check_results`, so every query of the port keeps its
 * conditions, order, offset and count as they were. A block's elements are ordered by time, then id.
 */
import { sql, type QueryExecutorProvider, type RawBuilder } from 'kysely';

/** How long a block is. Part of the stored format: blocks start at multiples of it, and reads find a result's block by it. */
export const PACK_BLOCK_MS = 300_000;

/** Where the block of `ms` starts. */
export function blockOf(ms: number): number {
  return Math.floor(ms / PACK_BLOCK_MS) * PACK_BLOCK_MS;
}

/** The first `id_key` of an id the store did not derive (as postgres/check-results.ts names it). */
const EXPLICIT_ID = sql`'\\x01'::bytea`;

/** The columns of `check_results` a block keeps as arrays of one element when its results agree, in the order `seriesRows` yields them after `created_ms`. */
const SHARED = ['id_key', 'run_location', 'flags', 'packed', 'ref'] as const;
/** Every column of `check_results` a block keeps, in the order `seriesRows` yields them. */
const COLUMNS = ['created_ms', ...SHARED] as const;
/** The arrays `unnest` walks, in step with `COLUMNS`. */
const ARRAYS = ['offset_ms', ...SHARED] as const;

/**
 * A block's elements as SQL text over block row `p` and `unnest(p.offset_ms, p.id_key, …) AS u(…)`:
 * each column of `check_results` by its name. A column of one element in a block of more stands for
 * every element (unnest pads it with NULLs past the first).
 */
function elementColumns(p: string, u: string): string {
  const shared = SHARED.map((column) => `CASE WHEN cardinality(${p}.${column}) = 1 THEN ${p}.${column}[1] ELSE ${u}.${column} END AS ${column}`);
  return [`${p}.start_ms + ${u}.offset_ms AS created_ms`, ...shared].join(', ');
}

/** `unnest` of a block row's arrays, aliased `u` with ordinality `position`. */
function unnestOf(p: string): string {
  return `unnest(${ARRAYS.map((column) => `${p}.${column}`).join(', ')}) WITH ORDINALITY AS u(${ARRAYS.join(', ')}, position)`;
}

/**
 * Every packed result of every check as one relation with the columns series and those of
 * `check_results`, as SQL text: what a test or a copy reads the packed rows through.
 */
export const ALL_PACKED_ROWS = `SELECT p.series, ${elementColumns('p', 'u')} FROM check_results_packed p CROSS JOIN LATERAL ${unnestOf('p')}`;

/**
 * A check's rows created in `[fromMs, toMs)` (either bound absent: open), packed or not, as a
 * relation with the columns series, created_ms, id_key, run_location, flags, packed and ref.
 */
export function seriesRows(series: number, range: { readonly fromMs?: number | undefined; readonly toMs?: number | undefined }): RawBuilder<unknown> {
  const plain = [sql`series = ${series}`];
  const blocks = [sql`p.series = ${series}`];
  const elements: RawBuilder<unknown>[] = [];
  if (range.fromMs !== undefined) {
    plain.push(sql`created_ms >= ${range.fromMs}`);
    blocks.push(sql`p.start_ms > ${range.fromMs - PACK_BLOCK_MS}`);
    elements.push(sql`p.start_ms + u.offset_ms >= ${range.fromMs}`);
  }
  if (range.toMs !== undefined) {
    plain.push(sql`created_ms < ${range.toMs}`);
    blocks.push(sql`p.start_ms < ${range.toMs}`);
    elements.push(sql`p.start_ms + u.offset_ms < ${range.toMs}`);
  }
  return sql`(SELECT series, ${sql.raw(COLUMNS.join(', '))} FROM check_results WHERE ${sql.join(plain, sql` AND `)}
    UNION ALL
    SELECT p.series, ${sql.raw(elementColumns('p', 'u'))} FROM check_results_packed p CROSS JOIN LATERAL ${sql.raw(unnestOf('p'))}
     WHERE ${sql.join([...blocks, ...elements], sql` AND `)})`;
}

/**
 * Packs the check's unpacked rows with derived ids created before `beforeMs` (a block's start) into
 * one row per block, in one statement: the rows leave `check_results` as their block's row is made.
 */
export async function packBefore(db: QueryExecutorProvider, series: number, beforeMs: number): Promise<void> {
  const order = sql`ORDER BY created_ms, id_key`;
  // Literals, not parameters: the GROUP BY must be the very expression the SELECT names.
  const blockStart = sql.raw(`created_ms - created_ms % ${PACK_BLOCK_MS}`);
  const offset = sql.raw(`(created_ms % ${PACK_BLOCK_MS})::integer`);
  const shared = SHARED.map((column) => sql`vigil_block_column(array_agg(${sql.ref(column)} ${order}))`);
  await sql`WITH moved AS (
      DELETE FROM check_results WHERE series = ${series} AND created_ms < ${beforeMs} AND id_key < ${EXPLICIT_ID}
      RETURNING ${sql.raw(COLUMNS.join(', '))})
    INSERT INTO check_results_packed (series, start_ms, ${sql.raw(ARRAYS.join(', '))})
    SELECT ${series}::integer, ${blockStart}, array_agg(${offset} ${order}), ${sql.join(shared)} FROM moved GROUP BY ${blockStart}`.execute(db);
}

/** Blocks' rows deleted or rewritten per statement when pruning. */
const PRUNE_BATCH = 2000;

/**
 * Deletes every packed result created before `cutoffMs`: blocks that ended by then whole, and the
 * older elements of the blocks it falls in (their rows rewritten without them). Each statement is a
 * short one of its own, over the checks one batch at a time by the (series, start_ms) index.
 */
export async function prunePacked(db: QueryExecutorProvider, cutoffMs: number): Promise<void> {
  // Each check's blocks by the (series, start_ms) index: the blocks that ended by the cutoff, then those it falls in.
  const blocksOf = (range: RawBuilder<unknown>, condition: RawBuilder<unknown>) => sql`SELECT p.ctid FROM result_series s CROSS JOIN LATERAL (
      SELECT ctid, start_ms, offset_ms FROM check_results_packed WHERE series = s.key AND ${range} LIMIT ${PRUNE_BATCH}) p WHERE ${condition} LIMIT ${PRUNE_BATCH}`;
  const ended = sql`start_ms <= ${cutoffMs - PACK_BLOCK_MS}`;
  const straddling = sql`start_ms > ${cutoffMs - PACK_BLOCK_MS} AND start_ms < ${cutoffMs}`;
  const deleteBatch = (range: RawBuilder<unknown>, condition: RawBuilder<unknown>) =>
    sql`DELETE FROM check_results_packed WHERE ctid IN (${blocksOf(range, condition)})`;
  for (const batch of [deleteBatch(ended, sql`true`), deleteBatch(straddling, sql`p.start_ms + p.offset_ms[cardinality(p.offset_ms)] < ${cutoffMs}`)]) {
    while (Number((await batch.execute(db)).numAffectedRows ?? 0) > 0);
  }
  // What is left before the cutoff are blocks it falls in with elements on both sides of it: rewritten
  // with the elements at or after it (a block spans minutes, so there are at most a few per check),
  // each column made anew as packing makes it.
  const shared = SHARED.map((column) => `vigil_block_column(array_agg(e.${column} ORDER BY e.position))`);
  const kept = sql`(SELECT array_agg(e.created_ms - p.start_ms ORDER BY e.position)::integer[], ${sql.raw(shared.join(', '))}
      FROM (SELECT ${sql.raw(elementColumns('p', 'u'))}, u.position FROM ${sql.raw(unnestOf('p'))}) e WHERE e.created_ms >= ${cutoffMs})`;
  const rewrite = sql`UPDATE check_results_packed p SET (${sql.raw(ARRAYS.join(', '))}) = ${kept}
    WHERE p.ctid IN (${blocksOf(straddling, sql`p.start_ms + p.offset_ms[1] < ${cutoffMs}`)})`;
  while (Number((await rewrite.execute(db)).numAffectedRows ?? 0) > 0);
}
