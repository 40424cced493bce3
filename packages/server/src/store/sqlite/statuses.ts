/**
 * Check statuses' SQL: one row per check (`check_statuses`) with its state in a column of its own
 * (indexed per account: the checks list's state filter reads it, check-filters.ts); lists join the
 * checks, so a deleted check's row is never listed.
 */
import type { Statement } from 'better-sqlite3';
import type { CheckState } from '../check-status-rules.js';
import type { SqliteDatabase } from '../database.js';
import type { StatusFields } from '../metrics-read-ports.js';

export { checkStateOf, type CheckState } from '../check-status-rules.js';

/** The fields of a status document its listeners read (the metrics' port names them); a stored status has them all. */
export type { StatusFields };

/** One status write as its listeners are told of it. */
export interface StatusWrite {
  /** The stored document (JSON). */
  readonly doc: string;
  /** The same document as an object, when the writer had it: a listener then need not parse `doc`. */
  readonly status: StatusFields | undefined;
  /**
   * The write's number, kept beside its row in a table that rolls back with it
   * (`standingStatusWrites`): a listener keeps what the write said only once its number is
   * still there, and reads the row again otherwise.
   */
  readonly mark: number;
}

/**
 * Told of every status written through a connection, with what it says; and, when a group commit
 * failed and was rolled back, that rows read or told since may have reverted.
 */
export interface StatusWriteListener {
  written(accountId: string, checkId: string, write: StatusWrite): void;
  undone(): void;
}

/**
 * Per connection, who follows its status writes: `GET /metrics` keeps each check's lines between
 * scrapes and takes what the writes since said, instead of reading every row per scrape. Keyed by
 * the connection, as every StatusTable on it writes the same table.
 *
 * A write can be rolled back after it was told: its transaction or savepoint throws (better-sqlite3
 * rolls back and nothing tells), or a group commit (Store.writeBatched) fails at COMMIT on the next
 * turn of the event loop. So each write also puts its number in a TEMP table, per check, in the
 * same transaction: a rollback takes the number back with the row, and a listener that finds the
 * number it was told (`standingStatusWrites`) knows the row says what it was told. A failed group
 * commit, whose rows may already have been shown, is told by `statusWritesUndone`. Writes by other
 * connections are not told: watch the database's `data_version` for those.
 */
interface Followers {
  readonly listeners: Set<StatusWriteListener>;
  /** Prepared at the first write told, once the marks table exists. */
  mark?: Statement;
  standingSum?: Statement;
  standing?: Statement;
}

const followersByDb = new WeakMap<SqliteDatabase, Followers>();

/** The last number handed to a status write (every connection of the process shares the count). */
let lastMark = 0;

function followersOf(db: SqliteDatabase): Followers {
  let followers = followersByDb.get(db);
  if (!followers) {
    followers = { listeners: new Set() };
    followersByDb.set(db, followers);
  }
  return followers;
}

