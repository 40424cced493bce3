/**
 * A collection is one table of JSON documents owned by accounts. Every collection has the same
 * columns: `seq` (insertion order, never reused, so paging is stable: oldest first, and ties cannot
 * happen), `account_id` (tenancy: every query filters on it, so another tenant's id reads as missing),
 * `id` (the public id as text) and `doc` (the stored resource as JSON).
 */
import type { Statement } from 'better-sqlite3';
import { BoundedMap } from '../../bounded-map.js';
import type { SqliteDatabase } from '../database.js';
import { idCounter, type NextId } from './id-counters.js';
import { uuidV7 } from '../formats/uuid-v7.js';
import type { DocumentColumn as IndexedColumn } from '../formats/check-columns.js';

export { uuidV7 } from '../formats/uuid-v7.js';

export type IdKind = 'uuid' | 'integer';
export type PublicId = string | number;

/**
 * A SQL condition on the collection's rows (`doc` is the JSON column), with its positional values.
 * The SQL must not depend on the values (not even on how many there are): each distinct condition
 * text prepares and caches its own statements, so a list of values goes in as one JSON parameter.
 */
export interface Filter {
  readonly sql: string;
  readonly values: readonly unknown[];
  /**
   * The condition reads another table, written without this collection knowing (check statuses):
   * what list calls learn about it (totals, positions) is not remembered, since no write through
   * this collection would drop it.
   */
  readonly volatile?: boolean;
}

export interface PageRequest {
  readonly limit: number;
  readonly page: number;
  readonly filters?: readonly Filter[];
}

export type { DocumentColumn as IndexedColumn } from '../formats/check-columns.js';

export interface Page<T> {
  readonly items: T[];
  readonly total: number;
}


/** DDL for a collection table; used by migrations, so a collection's layout is versioned with them. */
export function collectionTableSql(table: string): string {
  return `CREATE TABLE ${table} (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id TEXT NOT NULL,
    id TEXT NOT NULL UNIQUE,
    doc TEXT NOT NULL
  );
  CREATE INDEX ${table}_account_seq ON ${table} (account_id, seq);`;
}

/** A page serialised by SQLite (see `Collection.pageSpliced`). */
export interface SplicedPage {
  /** UTF-8 JSON array text. */
  readonly json: Buffer;
  /** How many documents it holds. */
  readonly count: number;
  readonly total: number;
}

interface PageStatements {
  readonly docs: Statement;
  readonly rows: Statement;
  readonly count: Statement;
  /** Every matching seq in order, to find where pages start. */
  readonly seqs: Statement;
}

interface ListPositions {
  readonly total: number;
  /** `starts[i]` is the seq of the row at position `i * POSITION_STRIDE`. */
  starts?: number[];
}

/** Rows between remembered positions; a page start is a seek plus at most this many index steps. */
const POSITION_STRIDE = 64;
/** Below this offset, stepping over the index entries is cheaper than reading every position once. */
const DEEP_OFFSET = 1000;
const MAX_REMEMBERED_FILTERS = 64;
/**
 * Prepared statements kept per collection, by WHERE clause. Filters have a handful of shapes (see
 * Filter), so this only caps what a future filter built from caller input could cost: each entry
 * holds four compiled statements.
 */
const MAX_CACHED_WHERE_CLAUSES = 16;

/**
 * better-sqlite3's SQLite is built with STAT4, which marks a bare `LIMIT ?` parameter as one the
 * plan may depend on: every bind then expires the statement and the next run prepares it again
 * (~10 µs per query, more than reading a one-row page). A parameter inside an expression is not
 * marked; the values are integers either way.
 */
export const PAGE_LIMIT = 'LIMIT CAST(? AS INTEGER) OFFSET CAST(? AS INTEGER)';

function everyNth(values: readonly number[], n: number): number[] {
  const picked: number[] = [];
  for (let index = 0; index < values.length; index += n) picked.push(values[index]!);
  return picked;
}

export class Collection<T extends { id: PublicId }> {
  readonly table: string;
  readonly idKind: IdKind;
  readonly #db: SqliteDatabase;
  readonly #insert: Statement;
  readonly #insertUnlessTaken: Statement;
  /** Integer collections: the account's next id (see id-counters.ts). */
  readonly #nextId: NextId | undefined;
  readonly #get: Statement;
  readonly #update: Statement;
  readonly #delete: Statement;
  readonly #after: Statement;
  readonly #columns: readonly IndexedColumn[];
  readonly #pageCache = new BoundedMap<string, PageStatements>(MAX_CACHED_WHERE_CLAUSES);
  readonly #splicedCache = new BoundedMap<string, Statement>(MAX_CACHED_WHERE_CLAUSES);
  /**
   * What list calls learned about each filter since the last write: its total and, once a deep page
   * was asked for, where every POSITION_STRIDE-th row starts. Dropped on every write. Callers page
   * through an unchanged collection (`vigil plan` reads every page), so page N costs a seek instead of
   * stepping over (N-1) × limit index entries, which made deep pages several times dearer than page 1.
   */
  readonly #positions = new BoundedMap<string, ListPositions>(MAX_REMEMBERED_FILTERS);

