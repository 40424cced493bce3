/**
 * Copying the tables of a SQLite source into a PostgreSQL transaction, batch by batch: a batch is read
 * by rowid, or by primary key for a table without one (a statement at a time, so the source
 * connection is never busy across an await) and written as one multi-row INSERT, so memory holds one
 * batch whatever the size of the source.
 */
import { sql, type Transaction } from 'kysely';
import { DOCUMENT_ID_KINDS, DOCUMENT_KINDS } from '../../document-ports.js';
import type { PostgresSchema } from '../database.js';
import type { MigrationSource } from './source.js';
import type { TableCopy } from './tables.js';

type Tx = Transaction<PostgresSchema>;

/** pg binds at most 65,535 parameters a statement; a batch stays well below. */
const MAX_PARAMETERS = 30_000;
export const DEFAULT_BATCH_ROWS = 1000;

/**
 * Copies `copy`'s rows; resolves to how many were written. A batch is one INSERT … SELECT FROM
 * unnest() of one array per column: nine parameters for a thousand rows instead of nine thousand,
 * which pg would otherwise bind and PostgreSQL parse one by one (the copy of raw results ran at a
 * quarter of the rate that way). A table with an array column takes multi-row VALUES instead, since
 * unnest() would flatten its arrays.
 */
export async function copyTable(source: MigrationSource, tx: Tx, copy: TableCopy, options: { batchRows: number }): Promise<number> {
  if (!source.tables().includes(copy.source)) return 0;
  const types = await columnTypes(tx, copy);
  const byColumn = !types.some((type) => type.startsWith('_'));
  const rowsPerBatch = byColumn ? options.batchRows : Math.max(1, Math.min(options.batchRows, Math.floor(MAX_PARAMETERS / copy.columns.length)));
  const key = copy.key ?? ['rowid'];
  const keyList = key.join(', ');
  const first = source.db.prepare(`SELECT ${copy.key ? '' : 'rowid, '}${copy.select} FROM "${copy.source}" ORDER BY ${keyList} LIMIT ?`);
  const next = source.db.prepare(`SELECT ${copy.key ? '' : 'rowid, '}${copy.select} FROM "${copy.source}" WHERE (${keyList}) > (${key.map(() => '?').join(', ')}) ORDER BY ${keyList} LIMIT ?`);
  const head = `INSERT INTO "${copy.target}" (${copy.columns.map((column) => `"${column}"`).join(', ')})${copy.overriding ? ' OVERRIDING SYSTEM VALUE' : ''}`;
  let after: unknown[] | undefined;
  let copied = 0;
  // The next batch is read from SQLite (synchronously) while PostgreSQL writes the previous one.
  let writing: Promise<unknown> = Promise.resolve();
  for (;;) {
    const rows = (after === undefined ? first.all(rowsPerBatch) : next.all(...after, rowsPerBatch)) as Array<Record<string, unknown>>;
    if (rows.length === 0) break;
    const last = rows.at(-1)!;
    after = key.map((column) => last[column]);
    const tuples = rows.map((row) => copy.values(row));
    const statement = byColumn
      ? sql`${sql.raw(head)} SELECT * FROM unnest(${sql.join(copy.columns.map((_, column) => sql`${tuples.map((tuple) => tuple[column])}::${sql.raw(`"${types[column]!}"`)}[]`))})`
      : sql`${sql.raw(head)} VALUES ${sql.join(tuples.map((tuple) => sql`(${sql.join(tuple)})`))}`;
    await writing;
    writing = statement.execute(tx);
    // Awaited at the next batch or after the last; handled here too, so a failure meanwhile is not reported as unhandled.
    writing.catch(() => {});
    copied += rows.length;
  }
  await writing;
  if (copy.sequence !== undefined && copied > 0) await moveSequencePast(tx, copy.target, copy.sequence);
  return copied;
}

/** The target columns' types as PostgreSQL names them (`int8`, `bytea`, `_text` for text[]), in `copy.columns` order. */
async function columnTypes(tx: Tx, copy: TableCopy): Promise<string[]> {
  const { rows } = await sql<{ name: string; type: string }>`
    SELECT a.attname AS name, t.typname AS type FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
     WHERE a.attrelid = ${copy.target}::regclass AND a.attnum > 0 AND NOT a.attisdropped`.execute(tx);
  const types = new Map(rows.map((row) => [row.name, row.type]));
  return copy.columns.map((column) => {
    const type = types.get(column);
    if (type === undefined) throw new Error(`the PostgreSQL table ${copy.target} has no column ${column}; this is a bug in vigil`);
    return type;
  });
}

