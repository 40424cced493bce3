/**
 * The check results' tables for `vigil server migrate-data`: rows are store/formats/result-row-codec.ts's
 * in both engines, so they are copied as stored (bodies, deltas and packed phases untouched, nothing
 * decoded), with the differences PostgreSQL's steps 8, 27 and 31 name: the `id` column becomes `id_key`,
 * the flags one `flags` column, the other columns no statement filters on one `packed` column, a
 * reference gets `last_used_ms`, and a rollup's histogram is an integer array.
 */
import type { SqliteDatabase } from '../../database.js';
import { packResultFields } from '../../formats/packed-result-fields.js';
import { parseHistogram } from '../../formats/rollup-histogram.js';
import { idKeyBytes, rowFlags } from '../check-results.js';
import type { TableCopy } from './tables.js';

const DAY_MS = 86_400_000;

/**
 * The `id` column as PostgreSQL's `id_key` (bytes that sort as SQLite sorts the column: a tag byte,
 * 0 a derived id's discriminator in two bytes, none for discriminator 0, 1 a text id, 2 a UUID's bytes), as
 * postgres/check-results.ts writes it.
 */
export function idKeyOf(id: unknown): Buffer {
  if (typeof id === 'number' || typeof id === 'bigint' || typeof id === 'string' || Buffer.isBuffer(id)) return idKeyBytes(id);
  throw new Error(`a check result's id is neither an integer, a text nor bytes (${typeof id}); this is a bug in vigil`);
}

/** The UTC days (their first millisecond) the source holds raw results of: each needs its partition first. */
export function resultDays(db: SqliteDatabase): number[] {
  return (db.prepare(`SELECT DISTINCT created_ms / ${DAY_MS} FROM check_results ORDER BY 1`).pluck().all() as number[]).map((day) => day * DAY_MS);
}

const ROLLUP_COLUMNS = ['series', 'start_ms', 'location', 'results', 'failures', 'degraded', 'attempts', 'rt_count', 'rt_sum', 'rt_sq_sum', 'rt_min', 'rt_max', 'rt_hist'] as const;

function rollupCopy(granularity: 'hourly' | 'daily'): TableCopy {
  const table = `result_rollups_${granularity}`;
  return {
    kind: `${granularity} rollups`,
    source: table,
    target: table,
    select: ROLLUP_COLUMNS.join(', '),
    columns: ROLLUP_COLUMNS,
    values: (row) => ROLLUP_COLUMNS.map((column) => (column === 'rt_hist' ? histogramArray(row[column] as string) : row[column])),
  };
}

/**
 * A rollup row's histogram as SQLite keeps it (JSON of the buckets counted) in PostgreSQL's layout
 * (step 31): an integer[] literal subscripted by bucket, NULL where a bucket between is empty.
 */
export function histogramArray(json: string): string {
  const histogram = parseHistogram(json);
  if (histogram.size === 0) return '{}';
  const low = Math.min(...histogram.keys());
  const high = Math.max(...histogram.keys());
  const counts = Array.from({ length: high - low + 1 }, (_, index) => String(histogram.get(low + index) ?? 'NULL'));
  return `[${low}:${high}]={${counts.join(',')}}`;
}

export function resultTableCopies(db: SqliteDatabase): TableCopy[] {
  // SQLite learns that a replaced reference is unused from its delete trigger; PostgreSQL from the
  // newest row using it (dropping a day's partition fires no trigger).
  const lastUsed = new Map(
    (db.prepare('SELECT ref, max(created_ms) AS last FROM check_results WHERE ref IS NOT NULL GROUP BY ref').all() as Array<{ ref: number; last: number }>).map((row) => [row.ref, row.last]),
  );
  return [
    {
      kind: 'result series',
      source: 'result_series',
      target: 'result_series',
      select: 'key, account_id, check_id',
      columns: ['key', 'account_id', 'check_id'],
      values: (row) => [row['key'], row['account_id'], row['check_id']],
      overriding: true,
      sequence: 'key',
    },
    {
      kind: 'result locations',
      source: 'check_results_locations',
      target: 'check_results_locations',
      select: 'key, name',
      columns: ['key', 'name'],
      values: (row) => [row['key'], row['name']],
      overriding: true,
      sequence: 'key',
    },
    {
      kind: 'result references',
      source: 'check_results_references',
      target: 'check_results_references',
      select: 'key, series, created_ms, current, uses, doc',
      columns: ['key', 'series', 'created_ms', 'current', 'uses', 'last_used_ms', 'doc'],
      values: (row) => [row['key'], row['series'], row['created_ms'], row['current'] === 1, row['uses'], lastUsed.get(row['key'] as number) ?? row['created_ms'], row['doc']],
      overriding: true,
      sequence: 'key',
    },
    {
      kind: 'results',
      source: 'check_results',
      target: 'check_results',
      select: 'series, created_ms, id, final, has_failures, run_location, attempts, response_time, status_code, phases, encoding, body, ref',
      // SQLite's step 41: the table has no rowid.
      key: ['series', 'created_ms', 'id'],
      columns: ['created_ms', 'series', 'ref', 'flags', 'run_location', 'id_key', 'packed'],
      values: (row) => {
        const phases = row['phases'];
        const packed = packResultFields({
          attempts: row['attempts'] as number,
          responseTime: row['response_time'] as number | null,
          statusCode: row['status_code'] as number | null,
          phases: Buffer.isBuffer(phases) || typeof phases === 'string' ? phases : null,
          body: row['body'] as Buffer,
        });
        return [row['created_ms'], row['series'], row['ref'], rowFlags(row['final'] as number, row['has_failures'] as number, row['encoding'] as number), String(row['run_location']), idKeyOf(row['id']), packed];
      },
    },
    rollupCopy('hourly'),
    rollupCopy('daily'),
    {
      kind: 'rollup horizons',
      source: 'rollup_horizons',
      target: 'rollup_horizons',
      select: 'name, before_ms',
      columns: ['name', 'before_ms'],
      values: (row) => [row['name'], row['before_ms']],
    },
  ];
}
