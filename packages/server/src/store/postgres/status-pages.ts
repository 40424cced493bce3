/**
 * The status-page port (status-page-ports.ts) in PostgreSQL (migrations.ts, step 14). The services a
 * page shows are copied out of its document at each save (`shown_services`), so a service's delete
 * finds the pages showing it through the array's GIN index instead of reading every page.
 */
import { sql, type Kysely } from 'kysely';
import { text } from '../port-rules.js';
import { checkStatusPage, servedName, servicesShown, type StatusPageDocument, type StatusPages, type StatusPageShowing } from '../status-page-ports.js';
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
    await sql`
      INSERT INTO status_pages (account_id, id, doc, url, custom_domain, shown_services)
      VALUES (${accountId}, ${page.id}, ${doc}, ${url}, ${customDomain}, ${services}::text[])
      ON CONFLICT (account_id, id) DO UPDATE
        SET doc = excluded.doc, url = excluded.url, custom_domain = excluded.custom_domain, shown_services = excluded.shown_services`.execute(this.#db);
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
    const result = await sql`DELETE FROM status_pages WHERE account_id = ${accountId} AND id = ${id}`.execute(this.#db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  async showingService(accountId: string, serviceId: string): Promise<StatusPageShowing[]> {
    text('accountId', accountId);
    text('serviceId', serviceId, 255);
    const { rows } = await sql<{ id: string; doc: string }>`
      SELECT id, doc FROM status_pages WHERE account_id = ${accountId} AND shown_services @> ARRAY[${serviceId}]::text[] ORDER BY seq`.execute(this.#db);
    return rows.map((row) => ({ id: row.id, name: (JSON.parse(row.doc) as StatusPageDocument).name }));
  }
}
