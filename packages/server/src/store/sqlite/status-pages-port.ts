/**
 * The status-page port (status-page-ports.ts) on the read side's own tables and statements
 * (status-pages.ts), so a page the synchronous `/v1/status-pages` routes wrote is what the port reads,
 * and the other way round.
 */
import { text } from '../port-rules.js';
import { checkStatusPage, servedName, type StatusPageDocument, type StatusPages, type StatusPageShowing } from '../status-page-ports.js';
import { committed, type BatchedSqlite } from './batched.js';
import { PagesTable } from './status-pages.js';

export class SqliteStatusPages implements StatusPages {
  readonly #store: BatchedSqlite;
  #table: PagesTable | undefined;

  constructor(store: BatchedSqlite) {
    this.#store = store;
  }

  /**
   * Prepared at the first call rather than at construction: a unit's ports are built while its
   * savepoint is open, and reading `db` each call is what refuses a unit's port used after the unit.
   */
  #statements(): PagesTable {
    const db = this.#store.db;
    return (this.#table ??= new PagesTable(db));
  }

  async save(accountId: string, page: StatusPageDocument): Promise<void> {
    checkStatusPage(accountId, page);
    const doc = JSON.stringify(page);
    await committed(this.#store, () => this.#statements().putPage(accountId, page.id, doc, servedName(page['url']), servedName(page['customDomain'])));
  }

  async get(accountId: string, id: string): Promise<StatusPageDocument | undefined> {
    text('accountId', accountId);
    text('statusPageId', id, 255);
    const doc = this.#statements().page(accountId, id);
    return doc === undefined ? undefined : (JSON.parse(doc) as StatusPageDocument);
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    text('accountId', accountId);
    text('statusPageId', id, 255);
    return committed(this.#store, () => this.#statements().deletePage(accountId, id));
  }

  async showingService(accountId: string, serviceId: string): Promise<StatusPageShowing[]> {
    text('accountId', accountId);
    text('serviceId', serviceId, 255);
    return this.#statements()
      .pagesShowing(accountId, serviceId)
      .map((row) => ({ id: row.id, name: row.name }));
  }
}
