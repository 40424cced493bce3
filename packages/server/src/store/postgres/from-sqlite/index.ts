/**
 * `vigil server migrate-data`: copies an embedded server's SQLite database into an empty PostgreSQL one.
 *
 * In order: the source is opened read-only and checked (this vigil's schema, no rows of a kind the
 * target cannot take), the target is reached and migrated, checked empty, given a partition for each
 * day holding results, and then everything is copied in ONE transaction that also counts the rows of
 * every kind on both sides before it commits. A failure anywhere, a count that differs included,
 * rolls the whole copy back: the target is left as it was (migrated, empty), and the command can
 * simply run again. One transaction rather than resumable batches because a half-copied target
 * would hold data, which every later run must refuse, and because nothing else may write to the
 * target meanwhile anyway; PostgreSQL holds a transaction of millions of rows without trouble.
 *
 * A target that holds data is refused, with no flag to merge into it: ids, `seq` orders and keys are
 * copied as they are (every reference between rows depends on them), and two services' rows would
 * collide on them.
 */
import { sql, type Kysely } from 'kysely';
import { describeTarget, reasonOf, withoutSecrets } from '../connection-errors.js';
import { openPostgres, type PostgresSchema } from '../database.js';
import { PostgresCheckResults } from '../check-results.js';
import { migratePostgres } from '../migrations.js';
import { copyHeartbeatStart, copyIdCounters, copyStatusPageRevision, copyTable, DEFAULT_BATCH_ROWS } from './copy.js';
import { resultDays, resultTableCopies } from './results.js';
import { MigrateDataError, openSource, type MigrationSource } from './source.js';
import { FOLDED_TABLES, SERVICE_BOOKKEEPING_TARGETS, SKIPPED_TABLES, TABLE_COPIES, type TableCopy } from './tables.js';

export { MigrateDataError } from './source.js';

export interface MigrateDataOptions {
  /** A `--data` directory (its vigil.db) or the database file. */
  readonly from: string;
  /** `postgres://user:password@host:port/database`; never printed (messages name host:port/database). */
  readonly to: string;
  /** Rows written per INSERT (default 1,000). */
  readonly batchRows?: number;
  /** Hears progress lines (which kind is being copied). */
  readonly progress?: (line: string) => void;
}

export interface KindCount {
  readonly kind: string;
  readonly source: number;
  readonly target: number;
}

export interface MigrateDataReport {
  /** `host:port/database`. */
  readonly target: string;
  readonly counts: readonly KindCount[];
  /** Source tables with rows that were left behind on purpose, and why. */
  readonly skipped: ReadonlyArray<{ table: string; rows: number; reason: string }>;
  /** Raw results copied, and how long their copy took. */
  readonly results: { readonly rows: number; readonly ms: number };
  readonly ms: number;
}

/** Target tables that make a target "hold data" when they have rows. */
function dataTargets(copies: readonly TableCopy[]): string[] {
  const bookkeeping = new Set<string>(SERVICE_BOOKKEEPING_TARGETS);
  return [...new Set([...copies.map((copy) => copy.target), 'document_id_counters'])].filter((table) => !bookkeeping.has(table));
}

export function checkTargetUrl(to: string): void {
  let url: URL | undefined;
  try {
    url = new URL(to);
  } catch {
    url = undefined;
  }
  // The URL as given is never echoed: it may carry the password.
  if (url === undefined || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')) {
    throw new MigrateDataError('--to must be a PostgreSQL URL: postgres://user:password@host:port/database');
  }
}

/** Refuses a source holding rows of a kind no target table takes, naming each. */
function checkCopyable(source: MigrationSource, copies: readonly TableCopy[]): Array<{ table: string; rows: number; reason: string }> {
  const copied = new Set<string>([...copies.map((copy) => copy.source), ...FOLDED_TABLES]);
  const refused: string[] = [];
  const skipped: Array<{ table: string; rows: number; reason: string }> = [];
  for (const table of source.tables()) {
    if (copied.has(table)) continue;
    const rows = source.count(table);
    if (rows === 0) continue;
    const reason = SKIPPED_TABLES[table];
    if (reason === undefined) refused.push(`${table} (${rows} row${rows === 1 ? '' : 's'})`);
    else skipped.push({ table, rows, reason });
  }
  if (refused.length > 0) {
    throw new MigrateDataError(
      `cannot migrate ${source.file}: the PostgreSQL schema of this vigil has no table yet for ${refused.join(', ')}; nothing was copied (delete those rows, or wait for a vigil that can copy them)`,
    );
  }
  return skipped;
}

