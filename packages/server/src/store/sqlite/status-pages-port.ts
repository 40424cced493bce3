/**
 * The status-page port (status-page-ports.ts) on the read side's own tables and statements
 * (status-pages.ts), so a page the synchronous `/v1/status-pages` routes wrote is what the port reads,
 * and the other way round.
 */
import { text } from '../port-rules.js';
import {
  checkNameLookup,
  checkPageAfter,
  checkStatusPage,
  checkSubscription,
  checkSubscriptionPage,
  servedName,
  StatusPageNameTaken,
  type SequencedStatusPage,
  type StatusPageDocument,
  type StatusPageName,
  type StatusPages,
  type StatusPageShowing,
  type StatusPageSubscriptionDocument,
  type SubscriptionPaging,
} from '../status-page-ports.js';
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
    const url = servedName(page['url']);
    const customDomain = servedName(page['customDomain']);
    try {
      await committed(this.#store, () => this.#statements().putPage(accountId, page.id, doc, url, customDomain));
    } catch (error) {
      throw nameTaken(error, url, customDomain) ?? error;
    }
  }

  async pageAfter(accountId: string, afterSeq: number, limit: number): Promise<SequencedStatusPage[]> {
    checkPageAfter(accountId, afterSeq, limit);
    return this.#statements()
      .pagesAfter(accountId, afterSeq, limit)
      .map((row) => ({ seq: row.seq, page: JSON.parse(row.doc) as StatusPageDocument }));
  }

  async holding(name: StatusPageName, value: string): Promise<{ accountId: string; id: string } | undefined> {
    checkNameLookup(name, value);
    const holder = this.#statements().holding(name === 'url' ? 'url' : 'custom_domain', value.toLowerCase());
    return holder === undefined ? undefined : { accountId: holder.accountId, id: holder.id };
  }

  async revision(): Promise<number> {
    return this.#statements().pagesRevision();
  }

  async addSubscription(accountId: string, statusPageId: string, subscription: StatusPageSubscriptionDocument): Promise<boolean> {
    checkSubscription(accountId, statusPageId, subscription);
    const doc = JSON.stringify(subscription);
    return committed(this.#store, () => this.#statements().addSubscription(accountId, statusPageId, subscription.id, doc));
  }

  async subscriptionsOf(accountId: string, statusPageId: string): Promise<StatusPageSubscriptionDocument[]> {
    text('accountId', accountId);
    text('statusPageId', statusPageId, 255);
    return this.#statements()
      .allSubscriptionsOf(accountId, statusPageId)
      .map((doc) => JSON.parse(doc) as StatusPageSubscriptionDocument);
  }

  async subscriptionPage(accountId: string, statusPageId: string, paging: SubscriptionPaging): Promise<{ items: StatusPageSubscriptionDocument[]; total: number }> {
    checkSubscriptionPage(accountId, statusPageId, paging);
    const table = this.#statements();
    const offset = (paging.page - 1) * paging.limit;
    // The count and the page from one snapshot (a savepoint inside an open unit), so they agree.
    const read = this.#store.db.transaction(() => {
      const total = table.subscriptionCount(accountId, statusPageId);
      return { total, docs: offset >= total ? [] : table.subscriptionsOf(accountId, statusPageId, paging.limit, offset) };
    });
    const { total, docs } = read();
    return { items: docs.map((doc) => JSON.parse(doc) as StatusPageSubscriptionDocument), total };
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

/** The refusal a UNIQUE failure of the names' indexes stands for (the index names the column), or undefined. */
function nameTaken(error: unknown, url: string | null, customDomain: string | null): StatusPageNameTaken | undefined {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== 'SQLITE_CONSTRAINT_UNIQUE') return undefined;
  if (url !== null && error.message.includes('status_pages.url')) return new StatusPageNameTaken('url', url);
  if (customDomain !== null && error.message.includes('status_pages.custom_domain')) return new StatusPageNameTaken('customDomain', customDomain);
  return undefined;
}
