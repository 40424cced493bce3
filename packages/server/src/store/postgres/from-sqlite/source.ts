/**
 * The SQLite side of `vigil server migrate-data`: the database of an embedded server, opened
 * read-only (no statement that writes can run on the connection, so the source is never changed),
 * and read inside one read transaction, so every table is read as of one moment (WAL gives a reader
 * that snapshot even while a server still writes; the copy should still be made with it stopped).
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { SqliteDatabase } from '../../database.js';
import { SCHEMA_SCOPE, SQLITE_STEPS } from '../../sqlite/migrations/index.js';

/** A refusal worded for the operator: the CLI prints its message alone. */
export class MigrateDataError extends Error {
  override readonly name = 'MigrateDataError';
}

export interface MigrationSource {
  readonly db: SqliteDatabase;
  /** The database file, as messages name it. */
  readonly file: string;
  /** Rows of `table` in the snapshot (0 for a table the source does not have). */
  count(table: string): number;
  /** The tables of the source, SQLite's own left out. */
  tables(): string[];
  close(): void;
}

/** `from`: a `--data` directory (its vigil.db) or the database file itself. */
export function openSource(from: string): MigrationSource {
  if (!existsSync(from)) throw new MigrateDataError(`--from ${from}: no such directory or file`);
  const file = statSync(from).isDirectory() ? path.join(from, 'vigil.db') : from;
  if (!existsSync(file)) throw new MigrateDataError(`--from ${from}: no vigil.db in it (give the --data directory of a vigil server, or its vigil.db file)`);
  let db: SqliteDatabase;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    db.exec('BEGIN');
    // The first read fixes the snapshot and is where a file that is no database fails.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (error) {
    throw new MigrateDataError(`--from ${file}: cannot read it as a SQLite database: ${(error as Error).message}`, { cause: error });
  }
  try {
    checkSchema(db, file);
  } catch (error) {
    db.close();
    throw error;
  }
  const names = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[]));
  return {
    db,
    file,
    count: (table) => (names.has(table) ? (db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get() as number) : 0),
    tables: () => [...names].sort(),
    close: () => {
      if (db.inTransaction) db.exec('COMMIT');
      db.close();
    },
  };
}

/**
 * The copy reads the tables as this version of vigil lays them out, so the source must have run every
 * step of its schema and none this version does not know (a read-only connection cannot migrate it).
 */
function checkSchema(db: SqliteDatabase, file: string): void {
  const hasMigrations = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'").get() !== undefined;
  if (!hasMigrations) throw new MigrateDataError(`--from ${file}: not a vigil server database (it has no migrations table)`);
  const applied = new Set(db.prepare('SELECT version FROM migrations WHERE scope = ?').pluck().all(SCHEMA_SCOPE) as number[]);
  const missing = SQLITE_STEPS.filter((step) => !applied.has(step.step));
  if (missing.length > 0) {
    throw new MigrateDataError(
      `--from ${file}: the database lacks ${missing.length} schema step(s) of this vigil (the first: ${missing[0]!.step} "${missing[0]!.name}"); start \`vigil server --data\` on it once with this version, stop it, then migrate`,
    );
  }
  const unknown = [...applied].filter((version) => version > SQLITE_STEPS.length);
  if (unknown.length > 0) throw new MigrateDataError(`--from ${file}: the database was written by a newer vigil (schema step ${Math.max(...unknown)}); migrate it with that version`);
}
