/**
 * The SQLite engine of the documents port, on the store's own collections (collection.ts), so a
 * document written through the port and one written by the in-process routes are the same rows with
 * the same ids, columns and paging. The change feed is `document_changes` (step 34): a write's entry is
 * added in the write's transaction, and SQLite runs one write transaction at a time, so positions
 * are in commit order. Only writes through the port are in the feed, which the scheduler follows
 * (scheduler/stored-checks.ts): a document written to a collection directly is seen at its next full read.
 */
import type { Statement } from 'better-sqlite3';
import { DOCUMENT_KINDS, type AccountStoredText, type ChangeBatch, type DocumentId, type DocumentKind, type DocumentPage, type DocumentPageRequest, type InsertedUnless, type ResourceDocument, type ResourceDocuments, type SequencedDocument, type SplicedPage, type StoredText, type TextPage } from '../document-ports.js';
import { checkBuiltDocument, checkChosenIdDocument, checkCursor, checkDocument, checkDocumentKey, checkDocumentKeys, checkDocumentKind, checkFeedRead, checkInsertUnless, checkPageAfter, checkPageRequest, checkPruneChanges, checkSplicedTail } from '../document-rules.js';
import { text } from '../port-rules.js';
import { committed, type BatchedSqlite } from './batched.js';
import { checkFilters } from './check-filters.js';
import type { Collection, Filter } from './collection.js';
import type { StoredDoc } from './store.js';

/** The store's collections, by the kind the port names them with. */
export interface SqliteDocumentStore extends BatchedSqlite {
  readonly checks: Collection<StoredDoc>;
  readonly checkGroups: Collection<StoredDoc>;
  readonly alertChannels: Collection<StoredDoc>;
  readonly maintenanceWindows: Collection<StoredDoc>;
  readonly services: Collection<StoredDoc>;
}

export class SqliteDocuments implements ResourceDocuments {
  readonly #store: SqliteDocumentStore;
  readonly #collections: Readonly<Record<DocumentKind, Collection<StoredDoc>>>;
  readonly #record: Statement;
  readonly #latest: Statement;
  readonly #since: Statement;
  readonly #prunedThrough: Statement;
  readonly #prune: Statement;
  readonly #markPruned: Statement;
  readonly #dataVersion: Statement;
  readonly #everyAccountAfter: Readonly<Record<DocumentKind, Statement>>;
  readonly #getMany: Readonly<Record<DocumentKind, Statement>>;
  /** The file's `data_version` when this port last paged: it changes when another connection commits. */
  #pagedAtVersion: unknown;

