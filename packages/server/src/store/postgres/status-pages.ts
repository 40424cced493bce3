/**
 * The status-page port (status-page-ports.ts) in PostgreSQL (migrations.ts, steps 14 and 15). The
 * services a page shows are copied out of its document at each save (`shown_services`), so a
 * service's delete finds the pages showing it through the array's GIN index instead of reading every
 * page. The revision is moved by step 15's trigger in the writing transaction.
 */
import { sql, type Kysely } from 'kysely';
import { text } from '../port-rules.js';
import {
  checkNameLookup,
  checkPageAfter,
  checkStatusPage,
  checkSubscription,
  checkSubscriptionPage,
  servedName,
  servicesShown,
  StatusPageNameTaken,
  type SequencedStatusPage,
  type StatusPageDocument,
  type StatusPageName,
  type StatusPages,
  type StatusPageShowing,
  type StatusPageSubscriptionDocument,
  type SubscriptionPaging,
} from '../status-page-ports.js';
import type { PostgresSchema } from './database.js';

/** On the pool, or on a unit of work's transaction. */
export class PostgresStatusPages implements StatusPages {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async save(accountId: string, page: StatusPageDocument): Promise<void> {
    checkStatusPage(accountId, page);
    const doc = JSON.stringify(page);
    const url = servedName(page['url']);
    const customDomain = servedName(page['customDomain']);
    const services = servicesShown(page);
    try {
      await sql`
        INSERT INTO status_pages (account_id, id, doc, url, custom_domain, shown_services)
        VALUES (${accountId}, ${page.id}, ${doc}, ${url}, ${customDomain}, ${services}::text[])
        ON CONFLICT (account_id, id) DO UPDATE
          SET doc = excluded.doc, url = excluded.url, custom_domain = excluded.custom_domain, shown_services = excluded.shown_services`.execute(this.#db);
    } catch (error) {
      throw nameTaken(error, url, customDomain) ?? error;
    }
  }

  async pageAfter(accountId: string, afterSeq: number, limit: number): Promise<SequencedStatusPage[]> {
    checkPageAfter(accountId, afterSeq, limit);
    const { rows } = await sql<{ seq: string; doc: string }>`
      SELECT seq, doc FROM status_pages WHERE account_id = ${accountId} AND seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`.execute(this.#db);
    return rows.map((row) => ({ seq: Number(row.seq), page: JSON.parse(row.doc) as StatusPageDocument }));
  }

  async holding(name: StatusPageName, value: string): Promise<{ accountId: string; id: string } | undefined> {
    checkNameLookup(name, value);
    const served = value.toLowerCase();
    const { rows } = await (name === 'url'
      ? sql<{ accountId: string; id: string }>`SELECT account_id AS "accountId", id FROM status_pages WHERE url = ${served}`
      : sql<{ accountId: string; id: string }>`SELECT account_id AS "accountId", id FROM status_pages WHERE custom_domain = ${served}`
    ).execute(this.#db);
    return rows[0] === undefined ? undefined : { accountId: rows[0].accountId, id: rows[0].id };
  }

  async revision(): Promise<number> {
    const { rows } = await sql<{ revision: string }>`SELECT revision FROM status_page_revision WHERE only_row = 1`.execute(this.#db);
    return Number(rows[0]?.revision ?? 0);
  }

  async addSubscription(accountId: string, statusPageId: string, subscription: StatusPageSubscriptionDocument): Promise<boolean> {
    checkSubscription(accountId, statusPageId, subscription);
    const result = await sql`
      INSERT INTO status_page_subscriptions (account_id, status_page_id, id, doc)
      VALUES (${accountId}, ${statusPageId}, ${subscription.id}, ${JSON.stringify(subscription)})
      ON CONFLICT DO NOTHING`.execute(this.#db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  async subscriptionsOf(accountId: string, statusPageId: string): Promise<StatusPageSubscriptionDocument[]> {
    text('accountId', accountId);
    text('statusPageId', statusPageId, 255);
    const { rows } = await sql<{ doc: string }>`
      SELECT doc FROM status_page_subscriptions WHERE account_id = ${accountId} AND status_page_id = ${statusPageId} ORDER BY seq`.execute(this.#db);
    return rows.map((row) => JSON.parse(row.doc) as StatusPageSubscriptionDocument);
  }

  async subscriptionPage(accountId: string, statusPageId: string, paging: SubscriptionPaging): Promise<{ items: StatusPageSubscriptionDocument[]; total: number }> {
    checkSubscriptionPage(accountId, statusPageId, paging);
    const offset = (paging.page - 1) * paging.limit;
    // One statement, so the count and the page are of one snapshot.
    const { rows } = await sql<{ total: number; docs: string[] }>`
      SELECT
        (SELECT count(*) FROM status_page_subscriptions WHERE account_id = ${accountId} AND status_page_id = ${statusPageId})::int AS total,
        ARRAY(SELECT doc FROM status_page_subscriptions WHERE account_id = ${accountId} AND status_page_id = ${statusPageId}
              ORDER BY seq LIMIT ${paging.limit} OFFSET ${offset}) AS docs`.execute(this.#db);
    const row = rows[0]!;
    return { items: row.docs.map((doc) => JSON.parse(doc) as StatusPageSubscriptionDocument), total: row.total };
  }

  async get(accountId: string, id: string): Promise<StatusPageDocument | undefined> {
    text('accountId', accountId);
    text('statusPageId', id, 255);
    const { rows } = await sql<{ doc: string }>`SELECT doc FROM status_pages WHERE account_id = ${accountId} AND id = ${id}`.execute(this.#db);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].doc) as StatusPageDocument);
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    text('accountId', accountId);
    text('statusPageId', id, 255);
    // One statement, so the subscriptions go with the page in any transaction, a unit's or none.
    const { rows } = await sql<{ removed: string }>`
      WITH subscriptions AS (DELETE FROM status_page_subscriptions WHERE account_id = ${accountId} AND status_page_id = ${id})
      , page AS (DELETE FROM status_pages WHERE account_id = ${accountId} AND id = ${id} RETURNING 1)
      SELECT count(*) AS removed FROM page`.execute(this.#db);
    return Number(rows[0]?.removed ?? 0) > 0;
  }

  async showingService(accountId: string, serviceId: string): Promise<StatusPageShowing[]> {
    text('accountId', accountId);
    text('serviceId', serviceId, 255);
    const { rows } = await sql<{ id: string; doc: string }>`
      SELECT id, doc FROM status_pages WHERE account_id = ${accountId} AND shown_services @> ARRAY[${serviceId}]::text[] ORDER BY seq`.execute(this.#db);
    return rows.map((row) => ({ id: row.id, name: (JSON.parse(row.doc) as StatusPageDocument).name }));
  }
}

/** The refusal a unique violation of the names' indexes stands for (the index names the column), or undefined. */
function nameTaken(error: unknown, url: string | null, customDomain: string | null): StatusPageNameTaken | undefined {
  const failure = error as { code?: unknown; constraint?: unknown } | null;
  if (failure?.code !== '23505') return undefined;
  if (url !== null && failure.constraint === 'status_pages_url') return new StatusPageNameTaken('url', url);
  if (customDomain !== null && failure.constraint === 'status_pages_custom_domain') return new StatusPageNameTaken('customDomain', customDomain);
  return undefined;
}