/** The next value the column's sequence gives is above every copied one. */
async function moveSequencePast(tx: Tx, table: string, column: string): Promise<void> {
  await sql`SELECT setval(pg_get_serial_sequence(${table}, ${column}), (SELECT coalesce(max(${sql.ref(column)}), 0) + 1 FROM ${sql.table(table)}), false)`.execute(tx);
}

/**
 * The integer ids counted per account: check groups, alert channels, maintenance windows, dashboards
 * and group triggers, each under its table's name. PostgreSQL keeps one counter per (kind, account);
 * SQLite a counter per account and, per table, a floor of the ids handed out service-wide before
 * counting was per account. The copied counter is the highest of the account's counter, the floor and
 * its highest id, so no id the source ever handed out comes back. Resolves to how many were written.
 */
export async function copyIdCounters(source: MigrationSource, tx: Tx): Promise<number> {
  const present = new Set(source.tables());
  const counted = [...DOCUMENT_KINDS.filter((kind) => DOCUMENT_ID_KINDS[kind] === 'integer'), 'dashboards', 'check_group_triggers'].filter((table) => present.has(table));
  const floors = new Map(present.has('id_floors') ? (source.db.prepare('SELECT collection, floor FROM id_floors').all() as Array<{ collection: string; floor: number }>).map((row) => [row.collection, row.floor]) : []);
  const counters = new Map<string, number>();
  const raise = (kind: string, accountId: string, value: number) => {
    const key = JSON.stringify([kind, accountId]);
    counters.set(key, Math.max(counters.get(key) ?? 0, value));
  };
  for (const row of source.db.prepare('SELECT collection, account_id, last_id FROM id_counters').all() as Array<{ collection: string; account_id: string; last_id: number }>) {
    if (counted.includes(row.collection)) raise(row.collection, row.account_id, row.last_id);
  }
  // Every account the source knows, so a floor also holds for accounts that never counted an id of a kind.
  const accounts = new Set<string>();
  for (const table of [...DOCUMENT_KINDS, ...counted]) for (const accountId of source.db.prepare(`SELECT DISTINCT account_id FROM "${table}"`).pluck().all() as string[]) accounts.add(accountId);
  for (const kind of counted) {
    const floor = floors.get(kind) ?? 0;
    const highest = new Map((source.db.prepare(`SELECT account_id, max(CAST(id AS INTEGER)) AS top FROM "${kind}" GROUP BY account_id`).all() as Array<{ account_id: string; top: number }>).map((row) => [row.account_id, row.top]));
    for (const accountId of accounts) {
      const value = Math.max(floor, highest.get(accountId) ?? 0);
      if (value > 0) raise(kind, accountId, value);
    }
  }
  const rows = [...counters].map(([key, lastId]) => {
    const [kind, accountId] = JSON.parse(key) as [string, string];
    return sql`(${kind}, ${accountId}, ${lastId})`;
  });
  for (let start = 0; start < rows.length; start += DEFAULT_BATCH_ROWS) {
    await sql`INSERT INTO document_id_counters (kind, account_id, last_id) VALUES ${sql.join(rows.slice(start, start + DEFAULT_BATCH_ROWS))}`.execute(tx);
  }
  return rows.length;
}

/**
 * Whether heartbeat monitoring had started on the source (and at which ping): PostgreSQL keeps it as
 * the `seq` of the last ping stored then, which the copied pings keep as their SQLite rowid.
 */
export async function copyHeartbeatStart(source: MigrationSource, tx: Tx): Promise<void> {
  if (!source.tables().includes('heartbeat_ping_cursor')) return;
  const cursor = source.db.prepare('SELECT event_rowid FROM heartbeat_ping_cursor WHERE id = 1').pluck().get() as number | undefined;
  if (cursor === undefined) return;
  await sql`INSERT INTO heartbeat_ping_start (only_row, last_seq) VALUES (1, ${cursor})`.execute(tx);
}

/**
 * Public pages are cached under the status pages' revision: the target's is set past the source's, so
 * no page cached by a server on the source could be taken for current.
 */
export async function copyStatusPageRevision(source: MigrationSource, tx: Tx): Promise<void> {
  const revision = source.tables().includes('status_page_revision') ? ((source.db.prepare('SELECT revision FROM status_page_revision WHERE only_row = 1').pluck().get() as number | undefined) ?? 0) : 0;
  await sql`UPDATE status_page_revision SET revision = greatest(revision, ${revision}) + 1 WHERE only_row = 1`.execute(tx);
}
