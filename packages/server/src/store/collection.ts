/**
 * A collection is one table of JSON documents owned by accounts. Every collection has the same
 * columns: `seq` (insertion order, never reused, so paging is stable: oldest first, and ties cannot
 * happen), `account_id` (tenancy: every query filters on it, so another tenant's id reads as missing),
 * `id` (the public id as text) and `doc` (the stored resource as JSON).
 */
import { randomBytes } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';

export type IdKind = 'uuid' | 'integer';
export type PublicId = string | number;

/** A SQL condition on the collection's rows (`doc` is the JSON column), with its positional values. */
export interface Filter {
  readonly sql: string;
  readonly values: readonly unknown[];
}

export interface PageRequest {
  readonly limit: number;
  readonly page: number;
  readonly filters?: readonly Filter[];
}

/**
 * A value copied from the document into its own column on every write, so filters and indexes read
 * a plain column instead of SQLite parsing the JSON document (several times per insert).
 */
export interface IndexedColumn {
  readonly column: string;
  readonly value: (doc: Record<string, unknown>) => string | number | null;
}

export interface Page<T> {
  readonly items: T[];
  readonly total: number;
}

/**
 * A version 7 UUID (RFC 9562): a millisecond timestamp then random bits. Still an opaque UUID to
 * callers, but new ids sort after old ones, so inserting into the `id` index appends to its last
 * page instead of dirtying a random page per create (half the WAL writes of a random UUID).
 */
export function uuidV7(now = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
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

export class Collection<T extends { id: PublicId }> {
  readonly table: string;
  readonly idKind: IdKind;
  readonly #db: SqliteDatabase;
  #nextSeq: number;
  readonly #insert: Statement;
  readonly #get: Statement;
  readonly #update: Statement;
  readonly #delete: Statement;
  readonly #columns: readonly IndexedColumn[];
  readonly #pageCache = new Map<string, { rows: Statement; count: Statement }>();
  /** Totals by filter, dropped on every write: list calls page through an unchanged collection. */
  readonly #totals = new Map<string, number>();

  constructor(db: SqliteDatabase, table: string, idKind: IdKind, columns: readonly IndexedColumn[] = []) {
    this.#db = db;
    this.table = table;
    this.idKind = idKind;
    this.#columns = columns;
    // AUTOINCREMENT keeps the high-water mark in sqlite_sequence, so ids of deleted rows are never
    // handed out again (a deleted group's id must not come back as someone else's group).
    const row = db.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').get(table) as { seq: number } | undefined;
    this.#nextSeq = (row?.seq ?? 0) + 1;
    const extra = columns.map((column) => `, ${column.column}`).join('');
    const extraValues = columns.map(() => ', ?').join('');
    const extraSet = columns.map((column) => `, ${column.column} = ?`).join('');
    this.#insert = db.prepare(`INSERT INTO ${table} (seq, account_id, id, doc${extra}) VALUES (?, ?, ?, ?${extraValues})`);
    this.#get = db.prepare(`SELECT doc FROM ${table} WHERE account_id = ? AND id = ?`);
    this.#update = db.prepare(`UPDATE ${table} SET doc = ?${extraSet} WHERE account_id = ? AND id = ?`);
    this.#delete = db.prepare(`DELETE FROM ${table} WHERE account_id = ? AND id = ?`);
  }

  /** Allocates the id, lets `build` make the document around it, and stores it. */
  insert(accountId: string, build: (id: PublicId) => T): T {
    const seq = this.#nextSeq;
    const id: PublicId = this.idKind === 'integer' ? seq : uuidV7();
    const doc = build(id);
    this.#insert.run(seq, accountId, String(id), JSON.stringify(doc), ...this.#columnValues(doc));
    this.#nextSeq = seq + 1;
    this.#totals.clear();
    return doc;
  }

  get(accountId: string, id: PublicId): T | undefined {
    const row = this.#get.get(accountId, String(id)) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as T) : undefined;
  }

  replace(accountId: string, doc: T): void {
    this.#update.run(JSON.stringify(doc), ...this.#columnValues(doc), accountId, String(doc.id));
    this.#totals.clear();
  }

  remove(accountId: string, id: PublicId): boolean {
    this.#totals.clear();
    return this.#delete.run(accountId, String(id)).changes > 0;
  }

  /** Drops cached totals (after a rolled-back write). */
  forgetTotals(): void {
    this.#totals.clear();
  }

  #columnValues(doc: T): Array<string | number | null> {
    return this.#columns.map((column) => column.value(doc));
  }

  /** One page in insertion order plus the total that matches the filters. */
  page(accountId: string, request: PageRequest): Page<T> {
    const { items, total } = this.pageText(accountId, request);
    return { items: items.map((row) => JSON.parse(row.doc) as T), total };
  }

  /** As `page`, with each document as its stored JSON text (for responses built without parsing). */
  pageText(accountId: string, request: PageRequest): Page<{ id: string; doc: string }> {
    const filters = request.filters ?? [];
    const where = ['account_id = ?', ...filters.map((filter) => `(${filter.sql})`)].join(' AND ');
    let statements = this.#pageCache.get(where);
    if (!statements) {
      statements = {
        // The offset is skipped inside the (account_id, seq) index; only the page's rows are read whole.
        rows: this.#db.prepare(
          `SELECT id, doc FROM ${this.table} WHERE seq IN (SELECT seq FROM ${this.table} WHERE ${where} ORDER BY seq LIMIT ? OFFSET ?) ORDER BY seq`,
        ),
        count: this.#db.prepare(`SELECT COUNT(*) AS total FROM ${this.table} WHERE ${where}`),
      };
      this.#pageCache.set(where, statements);
    }
    const values = [accountId, ...filters.flatMap((filter) => filter.values)];
    const totalKey = JSON.stringify([where, values]);
    let total = this.#totals.get(totalKey);
    if (total === undefined) {
      total = (statements.count.get(...values) as { total: number }).total;
      this.#totals.set(totalKey, total);
    }
    const offset = (request.page - 1) * Math.max(request.limit, 0);
    const items = offset >= total ? [] : (statements.rows.all(...values, request.limit, offset) as Array<{ id: string; doc: string }>);
    return { items, total };
  }

  /** Every document of the account matching the filters, in insertion order (for small collections). */
  all(accountId: string, filters: readonly Filter[] = []): T[] {
    return this.page(accountId, { limit: -1, page: 1, filters }).items;
  }
}