/** Tells `listener` of each status written through `db`; returns the way to stop. */
export function onStatusWrite(db: SqliteDatabase, listener: StatusWriteListener): () => void {
  // Created outside any transaction: one that rolled back would take the table with it.
  if (db.inTransaction) throw new Error('onStatusWrite inside a transaction; this is a bug in vigil');
  db.exec('CREATE TEMP TABLE IF NOT EXISTS status_write_marks (account_id TEXT NOT NULL, check_id TEXT NOT NULL, mark INTEGER NOT NULL, PRIMARY KEY (account_id, check_id))');
  // standingStatusWrites reads the marks above a number: by this index it reads those rows alone,
  // where the primary key had it walk every check of the account each time.
  db.exec('CREATE INDEX IF NOT EXISTS temp.status_write_marks_by_mark ON status_write_marks (account_id, mark, check_id)');
  const { listeners } = followersOf(db);
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The number of the last status write so far: every write told from now on has a larger one. */
export function lastStatusWriteMark(): number {
  return lastMark;
}

/**
 * Which of `written` (check id → the number of the last write to it told, every one above
 * `since`, and every write to the account numbered above `since` among them) still stand: those
 * whose number is still kept for their check. Usually all do, which one aggregate tells: each
 * check's kept number is at most its last write's, so the kept numbers above `since` add up to
 * those of `written`, and are as many, only when every one is its check's last write.
 */
export function standingStatusWrites(db: SqliteDatabase, accountId: string, since: number, written: ReadonlyMap<string, number>): (checkId: string) => boolean {
  const followers = followersOf(db);
  followers.standingSum ??= db.prepare('SELECT COUNT(*), COALESCE(SUM(mark), 0) FROM temp.status_write_marks WHERE account_id = ? AND mark > ?').raw();
  const [count, sum] = followers.standingSum.get(accountId, since) as [number, number];
  let writtenSum = 0;
  for (const mark of written.values()) writtenSum += mark;
  if (count === written.size && sum === writtenSum) return () => true;
  followers.standing ??= db.prepare('SELECT check_id, mark FROM temp.status_write_marks WHERE account_id = ? AND mark > ?').raw();
  const kept = new Map(followers.standing.all(accountId, since) as Array<[string, number]>);
  return (checkId) => kept.get(checkId) === written.get(checkId);
}

/** Tells the listeners of `db` that writes they were told of may have been rolled back. */
export function statusWritesUndone(db: SqliteDatabase): void {
  for (const listener of followersByDb.get(db)?.listeners ?? []) listener.undone();
}

export class StatusTable {
  readonly #db: SqliteDatabase;
  readonly #followers: Followers;
  readonly #get: Statement;
  readonly #put: Statement;
  readonly #list: Statement;
  readonly #one: Statement;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#followers = followersOf(db);
    this.#get = db.prepare('SELECT doc FROM check_statuses WHERE account_id = ? AND check_id = ?');
    this.#put = db.prepare('INSERT OR REPLACE INTO check_statuses (account_id, check_id, doc, state) VALUES (?, ?, ?, ?)');
    this.#list = db.prepare(
      'SELECT s.doc FROM check_statuses s JOIN checks c ON c.account_id = s.account_id AND c.id = s.check_id WHERE s.account_id = ? ORDER BY c.seq',
    );
    this.#one = db.prepare(
      'SELECT s.doc FROM check_statuses s JOIN checks c ON c.account_id = s.account_id AND c.id = s.check_id WHERE s.account_id = ? AND s.check_id = ?',
    );
  }

  /** The stored status (JSON), whether or not its check still exists. */
  stored(accountId: string, checkId: string): string | undefined {
    return (this.#get.get(accountId, checkId) as { doc: string } | undefined)?.doc;
  }

  /** `status`: `doc` as an object, when the caller has it, handed to the listeners so they need not parse it. */
  put(accountId: string, checkId: string, doc: string, state: CheckState, status?: StatusFields): void {
    this.#put.run(accountId, checkId, doc, state);
    const followers = this.#followers;
    if (followers.listeners.size === 0) return;
    followers.mark ??= this.#db.prepare('INSERT OR REPLACE INTO temp.status_write_marks (account_id, check_id, mark) VALUES (?, ?, ?)');
    const mark = ++lastMark;
    followers.mark.run(accountId, checkId, mark);
    const write: StatusWrite = { doc, status, mark };
    for (const listener of followers.listeners) listener.written(accountId, checkId, write);
  }

  /** The statuses (JSON) of the account's existing checks, in the checks' order. */
  list(accountId: string): string[] {
    return (this.#list.all(accountId) as Array<{ doc: string }>).map((row) => row.doc);
  }

  /** The status (JSON) of an existing check. */
  one(accountId: string, checkId: string): string | undefined {
    return (this.#one.get(accountId, checkId) as { doc: string } | undefined)?.doc;
  }
}
