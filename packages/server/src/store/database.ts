/**
 * Opening the SQLite database (sqlite/migrations/ brings its schema up to date).
 *
 * Durability: WAL with `synchronous = NORMAL`. Every acknowledged write is a committed transaction in
 * the WAL file, which survives a killed process (SIGKILL); only an OS crash or power loss can lose the
 * last transactions, which is the trade the real service's databases make too and what keeps creates
 * above 2,000/s on a small machine.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { Database as SqliteDatabase } from 'better-sqlite3';

export type { SqliteDatabase };

/** Where the database lives: in memory, `vigil.db` inside a directory, or an exact file path. */
export type DatabaseLocation = ':memory:' | { readonly dir: string } | { readonly file: string };

/** Owner-only modes for what holds the database: it stores secret variable values and keys. */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
/** The database file and the two files SQLite keeps beside it in WAL mode. */
const DATABASE_FILE_SUFFIXES = ['', '-wal', '-shm'] as const;

/**
 * Makes the database's directory and files private to the owner (they were 0755 and
 * 0644, secrets readable by every local user). Directories it creates are 0700; the database file is
 * created 0600 before SQLite opens it, and SQLite gives `-wal` and `-shm` the database file's mode.
 * An existing directory is not changed (it may be the user's own, shared on purpose); if other users
 * can enter or read it, `warn` says so. Existing database files are the service's own: tightened.
 */
function preparePrivateFiles(file: string, warn: (message: string) => void): void {
  const dir = path.dirname(file);
  if (existsSync(dir)) {
    const mode = statSync(dir).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      warn(`${dir} is accessible to other users (mode ${mode.toString(8)}), and the database in it holds secret values; run chmod 700 ${dir}`);
    }
  } else {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    // mkdir's mode is filtered by the umask; an explicit chmod is not.
    chmodSync(dir, PRIVATE_DIR_MODE);
  }
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  tightenDatabaseFiles(file, warn);
}

function tightenDatabaseFiles(file: string, warn: (message: string) => void): void {
  for (const suffix of DATABASE_FILE_SUFFIXES) {
    const target = `${file}${suffix}`;
    if (!existsSync(target) || (statSync(target).mode & 0o777) === PRIVATE_FILE_MODE) continue;
    try {
      chmodSync(target, PRIVATE_FILE_MODE);
    } catch (error) {
      warn(`cannot make ${target} private (chmod 600): ${(error as Error).message}`);
    }
  }
}

export interface OpenOptions {
  /** Receives what the owner should fix (default: a line on stderr). */
  readonly warn?: (message: string) => void;
}

const warnOnStderr = (message: string): void => {
  process.stderr.write(`vigil server: warning: ${message}\n`);
};

let driver: typeof BetterSqlite3 | undefined;

/**
 * better-sqlite3, loaded when a SQLite database is first opened rather than with the server's code:
 * the published CLI lists this native module as an optional peer, and a service on PostgreSQL
 * (`--database`) must run where it is not installed.
 */
function sqliteDriver(): typeof BetterSqlite3 {
  driver ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  return driver;
}

/** Opens (creating parent directories as needed, private to the owner) and configures the database. */
export function openDatabase(location: DatabaseLocation, options: OpenOptions = {}): SqliteDatabase {
  let file = ':memory:';
  const warn = options.warn ?? warnOnStderr;
  if (location !== ':memory:') {
    file = 'file' in location ? location.file : path.join(location.dir, 'vigil.db');
    preparePrivateFiles(file, warn);
  }
  const Database = sqliteDriver();
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // SQLite copies the database file's mode to -wal and -shm; checked once they exist, in case a
  // build of SQLite does not.
  if (file !== ':memory:') tightenDatabaseFiles(file, warn);
  db.pragma('synchronous = NORMAL');
  // Checkpoints are where WAL mode fsyncs; at the default 1,000 pages they dominated the cost of a
  // create (one every ~150 writes). 10,000 pages (~40 MB of WAL) keeps them rare; durability is the
  // same, since a committed transaction is in the WAL either way.
  db.pragma('wal_autocheckpoint = 10000');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}