  constructor(store: SqliteDocumentStore) {
    this.#store = store;
    this.#collections = {
      checks: store.checks,
      check_groups: store.checkGroups,
      alert_channels: store.alertChannels,
      maintenance_windows: store.maintenanceWindows,
      services: store.services,
    };
    const { db } = store;
    this.#record = db.prepare('INSERT INTO document_changes (kind, account_id, id, changed_ms) VALUES (?, ?, ?, ?)');
    this.#latest = db.prepare("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'document_changes'), 0)").pluck();
    this.#since = db.prepare('SELECT position, kind, account_id AS accountId, id FROM document_changes WHERE position > ? ORDER BY position LIMIT ?');
    this.#prunedThrough = db.prepare('SELECT coalesce((SELECT through_position FROM document_changes_pruned WHERE only_row = 1), 0)').pluck();
    this.#prune = db.prepare('DELETE FROM document_changes WHERE changed_ms < ? RETURNING position').pluck();
    this.#markPruned = db.prepare(
      `INSERT INTO document_changes_pruned (only_row, through_position) VALUES (1, ?)
       ON CONFLICT (only_row) DO UPDATE SET through_position = max(through_position, excluded.through_position)`,
    );
    this.#dataVersion = db.prepare('PRAGMA data_version').pluck();
    // `seq` is the table's rowid: a page is a range of the table itself, whatever the accounts.
    const everyAccountAfter = (table: string) =>
      db.prepare(`SELECT seq, account_id AS accountId, CAST(id AS TEXT) AS id, doc AS text FROM ${table} WHERE seq > ? ORDER BY seq LIMIT CAST(? AS INTEGER)`);
    this.#everyAccountAfter = Object.fromEntries(DOCUMENT_KINDS.map((kind) => [kind, everyAccountAfter(this.#collections[kind].table)])) as Record<DocumentKind, Statement>;
    // The ids as one JSON list of texts (the column's type), each looked up through the unique index on `id`.
    const getMany = (table: string) => db.prepare(`SELECT id, doc AS text FROM ${table} WHERE account_id = ? AND id IN (SELECT value FROM json_each(?))`);
    this.#getMany = Object.fromEntries(DOCUMENT_KINDS.map((kind) => [kind, getMany(this.#collections[kind].table)])) as Record<DocumentKind, Statement>;
  }

  async insert(kind: DocumentKind, accountId: string, build: (id: DocumentId) => ResourceDocument): Promise<ResourceDocument> {
    checkDocumentKind(kind);
    text('accountId', accountId);
    return committed(this.#store, () => {
      const doc = this.#collections[kind].insert(accountId, (id) => {
        const built = build(id);
        checkBuiltDocument(kind, id, built);
        return built as StoredDoc;
      });
      this.#record.run(kind, accountId, String(doc.id), Date.now());
      return doc;
    });
  }

  async insertUnlessAny(kind: DocumentKind, accountId: string, build: (id: DocumentId) => ResourceDocument, unless: DocumentKind, limit: number): Promise<InsertedUnless> {
    checkInsertUnless(kind, accountId, unless, limit);
    // The look and the insert in one transaction: no other connection writes in between.
    return committed(this.#store, (): InsertedUnless => {
      const present = this.#collections[unless].after(accountId, 0, limit);
      if (present.length > 0) return { present: present.map((row) => JSON.parse(row.doc) as ResourceDocument) };
      const doc = this.#collections[kind].insert(accountId, (id) => {
        const built = build(id);
        checkBuiltDocument(kind, id, built);
        return built as StoredDoc;
      });
      this.#record.run(kind, accountId, String(doc.id), Date.now());
      return { inserted: doc };
    });
  }

  async insertWithId(kind: DocumentKind, accountId: string, doc: ResourceDocument): Promise<boolean> {
    checkChosenIdDocument(kind, accountId, doc);
    return committed(this.#store, () => {
      // The look-up and the insert in one transaction: no other connection writes in between.
      const stored = this.#collections[kind].insertWithId(accountId, doc as StoredDoc);
      if (stored) this.#record.run(kind, accountId, String(doc.id), Date.now());
      return stored;
    });
  }

  async get(kind: DocumentKind, accountId: string, id: DocumentId): Promise<ResourceDocument | undefined> {
    checkDocumentKey(kind, accountId, id);
    return this.#collections[kind].get(accountId, id);
  }

  async getMany(kind: DocumentKind, accountId: string, ids: readonly DocumentId[]): Promise<StoredText[]> {
    checkDocumentKeys(kind, accountId, ids);
    if (ids.length === 0) return [];
    return this.#getMany[kind].all(accountId, JSON.stringify(ids.map(String))) as StoredText[];
  }

  async replace(kind: DocumentKind, accountId: string, doc: ResourceDocument): Promise<boolean> {
    checkDocumentKind(kind);
    checkDocument(kind, doc);
    checkDocumentKey(kind, accountId, doc.id);
    return committed(this.#store, () => {
      const replaced = this.#collections[kind].replace(accountId, doc as StoredDoc);
      if (replaced) this.#record.run(kind, accountId, String(doc.id), Date.now());
      return replaced;
    });
  }

  async remove(kind: DocumentKind, accountId: string, id: DocumentId): Promise<boolean> {
    checkDocumentKey(kind, accountId, id);
    return committed(this.#store, () => {
      const removed = this.#collections[kind].remove(accountId, id);
      if (removed) this.#record.run(kind, accountId, String(id), Date.now());
      return removed;
    });
  }

  async page(kind: DocumentKind, accountId: string, request: DocumentPageRequest): Promise<DocumentPage> {
    return this.#collectionFor(kind, accountId, request).page(accountId, { limit: request.limit, page: request.page, filters: this.#filters(accountId, request) });
  }

  async pageText(kind: DocumentKind, accountId: string, request: DocumentPageRequest): Promise<TextPage> {
    const { items, total } = this.#collectionFor(kind, accountId, request).pageRows(accountId, { limit: request.limit, page: request.page, filters: this.#filters(accountId, request) });
    return { items: items.map((row) => ({ id: row.id, text: row.doc })), total };
  }

  async splicedCheckPage(accountId: string, request: DocumentPageRequest, tail: string): Promise<SplicedPage | undefined> {
    checkSplicedTail(tail);
    const collection = this.#collectionFor('checks', accountId, request);
    return collection.pageSpliced(accountId, { limit: request.limit, page: request.page, filters: this.#filters(accountId, request) }, tail, 'has_secret');
  }

  /** The kind's collection for a page read, its remembered totals dropped if another connection committed since. */
  #collectionFor(kind: DocumentKind, accountId: string, request: DocumentPageRequest): Collection<StoredDoc> {
    checkDocumentKind(kind);
    checkPageRequest(kind, accountId, request);
    // A collection remembers list totals until it writes itself; another replica's commit must drop them.
    const version = this.#dataVersion.get();
    if (version !== this.#pagedAtVersion) {
      this.#pagedAtVersion = version;
      for (const collection of Object.values(this.#collections)) collection.forgetListPositions();
    }
    return this.#collections[kind];
  }

  /**
   * The check list's filters are the collection's SQL for every kind: tags and name live in the same
   * places of every document.
   */
  #filters(accountId: string, request: DocumentPageRequest): Filter[] {
    const filters = checkFilters(
      {
        tag: request.tags === undefined || request.tags.length === 0 ? undefined : [...request.tags],
        checkType: request.checkType,
        search: request.nameContains,
        apiCheckUrlFilterPattern: request.apiUrlContains,
      },
      request.state === undefined ? undefined : { accountId, state: request.state },
    );
    if (request.groupId !== undefined) filters.push({ sql: 'group_id = ?', values: [request.groupId] });
    if (request.serviceId !== undefined) filters.push({ sql: 'service_id = ?', values: [request.serviceId] });
    return filters;
  }

  async pageAfter(kind: DocumentKind, accountId: string, afterSeq: number, limit: number): Promise<SequencedDocument[]> {
    checkDocumentKind(kind);
    checkPageAfter(accountId, afterSeq, limit);
    return this.#collections[kind].after(accountId, afterSeq, limit).map((row) => ({ seq: row.seq, doc: JSON.parse(row.doc) as ResourceDocument }));
  }

  async everyAccountAfter(kind: DocumentKind, afterSeq: number, limit: number): Promise<AccountStoredText[]> {
    checkDocumentKind(kind);
    checkCursor(afterSeq, limit);
    await this.#committedOnly();
    return this.#everyAccountAfter[kind].all(afterSeq, limit) as AccountStoredText[];
  }

  async latestPosition(): Promise<number> {
    await this.#committedOnly();
    return this.#latest.get() as number;
  }

  async changesSince(position: number, limit: number): Promise<ChangeBatch> {
    checkFeedRead(position, limit);
    await this.#committedOnly();
    const read = this.#store.db.transaction((): ChangeBatch => {
      if (position < (this.#prunedThrough.get() as number)) return { changes: [], position: this.#latest.get() as number, reset: true };
      const changes = this.#since.all(position, limit) as ChangeBatch['changes'];
      return { changes, position: changes.at(-1)?.position ?? position, reset: false };
    });
    // One snapshot for the horizon and the rows; inside an open group commit it is a savepoint.
    return read();
  }

  /**
   * Resolves once this connection has no transaction open (a group commit, or a unit awaiting past its
   * turn), so a follower of the feed reads only what committed, as on PostgreSQL: a write it read
   * uncommitted could still roll back, taking its position back with it (the next write would be
   * numbered the same), and the follower, already past it, would never read that next write. The
   * feed's reads are not in the unit's ports, so no unit waits here for itself.
   */
  async #committedOnly(): Promise<void> {
    while (this.#store.db.inTransaction) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  async pruneChanges(beforeMs: number): Promise<number> {
    checkPruneChanges(beforeMs);
    return committed(this.#store, () => {
      const pruned = this.#prune.all(beforeMs) as number[];
      if (pruned.length > 0) this.#markPruned.run(pruned.reduce((highest, position) => Math.max(highest, position)));
      return pruned.length;
    });
  }
}
