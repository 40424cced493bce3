/**
 * The PostgreSQL engine of the documents port: a table per kind (migrations.ts, step 9) with the
 * document as the text written and the columns the list filters match, integer ids from
 * `document_id_counters`, and the change feed in `document_changes`.
 *
 * A feed position taken when a write is made (a sequence) would follow the order writers ask, not the
 * order they commit: a reader could see position 11 committed while 10 is still in flight, move past
 * it, and never see 10. Taking positions one writer at a time under a lock held to the commit orders
 * them, but serialises every write's commit (its fsync) across replicas: 208 creates a second against
 * 1,608 without the lock, measured. So a write adds its entry without a position, and the feed's
 * readers number the entries that have committed (`numberCommitted`): under a transaction-scoped lock,
 * one numbering at a time, each entry a reader can see gets the next position after the highest
 * given, in the order the entries were written. An entry still in flight is not visible, and is
 * numbered by a later numbering, after every position given before it: a reader never passes it. Two
 * writes of one document are ordered by its row lock, so their entries are numbered in that order.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { DOCUMENT_ID_KINDS, type AccountStoredText, type InsertedUnless, type ChangeBatch, type DocumentChange, type DocumentId, type DocumentKind, type DocumentPage, type DocumentPageRequest, type ResourceDocument, type ResourceDocuments, type SequencedDocument, type SplicedPage, type StoredText, type TextPage } from '../document-ports.js';
import { asciiLower, checkBuiltDocument, checkChosenIdDocument, checkCursor, checkDocument, checkDocumentKey, checkDocumentKeys, checkDocumentKind, checkFeedRead, checkInsertUnless, checkPageAfter, checkPageRequest, checkPruneChanges, checkSplicedTail } from '../document-rules.js';
import { CHECK_COLUMNS } from '../formats/check-columns.js';
import { uuidV7 } from '../formats/uuid-v7.js';
import { text } from '../port-rules.js';
import type { PostgresSchema } from './database.js';
import type { DocumentVacuums } from './document-vacuums.js';

/** The numbering's advisory lock: the bytes of "vigilfed", apart from the migrations' "vigilmig". */
export const FEED_LOCK = 0x76_69_67_69_6c_66_65_64n;

type Db = Kysely<PostgresSchema> | Transaction<PostgresSchema>;

/**
 * Runs `work` in a transaction of its own, or in the one `db` already is (a unit of work's: its
 * writes then commit, or roll back, with the unit).
 */
export function withinTransaction<T>(db: Kysely<PostgresSchema>, work: (tx: Transaction<PostgresSchema>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Transaction<PostgresSchema>) : db.transaction().execute(work);
}

/**
 * What the list filters match, folded as the SQLite engine's SQL folds it (document-rules.ts); also
 * what `vigil server migrate-data` fills beside each copied document.
 */
export function matchedColumns(kind: DocumentKind, doc: ResourceDocument): Record<string, unknown> {
  const name = doc['name'];
  const columns: Record<string, unknown> = {
    name_folded: typeof name === 'string' ? asciiLower(name) : typeof name === 'number' ? String(name) : null,
    tags: JSON.stringify(Array.isArray(doc['tags']) ? doc['tags'] : []),
  };
  if (kind === 'checks') {
    const url = (doc['request'] as { url?: unknown } | null | undefined)?.url;
    columns['api_url_folded'] = typeof url === 'string' ? asciiLower(url) : null;
    for (const column of CHECK_COLUMNS) columns[column.column] = column.value(doc as Record<string, unknown>);
  }
  return columns;
}

/**
 * The `seq`s of a page, skipped and ordered on their own before any document is read: the rows the
 * offset skips are never fetched whole, and when the planner's statistics are stale (a bulk write
 * autoanalyze has not seen yet, so it expects a hundred rows where there are ten thousand) it sorts
 * narrow keys in memory rather than whole documents on disk (33 ms against 4 for the last page of
 * 10,000 checks right after they were written).
 */
function pageKeys(table: ReturnType<typeof sql.table>, where: ReturnType<typeof sql>, limit: number, offset: number) {
  return sql`SELECT seq FROM ${table} WHERE ${where} ORDER BY seq LIMIT ${limit} OFFSET ${offset}`;
}

