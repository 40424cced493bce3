/**
 * The SQL of the status-pages port on SQLite (status-pages-port.ts): status pages (named service-wide
 * by url and custom domain, step 16) and their subscriptions. Documents go in and come out as stored
 * JSON; the port parses them.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import { PAGE_LIMIT } from './collection.js';

/** Where a page's name is kept, for `holding`. */
export type StatusPageNameColumn = 'url' | 'custom_domain';

export class PagesTable {
  readonly #upsertPage: Statement;
  readonly #page: Statement;
  readonly #insertSubscription: Statement;
  readonly #subscriptionsOf: Statement;
  readonly #countSubscriptionsOf: Statement;
  readonly #pagesShowing: Statement;
  readonly #pagesAfter: Statement;
  readonly #holding: Record<StatusPageNameColumn, Statement>;
  readonly #deletePage: Statement;
  readonly #deleteSubscriptionsOf: Statement;
  readonly #allSubscriptionsOf: Statement;
  readonly #revision: Statement;

  constructor(db: SqliteDatabase) {
    this.#upsertPage = db.prepare(
      `INSERT INTO status_pages (account_id, id, doc, url, custom_domain) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (account_id, id) DO UPDATE SET doc = excluded.doc, url = excluded.url, custom_domain = excluded.custom_domain`,
    );
    this.#pagesAfter = db.prepare('SELECT rowid AS seq, doc FROM status_pages WHERE account_id = ? AND rowid > ? ORDER BY rowid LIMIT ?');
    this.#holding = {
      url: db.prepare('SELECT account_id AS accountId, id FROM status_pages WHERE url = ?'),
      custom_domain: db.prepare('SELECT account_id AS accountId, id FROM status_pages WHERE custom_domain = ?'),
    };
    this.#deletePage = db.prepare('DELETE FROM status_pages WHERE account_id = ? AND id = ?');
    this.#deleteSubscriptionsOf = db.prepare('DELETE FROM status_page_subscriptions WHERE account_id = ? AND status_page_id = ?');
    this.#page = db.prepare('SELECT doc FROM status_pages WHERE account_id = ? AND id = ?');
    this.#insertSubscription = db.prepare(
      'INSERT OR IGNORE INTO status_page_subscriptions (account_id, status_page_id, id, doc) VALUES (?, ?, ?, ?)',
    );
    this.#subscriptionsOf = db.prepare(
      `SELECT doc FROM status_page_subscriptions WHERE account_id = ? AND status_page_id = ? ORDER BY seq ${PAGE_LIMIT}`,
    );
    this.#countSubscriptionsOf = db.prepare(
      'SELECT COUNT(*) AS total FROM status_page_subscriptions WHERE account_id = ? AND status_page_id = ?',
    );
    this.#pagesShowing = db.prepare(
      `SELECT id, json_extract(doc, '$.name') AS name, doc FROM status_pages WHERE account_id = ? AND EXISTS (
         SELECT 1 FROM json_each(status_pages.doc, '$.cards') AS card, json_each(card.value, '$.services') AS service
         WHERE json_extract(service.value, '$.id') = ?)
       ORDER BY rowid`,
    );
    this.#allSubscriptionsOf = db.prepare('SELECT doc FROM status_page_subscriptions WHERE account_id = ? AND status_page_id = ? ORDER BY seq');
    this.#revision = db.prepare('SELECT coalesce((SELECT revision FROM status_page_revision WHERE only_row = 1), 0)').pluck();
  }

  /** Writes a page; `url` and `customDomain` are its names (lower case), null when it has none. */
  putPage(accountId: string, id: string, doc: string, url: string | null, customDomain: string | null): void {
    this.#upsertPage.run(accountId, id, doc, url, customDomain);
  }

  /** Up to `limit` of the account's pages stored after row `after`, oldest first, with their row numbers. */
  pagesAfter(accountId: string, after: number, limit: number): Array<{ seq: number; doc: string }> {
    return this.#pagesAfter.all(accountId, after, limit) as Array<{ seq: number; doc: string }>;
  }

  /** The page of the whole service (any account) whose url or custom domain is `value`. */
  holding(column: StatusPageNameColumn, value: string): { accountId: string; id: string } | undefined {
    return this.#holding[column].get(value) as { accountId: string; id: string } | undefined;
  }

  /** Deletes a page and its subscriptions, which belong to no other page; returns whether there was a page. */
  deletePage(accountId: string, id: string): boolean {
    this.#deleteSubscriptionsOf.run(accountId, id);
    return this.#deletePage.run(accountId, id).changes > 0;
  }

  page(accountId: string, id: string): string | undefined {
    return (this.#page.get(accountId, id) as { doc: string } | undefined)?.doc;
  }

  /** The account's pages with a card showing the service, in order of creation. */
  pagesShowing(accountId: string, serviceId: string): Array<{ id: string; name: string; doc: string }> {
    return this.#pagesShowing.all(accountId, serviceId) as Array<{ id: string; name: string; doc: string }>;
  }

  /** Adds a subscription unless its id is stored; returns whether it was new. */
  addSubscription(accountId: string, statusPageId: string, id: string, doc: string): boolean {
    return this.#insertSubscription.run(accountId, statusPageId, id, doc).changes > 0;
  }

  subscriptionCount(accountId: string, statusPageId: string): number {
    return (this.#countSubscriptionsOf.get(accountId, statusPageId) as { total: number }).total;
  }

  /** A page of a status page's subscriptions, in order of creation. */
  subscriptionsOf(accountId: string, statusPageId: string, limit: number, offset: number): string[] {
    return (this.#subscriptionsOf.all(accountId, statusPageId, limit, offset) as Array<{ doc: string }>).map((row) => row.doc);
  }

  /** Every subscription of a status page, in order of creation. */
  allSubscriptionsOf(accountId: string, statusPageId: string): string[] {
    return (this.#allSubscriptionsOf.all(accountId, statusPageId) as Array<{ doc: string }>).map((row) => row.doc);
  }

  /** Moved by every write to `status_pages` and `incidents`, whoever made it (steps 37 and 38's triggers). */
  pagesRevision(): number {
    return this.#revision.get() as number;
  }
}