  constructor(db: SqliteDatabase, table: string, idKind: IdKind, columns: readonly IndexedColumn[] = []) {
    this.#db = db;
    this.table = table;
    this.idKind = idKind;
    this.#columns = columns;
    // `seq` is left to AUTOINCREMENT, which keeps the high-water mark in sqlite_sequence, so row order
    // never restarts, and two connections to the file (replicas on one database) cannot both take a
    // value. Integer ids come from per-account counters (id_counters), which never step back either: a
    // deleted group's id does not come back as another group.
    const extra = columns.map((column) => `, ${column.column}`).join('');
    const extraValues = columns.map(() => ', ?').join('');
    const extraSet = columns.map((column) => `, ${column.column} = ?`).join('');
    this.#insert = db.prepare(`INSERT INTO ${table} (account_id, id, doc${extra}) VALUES (?, ?, ?${extraValues})`);
    this.#insertUnlessTaken = db.prepare(`INSERT INTO ${table} (account_id, id, doc${extra}) VALUES (?, ?, ?${extraValues}) ON CONFLICT DO NOTHING`);
    this.#nextId = idKind === 'integer' ? idCounter(db) : undefined;
    this.#get = db.prepare(`SELECT doc FROM ${table} WHERE account_id = ? AND id = ?`);
    this.#update = db.prepare(`UPDATE ${table} SET doc = ?${extraSet} WHERE account_id = ? AND id = ?`);
    this.#delete = db.prepare(`DELETE FROM ${table} WHERE account_id = ? AND id = ?`);
    // The limit inside an expression, for the reason PAGE_LIMIT gives.
    this.#after = db.prepare(`SELECT seq, doc FROM ${table} WHERE account_id = ? AND seq > ? ORDER BY seq LIMIT CAST(? AS INTEGER)`);
  }

  /** Up to `limit` rows stored after `afterSeq`, oldest first, each with its seq (a cursor to go on from). */
  after(accountId: string, afterSeq: number, limit: number): Array<{ seq: number; doc: string }> {
    return this.#after.all(accountId, afterSeq, limit) as Array<{ seq: number; doc: string }>;
  }

  /** Allocates the id, lets `build` make the document around it, and stores it. */
  insert(accountId: string, build: (id: PublicId) => T): T {
    // Counted per account, in the transaction of the insert: a rolled-back create gives its id back.
    const id: PublicId = this.#nextId ? this.#nextId(this.table, accountId) : uuidV7();
    const doc = build(id);
    this.#insert.run(accountId, String(id), JSON.stringify(doc), ...this.#columnValues(doc));
    this.#wrote();
    return doc;
  }

  /**
   * Stores `doc` under its own id unless that id is taken (in the account, or across the service where
   * the table's ids are unique across it: checks and services); returns whether it stored it.
   */
  insertWithId(accountId: string, doc: T): boolean {
    if (this.#insertUnlessTaken.run(accountId, String(doc.id), JSON.stringify(doc), ...this.#columnValues(doc)).changes === 0) return false;
    this.#wrote();
    return true;
  }

  get(accountId: string, id: PublicId): T | undefined {
    const row = this.#get.get(accountId, String(id)) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as T) : undefined;
  }

  /** Stores `doc` in place of the document with its id; false when the account has none. */
  replace(accountId: string, doc: T): boolean {
    const replaced = this.#update.run(JSON.stringify(doc), ...this.#columnValues(doc), accountId, String(doc.id)).changes > 0;
    this.#wrote();
    return replaced;
  }

  remove(accountId: string, id: PublicId): boolean {
    this.#wrote();
    return this.#delete.run(accountId, String(id)).changes > 0;
  }

  /**
   * Drops the totals and positions list calls learned: another connection wrote to the file (they
   * were learned from rows it may have changed).
   */
  forgetListPositions(): void {
    this.#positions.clear();
  }

  /** Drops what list calls learned (after a rolled-back write). */
  forgetPositions(): void {
    this.#positions.clear();
  }

  #wrote(): void {
    this.#positions.clear();
  }