/** On the pool, or on a unit of work's transaction (the same class serves both). */

export class PostgresDocuments implements ResourceDocuments {
  readonly #db: Kysely<PostgresSchema>;
  readonly #vacuums: DocumentVacuums | undefined;

  /** `vacuums`: the replica's, told of inserts and page reads (document-vacuums.ts); none, none are started. */
  constructor(db: Kysely<PostgresSchema>, vacuums?: DocumentVacuums) {
    this.#db = db;
    this.#vacuums = vacuums;
  }

  async insert(kind: DocumentKind, accountId: string, build: (id: DocumentId) => ResourceDocument): Promise<ResourceDocument> {
    checkDocumentKind(kind);
    text('accountId', accountId);
    const write = async (db: Kysely<PostgresSchema>, id: DocumentId): Promise<ResourceDocument> => {
      const doc = build(id);
      checkBuiltDocument(kind, id, doc);
      const columns = { account_id: accountId, id: String(id), doc: JSON.stringify(doc), ...matchedColumns(kind, doc) };
      const names = Object.keys(columns);
      await withChange(db, kind, accountId, sql`INSERT INTO ${sql.table(kind)} (${sql.join(names.map((name) => sql.ref(name)))}) VALUES (${sql.join(Object.values(columns))})`);
      this.#vacuums?.inserted(kind);
      return doc;
    };
    // A uuid is made here, so the document and its feed entry are one statement, atomic on its own;
    // an integer id is counted first, in the same transaction as the document that takes it.
    if (DOCUMENT_ID_KINDS[kind] === 'uuid') return write(this.#db, uuidV7());
    return withinTransaction(this.#db, async (tx) => write(tx, await nextId(tx, kind, accountId)));
  }

  async insertUnlessAny(kind: DocumentKind, accountId: string, build: (id: DocumentId) => ResourceDocument, unless: DocumentKind, limit: number): Promise<InsertedUnless> {
    checkInsertUnless(kind, accountId, unless, limit);
    const id = uuidV7();
    const doc = build(id);
    checkBuiltDocument(kind, id, doc);
    const columns = { account_id: accountId, id, doc: JSON.stringify(doc), ...matchedColumns(kind, doc) };
    const names = Object.keys(columns);
    // One statement: the look at the other kind, the insert only when it found nothing, and the
    // insert's feed entry (as withChange adds it). A create is then one round trip fewer than a read
    // and a write, and atomic on its own as withChange's statements are.
    const { rows } = await sql<{ written: number; present: string[] | null }>`
      WITH present AS (SELECT seq, doc FROM ${sql.table(unless)} WHERE account_id = ${accountId} ORDER BY seq LIMIT ${limit}),
      written AS (
        INSERT INTO ${sql.table(kind)} (${sql.join(names.map((name) => sql.ref(name)))})
        SELECT ${sql.join(Object.values(columns))} WHERE NOT EXISTS (SELECT 1 FROM present)
        RETURNING id
      ),
      entry AS (
        INSERT INTO document_changes (kind, account_id, id, changed_ms) SELECT ${kind}, ${accountId}, written.id, ${Date.now()}::bigint FROM written
        RETURNING 1
      )
      SELECT (SELECT count(*)::int FROM entry) AS written, (SELECT array_agg(doc ORDER BY seq) FROM present) AS present`.execute(this.#db);
    const { written, present } = rows[0]!;
    if (written > 0) {
      this.#vacuums?.inserted(kind);
      return { inserted: doc };
    }
    return { present: (present ?? []).map((text) => JSON.parse(text) as ResourceDocument) };
  }

  async insertWithId(kind: DocumentKind, accountId: string, doc: ResourceDocument): Promise<boolean> {
    checkChosenIdDocument(kind, accountId, doc);
    const columns = { account_id: accountId, id: String(doc.id), doc: JSON.stringify(doc), ...matchedColumns(kind, doc) };
    const names = Object.keys(columns);
    // Taken also when another account holds the id, as on SQLite, whose checks and services have ids
    // unique across the service. The key's unique index decides between writers of one account at once.
    const inserted = await withChange(this.#db, kind, accountId, sql`INSERT INTO ${sql.table(kind)} (${sql.join(names.map((name) => sql.ref(name)))})
      SELECT ${sql.join(Object.values(columns))} WHERE NOT EXISTS (SELECT 1 FROM ${sql.table(kind)} WHERE id = ${String(doc.id)})
      ON CONFLICT (account_id, id) DO NOTHING`);
    if (inserted) this.#vacuums?.inserted(kind);
    return inserted;
  }

  async get(kind: DocumentKind, accountId: string, id: DocumentId): Promise<ResourceDocument | undefined> {
    checkDocumentKey(kind, accountId, id);
    const { rows } = await sql<{ doc: string }>`SELECT doc FROM ${sql.table(kind)} WHERE account_id = ${accountId} AND id = ${String(id)}`.execute(this.#db);
    return rows[0] && (JSON.parse(rows[0].doc) as ResourceDocument);
  }

  async getMany(kind: DocumentKind, accountId: string, ids: readonly DocumentId[]): Promise<StoredText[]> {
    checkDocumentKeys(kind, accountId, ids);
    if (ids.length === 0) return [];
    // One array parameter, so the statement is the same text whatever the number of ids.
    const { rows } = await sql<StoredText>`SELECT id, doc AS text FROM ${sql.table(kind)} WHERE account_id = ${accountId} AND id = ANY(${ids.map(String)}::text[])`.execute(this.#db);
    return rows;
  }

  async replace(kind: DocumentKind, accountId: string, doc: ResourceDocument): Promise<boolean> {
    checkDocumentKind(kind);
    checkDocument(kind, doc);
    checkDocumentKey(kind, accountId, doc.id);
    const columns = { doc: JSON.stringify(doc), ...matchedColumns(kind, doc) };
    const assignments = Object.entries(columns).map(([name, value]) => sql`${sql.ref(name)} = ${value}`);
    return withChange(this.#db, kind, accountId, sql`UPDATE ${sql.table(kind)} SET ${sql.join(assignments)} WHERE account_id = ${accountId} AND id = ${String(doc.id)}`);
  }

  async remove(kind: DocumentKind, accountId: string, id: DocumentId): Promise<boolean> {
    checkDocumentKey(kind, accountId, id);
    return withChange(this.#db, kind, accountId, sql`DELETE FROM ${sql.table(kind)} WHERE account_id = ${accountId} AND id = ${String(id)}`);
  }

  async page(kind: DocumentKind, accountId: string, request: DocumentPageRequest): Promise<DocumentPage> {
    const { items, total } = await this.pageText(kind, accountId, request);
    return { items: items.map((item) => JSON.parse(item.text) as ResourceDocument), total };
  }

  async pageText(kind: DocumentKind, accountId: string, request: DocumentPageRequest): Promise<TextPage> {
    const where = matching(kind, accountId, request);
    this.#vacuums?.reading(kind);
    // One statement, so one snapshot and one round trip; the count is read once beside the page and
    // (unlike count(*) OVER ()) without holding every matching document to count them.
    const offset = (request.page - 1) * request.limit;
    const table = sql.table(kind);
    const { rows } = await sql<{ id: string | null; doc: string | null; total: number }>`
      SELECT page.id, page.doc, counted.total FROM (SELECT count(*)::int AS total FROM ${table} WHERE ${where}) AS counted
      LEFT JOIN LATERAL (SELECT c.id, c.doc, c.seq FROM (${pageKeys(table, where, request.limit, offset)}) AS keys JOIN ${table} c ON c.seq = keys.seq) AS page ON true
      ORDER BY page.seq`.execute(this.#db);
    // Past the last page the count still comes back, on one row without a document.
    const items = rows.filter((row) => row.doc !== null).map((row) => ({ id: row.id!, text: row.doc! }));
    return { items, total: rows[0]?.total ?? 0 };
  }

  async splicedCheckPage(accountId: string, request: DocumentPageRequest, tail: string): Promise<SplicedPage | undefined> {
    checkSplicedTail(tail);
    const where = matching('checks', accountId, request);
    this.#vacuums?.reading('checks');
    const offset = (request.page - 1) * request.limit;
    // left(doc, -1) drops the closing brace; string_agg keeps the page's order (seq).
    const { rows } = await sql<{ flagged: boolean; count: number; json: string; total: number }>`
      SELECT coalesce(bool_or(page.has_secret <> 0), false) AS flagged, count(page.seq)::int AS count,
        '[' || coalesce(string_agg(left(page.doc, -1) || ${tail}, ',' ORDER BY page.seq), '') || ']' AS json,
        (SELECT count(*)::int FROM checks WHERE ${where}) AS total
      FROM (SELECT c.seq, c.doc, c.has_secret FROM (${pageKeys(sql.table('checks'), where, request.limit, offset)}) AS keys JOIN checks c ON c.seq = keys.seq) AS page`.execute(this.#db);
    const { flagged, count, json, total } = rows[0]!;
    return flagged ? undefined : { json: Buffer.from(json), count, total };
  }

  async pageAfter(kind: DocumentKind, accountId: string, afterSeq: number, limit: number): Promise<SequencedDocument[]> {
    checkDocumentKind(kind);
    checkPageAfter(accountId, afterSeq, limit);
    const { rows } = await sql<{ seq: string | number; doc: string }>`
      SELECT seq, doc FROM ${sql.table(kind)} WHERE account_id = ${accountId} AND seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`.execute(this.#db);
    return rows.map((row) => ({ seq: Number(row.seq), doc: JSON.parse(row.doc) as ResourceDocument }));
  }

  async everyAccountAfter(kind: DocumentKind, afterSeq: number, limit: number): Promise<AccountStoredText[]> {
    checkDocumentKind(kind);
    checkCursor(afterSeq, limit);
    const { rows } = await sql<{ seq: string | number; account_id: string; id: string; doc: string }>`
      SELECT seq, account_id, id, doc FROM ${sql.table(kind)} WHERE seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`.execute(this.#db);
    return rows.map((row) => ({ seq: Number(row.seq), accountId: row.account_id, id: row.id, text: row.doc }));
  }

  async latestPosition(): Promise<number> {
    await numberCommitted(this.#db);
    return latest(this.#db);
  }

  async changesSince(position: number, limit: number): Promise<ChangeBatch> {
    checkFeedRead(position, limit);
    await numberCommitted(this.#db);
    return this.#db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (tx): Promise<ChangeBatch> => {
        const pruned = await sql<{ through: number }>`SELECT coalesce(max(through_position), 0) AS through FROM document_changes_pruned`.execute(tx);
        if (position < pruned.rows[0]!.through) return { changes: [], position: await latest(tx), reset: true };
        const { rows } = await sql<DocumentChange>`
          SELECT position, kind, account_id AS "accountId", id FROM document_changes
          WHERE position > ${position} ORDER BY position LIMIT ${limit}`.execute(tx);
        return { changes: rows, position: rows.at(-1)?.position ?? position, reset: false };
      });
  }

  async pruneChanges(beforeMs: number): Promise<number> {
    checkPruneChanges(beforeMs);
    return withinTransaction(this.#db, async (tx) => {
      const { rows } = await sql<{ pruned: number; through: number | null }>`
        WITH gone AS (DELETE FROM document_changes WHERE changed_ms < ${beforeMs} AND position IS NOT NULL RETURNING position)
        SELECT count(*)::int AS pruned, max(position) AS through FROM gone`.execute(tx);
      const { pruned, through } = rows[0]!;
      if (through !== null) {
        await sql`
          INSERT INTO document_changes_pruned (only_row, through_position) VALUES (1, ${through})
          ON CONFLICT (only_row) DO UPDATE SET through_position = greatest(document_changes_pruned.through_position, excluded.through_position)`.execute(tx);
      }
      return pruned;
    });
  }
}

/** The WHERE of a page read: the account's documents of `kind` matching every condition given. */
function matching(kind: DocumentKind, accountId: string, request: DocumentPageRequest) {
  checkDocumentKind(kind);
  checkPageRequest(kind, accountId, request);
  // Empty filters match everything, as the SQLite engine's list filters treat them.
  const conditions = [sql`account_id = ${accountId}`];
  if (request.tags !== undefined && request.tags.length > 0) conditions.push(sql`tags @> ${JSON.stringify(request.tags)}::jsonb`);
  if (request.nameContains) conditions.push(sql`strpos(name_folded, ${asciiLower(request.nameContains)}) > 0`);
  if (request.checkType !== undefined) conditions.push(sql`check_type = ${request.checkType}`);
  if (request.apiUrlContains) conditions.push(sql`check_type = 'API' AND strpos(api_url_folded, ${asciiLower(request.apiUrlContains)}) > 0`);
  if (request.groupId !== undefined) conditions.push(sql`group_id = ${request.groupId}`);
  if (request.serviceId !== undefined) conditions.push(sql`service_id = ${request.serviceId}`);
  if (request.state !== undefined) conditions.push(sql`id IN (SELECT check_id FROM check_statuses WHERE account_id = ${accountId} AND state = ${request.state})`);
  return sql.join(conditions, sql` AND `);
}

/** The account's next integer id of `kind`: counted in the insert's transaction, never handed out twice. */
async function nextId(tx: Transaction<PostgresSchema>, kind: DocumentKind, accountId: string): Promise<number> {
  const { rows } = await sql<{ last_id: number }>`
    INSERT INTO document_id_counters (kind, account_id, last_id) VALUES (${kind}, ${accountId}, 1)
    ON CONFLICT (kind, account_id) DO UPDATE SET last_id = document_id_counters.last_id + 1
    RETURNING last_id`.execute(tx);
  return rows[0]!.last_id;
}

/**
 * Runs `write` (an INSERT, UPDATE or DELETE of one document of `kind`) and adds its entry to the feed
 * in the same statement, so the two are atomic without a transaction of their own and cost one round
 * trip; a reader numbers the entry once it has committed. The entry is made from the row `write`
 * returns, after the write took the row's lock, so two writes of one document get their entries in
 * the order they wrote it. Resolves to whether `write` changed a row (no row, no entry).
 */
async function withChange(db: Kysely<PostgresSchema>, kind: DocumentKind, accountId: string, write: ReturnType<typeof sql>): Promise<boolean> {
  const { numAffectedRows } = await sql`
    WITH written AS (${write} RETURNING id)
    INSERT INTO document_changes (kind, account_id, id, changed_ms) SELECT ${kind}, ${accountId}, written.id, ${Date.now()}::bigint FROM written`.execute(db);
  return numAffectedRows !== undefined && numAffectedRows > 0n;
}

/**
 * Gives the committed entries without a position theirs, after the highest given (or pruned), in the
 * order they were written. One numbering at a time: the lock is held to this transaction's commit, and
 * the UPDATE's snapshot is taken after the lock, so it sees every position the previous one gave.
 */
async function numberCommitted(db: Kysely<PostgresSchema>): Promise<void> {
  // Most reads find every entry numbered: they take no lock and write nothing.
  const waiting = await sql`SELECT 1 FROM document_changes WHERE position IS NULL LIMIT 1`.execute(db);
  if (waiting.rows.length === 0) return;
  await withinTransaction(db, async (tx) => {
    await sql`SELECT pg_advisory_xact_lock(${FEED_LOCK.toString()}::bigint)`.execute(tx);
    await sql`
      WITH highest AS (
        SELECT greatest(
          coalesce((SELECT max(position) FROM document_changes), 0),
          coalesce((SELECT max(through_position) FROM document_changes_pruned), 0)
        ) AS position
      ),
      waiting AS (SELECT entry, row_number() OVER (ORDER BY entry) AS rank FROM document_changes WHERE position IS NULL)
      UPDATE document_changes AS change SET position = highest.position + waiting.rank
      FROM waiting, highest WHERE change.entry = waiting.entry`.execute(tx);
  });
}

/**
 * The highest committed position (or the pruned horizon when every entry was pruned). Not the
 * sequence's last value, which may belong to a write that has not committed.
 */
async function latest(db: Db): Promise<number> {
  const { rows } = await sql<{ latest: number }>`
    SELECT greatest(
      coalesce((SELECT max(position) FROM document_changes), 0),
      coalesce((SELECT max(through_position) FROM document_changes_pruned), 0)
    ) AS latest`.execute(db);
  return rows[0]!.latest;
}