async function reach(db: Kysely<PostgresSchema>, to: string, target: string): Promise<void> {
  try {
    await sql`SELECT 1`.execute(db);
  } catch (error) {
    const reason = withoutSecrets(reasonOf(error), to).replace(`PostgreSQL at ${target} is unavailable: `, '');
    throw new MigrateDataError(`cannot connect to PostgreSQL at ${target}: ${reason}`, { cause: error });
  }
}

async function checkEmpty(db: Kysely<PostgresSchema>, target: string, tables: readonly string[]): Promise<void> {
  const held: string[] = [];
  for (const table of tables) {
    const rows = Number((await sql<{ rows: string }>`SELECT count(*) AS rows FROM ${sql.table(table)}`.execute(db)).rows[0]!.rows);
    if (rows > 0) held.push(`${table} (${rows} row${rows === 1 ? '' : 's'})`);
  }
  if (held.length > 0) {
    throw new MigrateDataError(`the target database ${target} already holds data: ${held.join(', ')}; migrate-data copies into an empty database only (create a new one, or drop and re-create this one)`);
  }
}

export async function migrateData(options: MigrateDataOptions): Promise<MigrateDataReport> {
  const started = performance.now();
  checkTargetUrl(options.to);
  const target = describeTarget(options.to);
  const progress = options.progress ?? (() => {});
  const batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;
  const source = openSource(options.from);
  try {
    const copies = [...TABLE_COPIES, ...resultTableCopies(source.db)];
    const skipped = checkCopyable(source, copies);
    const sourceCounts = new Map(copies.map((copy) => [copy, source.count(copy.source)]));
    // An offline copy: a count or a batch of a large source may run longer than a server's statement limit.
    const { db, close } = openPostgres({ connectionString: options.to, statementTimeoutMs: 0, maxConnections: 2, warn: () => {} });
    try {
      await reach(db, options.to, target);
      await migratePostgres(db);
      await checkEmpty(db, target, dataTargets(copies));
      // Partitions are made outside the copy's transaction (as the engine makes them); a copy that
      // rolls back leaves them empty, which no later run counts as data.
      const days = resultDays(source.db);
      const results = new PostgresCheckResults(db);
      for (const day of days) await results.prepareDays(day, day);
      let resultsCopy = { rows: 0, ms: 0 };
      const counts = await db.transaction().execute(async (tx) => {
        for (const table of SERVICE_BOOKKEEPING_TARGETS) await sql`DELETE FROM ${sql.table(table)}`.execute(tx);
        const copiedCounts: KindCount[] = [];
        for (const copy of copies) {
          const expected = sourceCounts.get(copy)!;
          progress(`copying ${copy.kind} (${expected} rows)`);
          const copyStarted = performance.now();
          await copyTable(source, tx, copy, { batchRows });
          if (copy.target === 'check_results') resultsCopy = { rows: expected, ms: performance.now() - copyStarted };
          const copied = Number((await sql<{ rows: string }>`SELECT count(*) AS rows FROM ${sql.table(copy.target)}`.execute(tx)).rows[0]!.rows);
          copiedCounts.push({ kind: copy.kind, source: expected, target: copied });
        }
        const counters = await copyIdCounters(source, tx);
        const countersStored = Number((await sql<{ rows: string }>`SELECT count(*) AS rows FROM document_id_counters`.execute(tx)).rows[0]!.rows);
        copiedCounts.push({ kind: 'id counters', source: counters, target: countersStored });
        await copyHeartbeatStart(source, tx);
        await copyStatusPageRevision(source, tx);
        const mismatched = copiedCounts.filter((count) => count.source !== count.target);
        if (mismatched.length > 0) {
          throw new MigrateDataError(
            `the copy into ${target} does not match its source: ${mismatched.map((count) => `${count.kind} ${count.source} in SQLite, ${count.target} in PostgreSQL`).join('; ')}; nothing was committed`,
          );
        }
        return copiedCounts;
      });
      return { target, counts, skipped, results: resultsCopy, ms: performance.now() - started };
    } catch (error) {
      if (error instanceof MigrateDataError) throw error;
      // Whatever the driver said, without the password.
      throw new MigrateDataError(`migrating into ${target} failed, nothing was committed: ${withoutSecrets(reasonOf(error), options.to)}`, { cause: error });
    } finally {
      await close();
    }
  } finally {
    source.close();
  }
}
