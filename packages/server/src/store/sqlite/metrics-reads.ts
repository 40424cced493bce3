/**
 * The MetricsReads port on SQLite (metrics-read-ports.ts). A follower is told of each status written
 * through this connection as it is written, with the status as an object (statuses.ts
 * `onStatusWrite`), and hands over at its next call those that still stand; a write rolled back since
 * took its number with it, and its row is read again as it stayed. A commit by another connection
 * changes SQLite's `data_version`, after which the follower reads every row again, as it does when a
 * group commit that may have been shown failed (`undone`). Reading and parsing the 2,500 rows just
 * written cost a scrape at 10,000 checks about 8 ms; being told cost nothing.
 */
import type { Statement } from 'better-sqlite3';
import type { FollowedStatus, MetricsReads, StatusBatch, StatusFields, StatusFollower } from '../metrics-read-ports.js';
import { text } from '../port-rules.js';
import type { SqliteDatabase } from '../database.js';
import { lastStatusWriteMark, onStatusWrite, standingStatusWrites, type StatusWrite } from './statuses.js';

export class SqliteMetricsReads implements MetricsReads {
  readonly #db: SqliteDatabase;
  /** Raw rows: at 10,000 checks the column names of an object per row were a measurable part of a scrape. */
  readonly #statusDocs: Statement;
  readonly #statusDocsOf: Statement;
  readonly #openIncidents: Statement;
  readonly #dataVersion: Statement;
  /** The followers of each account, told of its status writes. */
  readonly #followers = new Map<string, Set<SqliteStatusFollower>>();
  /** Whether this connection's status writes are told here yet (see `#listen`). */
  #told = false;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#statusDocs = db.prepare('SELECT check_id, doc FROM check_statuses WHERE account_id = ?').raw();
    this.#statusDocsOf = db.prepare('SELECT check_id, doc FROM check_statuses WHERE account_id = ? AND check_id IN (SELECT value FROM json_each(?))').raw();
    this.#openIncidents = db.prepare("SELECT COUNT(*) FROM incidents WHERE account_id = ? AND json_extract(state, '$.lastUpdateStatus') <> 'RESOLVED'").pluck();
    this.#dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.#listen();
  }

  /**
   * Asks to be told of this connection's status writes, from the start when the ports open outside
   * any transaction, as they do; onStatusWrite's TEMP table can only be made outside one (one that
   * rolled back would take it along), so ports opened inside one ask again at each new follower.
   */
  #listen(): void {
    if (this.#told || this.#db.inTransaction) return;
    this.#told = true;
    onStatusWrite(this.#db, {
      written: (accountId, checkId, write) => {
        for (const follower of this.#followers.get(accountId) ?? []) follower.written(checkId, write);
      },
      undone: () => {
        for (const followers of this.#followers.values()) for (const follower of followers) follower.forget();
      },
    });
    // Followers made before were told nothing: their next call reads every row.
    for (const followers of this.#followers.values()) for (const follower of followers) follower.forget();
  }

  /** Whether status writes are told here: until then a follower reads every row at each call. */
  get told(): boolean {
    return this.#told;
  }

  followStatuses(accountId: string): StatusFollower {
    text('accountId', accountId);
    this.#listen();
    const followers = this.#followers.get(accountId) ?? new Set();
    this.#followers.set(accountId, followers);
    const follower = new SqliteStatusFollower(this, accountId, () => {
      followers.delete(follower);
      if (followers.size === 0 && this.#followers.get(accountId) === followers) this.#followers.delete(accountId);
    });
    followers.add(follower);
    return follower;
  }

  async openIncidents(accountIds: readonly string[]): Promise<number[]> {
    for (const accountId of accountIds) text('accountId', accountId);
    return accountIds.map((accountId) => Number(this.#openIncidents.get(accountId)));
  }

  /** Every stored status of the account, a deleted check's left-behind row included. */
  statusesOf(accountId: string): FollowedStatus[] {
    return (this.#statusDocs.all(accountId) as Array<[string, string]>).map(([checkId, doc]) => [checkId, JSON.parse(doc) as StatusFields]);
  }

  /** Those of `checkIds`, each with its stored status or undefined when it has none. */
  statusesOfChecks(accountId: string, checkIds: readonly string[]): FollowedStatus[] {
    const stored = new Map(this.#statusDocsOf.all(accountId, JSON.stringify(checkIds)) as Array<[string, string]>);
    return checkIds.map((checkId) => {
      const doc = stored.get(checkId);
      return [checkId, doc === undefined ? undefined : (JSON.parse(doc) as StatusFields)];
    });
  }

  /** SQLite's counter that changes when another connection commits a write to the database. */
  dataVersion(): number {
    return this.#dataVersion.get() as number;
  }

  get db(): SqliteDatabase {
    return this.#db;
  }
}

class SqliteStatusFollower implements StatusFollower {
  readonly #reads: SqliteMetricsReads;
  readonly #accountId: string;
  readonly #close: () => void;
  /** Whether the next call reads every row: the first, or after writes told may have reverted. */
  #readAll = true;
  /** The data_version of the last call: another connection committed when it changed. */
  #dataVersion = 0;
  /** Checks whose status was written since the last call, and the last write of each as told. */
  #written = new Map<string, StatusWrite>();
  /** Every write told after the last call has a number above this (lastStatusWriteMark). */
  #since = 0;

  constructor(reads: SqliteMetricsReads, accountId: string, close: () => void) {
    this.#reads = reads;
    this.#accountId = accountId;
    this.#close = close;
  }

  written(checkId: string, write: StatusWrite): void {
    this.#written.set(checkId, write);
  }

  forget(): void {
    this.#readAll = true;
  }

  async next(): Promise<StatusBatch> {
    const dataVersion = this.#reads.dataVersion();
    const written = this.#written;
    this.#written = new Map();
    const since = this.#since;
    this.#since = lastStatusWriteMark();
    if (this.#readAll || dataVersion !== this.#dataVersion || !this.#reads.told) {
      this.#readAll = false;
      this.#dataVersion = dataVersion;
      return { full: true, statuses: this.#reads.statusesOf(this.#accountId) };
    }
    if (written.size === 0) return { full: false, statuses: [] };
    // What the writes said stands where their numbers still do; a write rolled back since took its
    // number with it, and its row is read again as it stayed.
    const marks = new Map<string, number>();
    for (const [checkId, write] of written) marks.set(checkId, write.mark);
    const stands = standingStatusWrites(this.#reads.db, this.#accountId, since, marks);
    const statuses: FollowedStatus[] = [];
    const reread: string[] = [];
    for (const [checkId, write] of written) {
      if (stands(checkId)) statuses.push([checkId, write.status ?? (JSON.parse(write.doc) as StatusFields)]);
      else reread.push(checkId);
    }
    if (reread.length > 0) statuses.push(...this.#reads.statusesOfChecks(this.#accountId, reread));
    return { full: false, statuses };
  }

  close(): void {
    this.#close();
  }
}