  #columnValues(doc: T): Array<string | number | null> {
    return this.#columns.map((column) => column.value(doc));
  }

  /** One page in insertion order plus the total that matches the filters. */
  page(accountId: string, request: PageRequest): Page<T> {
    const { items, total } = this.pageText(accountId, request);
    return { items: items.map((doc) => JSON.parse(doc) as T), total };
  }

  /** As `page`, with each document as its stored JSON text (for responses built without parsing). */
  pageText(accountId: string, request: PageRequest): Page<string> {
    const { statements, args, total } = this.#locate(accountId, request);
    return { items: args === undefined ? [] : (statements.docs.all(...args) as string[]), total };
  }

  /**
   * As `pageText`, with each document's public id. Only for callers that need the ids: with them,
   * better-sqlite3 builds an object per row, which costs about as much as reading the documents.
   */
  pageRows(accountId: string, request: PageRequest): Page<{ id: string; doc: string }> {
    const { statements, args, total } = this.#locate(accountId, request);
    return { items: args === undefined ? [] : (statements.rows.all(...args) as Array<{ id: string; doc: string }>), total };
  }

  /**
   * As `pageText`, but SQLite writes the page as one JSON array with `tail` in place of each stored
   * document's closing brace, returned as a single buffer: no string per document is made in the
   * JavaScript heap, scanned and encoded again, which was most of the CPU and garbage of a list call.
   * Undefined when a document of the page has `flagColumn` set (the caller must present it in JS).
   * Relies on stored documents being JSON objects written by `JSON.stringify` (ending in `}`).
   */
  pageSpliced(accountId: string, request: PageRequest, tail: string, flagColumn: string): SplicedPage | undefined {
    const { args, total, where } = this.#locate(accountId, request);
    if (args === undefined) return { json: Buffer.from('[]'), count: 0, total };
    const key = `${flagColumn}\u0000${where}`;
    let statement = this.#splicedCache.get(key);
    if (!statement) {
      // The cast to BLOB makes length() and substr() count bytes instead of walking UTF-8 characters.
      // No ORDER BY inside group_concat: it made SQLite sort the page in a temporary B-tree (twice the
      // cost of the query). A LIMITed subquery under an aggregate is not flattened but run as a
      // co-routine, so the aggregate takes its rows in `seq` order (check-secrets.test.ts compares
      // pages with the checks read one by one).
      statement = this.#db
        .prepare(
          `SELECT max(${flagColumn}), count(*), CAST('[' || coalesce(group_concat(substr(CAST(doc AS BLOB), 1, length(CAST(doc AS BLOB)) - 1) || ?, ','), '') || ']' AS BLOB)
           FROM (SELECT seq, doc, ${flagColumn} FROM ${this.table} WHERE ${where} AND seq >= ? ORDER BY seq ${PAGE_LIMIT})`,
        )
        .raw();
      this.#splicedCache.set(key, statement);
    }
    const [flagged, count, json] = statement.get(tail, ...args) as [number | null, number, Buffer];
    return flagged ? undefined : { json, count, total };
  }

  /** The statements for the request's filters, and their arguments for its page (none past the end). */
  #locate(accountId: string, request: PageRequest): { statements: PageStatements; args?: unknown[]; total: number; where: string } {
    const filters = request.filters ?? [];
    const where = ['account_id = ?', ...filters.map((filter) => `(${filter.sql})`)].join(' AND ');
    const statements = this.#statements(where);
    const values = [accountId, ...filters.flatMap((filter) => filter.values)];
    const remember = !filters.some((filter) => filter.volatile === true);
    const key = JSON.stringify([where, values]);
    let known = remember ? this.#positions.get(key) : undefined;
    if (!known) {
      known = { total: (statements.count.get(...values) as { total: number }).total };
      if (remember) this.#positions.set(key, known);
    }
    const total = known.total;
    const offset = (request.page - 1) * Math.max(request.limit, 0);
    if (offset >= total) return { statements, total, where };
    let from = 0;
    let skip = offset;
    // Positions are worth reading every row for only when they are kept for the next page.
    if (offset >= DEEP_OFFSET && remember) {
      known.starts ??= everyNth(statements.seqs.all(...values) as number[], POSITION_STRIDE);
      const stride = Math.floor(offset / POSITION_STRIDE);
      from = known.starts[stride]!;
      skip = offset - stride * POSITION_STRIDE;
    }
    return { statements, args: [...values, from, request.limit, skip], total, where };
  }

  #statements(where: string): PageStatements {
    let statements = this.#pageCache.get(where);
    if (!statements) {
      statements = {
        docs: this.#db.prepare(`SELECT doc FROM ${this.table} WHERE ${where} AND seq >= ? ORDER BY seq ${PAGE_LIMIT}`).pluck(),
        rows: this.#db.prepare(`SELECT id, doc FROM ${this.table} WHERE ${where} AND seq >= ? ORDER BY seq ${PAGE_LIMIT}`),
        count: this.#db.prepare(`SELECT COUNT(*) AS total FROM ${this.table} WHERE ${where}`),
        seqs: this.#db.prepare(`SELECT seq FROM ${this.table} WHERE ${where} ORDER BY seq`).pluck(),
      };
      this.#pageCache.set(where, statements);
    }
    return statements;
  }

  /** Every document of the account matching the filters, in insertion order (for small collections). */
  all(accountId: string, filters: readonly Filter[] = []): T[] {
    return this.page(accountId, { limit: -1, page: 1, filters }).items;
  }
}
