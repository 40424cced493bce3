/**
 * The dashboards port (dashboard-ports.ts) in PostgreSQL (migrations.ts, step 19): the document as
 * the text written, with its `dashboardId` and its names (lower case) beside it under unique indexes.
 * Integer ids are counted in `document_id_counters` under the kind `dashboards`, as SQLite counts every
 * collection's in one table.
 */
import { sql, type Kysely } from 'kysely';
import {
  checkDashboard,
  checkDashboardKey,
  checkDashboardName,
  checkDashboardPaging,
  dashboardNameKey,
  DashboardNameTaken,
  type DashboardDocument,
  type DashboardName,
  type Dashboards,
} from '../dashboard-ports.js';
import { text } from '../port-rules.js';
import type { PostgresSchema } from './database.js';
import { withinTransaction } from './documents.js';

/** On the pool, or on a unit of work's transaction. */
export class PostgresDashboards implements Dashboards {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async insert(accountId: string, build: (id: number) => DashboardDocument): Promise<DashboardDocument> {
    text('accountId', accountId);
    return withinTransaction(this.#db, async (tx) => {
      const { rows } = await sql<{ last_id: number }>`
        INSERT INTO document_id_counters (kind, account_id, last_id) VALUES ('dashboards', ${accountId}, 1)
        ON CONFLICT (kind, account_id) DO UPDATE SET last_id = document_id_counters.last_id + 1
        RETURNING last_id`.execute(tx);
      const doc = build(rows[0]!.last_id);
      checkDashboard(accountId, doc);
      const { url, domain } = namesOf(doc);
      try {
        await sql`
          INSERT INTO dashboards (account_id, id, doc, dashboard_id, custom_url, custom_domain)
          VALUES (${accountId}, ${doc.id}, ${JSON.stringify(doc)}, ${doc.dashboardId}, ${url}, ${domain})`.execute(tx);
      } catch (error) {
        throw nameTaken(error, url, domain) ?? error;
      }
      return doc;
    });
  }

  async get(accountId: string, dashboardId: string): Promise<DashboardDocument | undefined> {
    checkDashboardKey(accountId, dashboardId);
    const { rows } = await sql<{ doc: string }>`SELECT doc FROM dashboards WHERE account_id = ${accountId} AND dashboard_id = ${dashboardId}`.execute(this.#db);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].doc) as DashboardDocument);
  }

  async named(accountId: string, name: DashboardName, value: string): Promise<DashboardDocument | undefined> {
    text('accountId', accountId);
    checkDashboardName(name, value);
    const key = value.toLowerCase();
    const { rows } = await (name === 'customUrl'
      ? sql<{ doc: string }>`SELECT doc FROM dashboards WHERE account_id = ${accountId} AND custom_url = ${key}`
      : sql<{ doc: string }>`SELECT doc FROM dashboards WHERE account_id = ${accountId} AND custom_domain = ${key}`
    ).execute(this.#db);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].doc) as DashboardDocument);
  }

  async holder(name: DashboardName, value: string): Promise<string | undefined> {
    checkDashboardName(name, value);
    const key = value.toLowerCase();
    const { rows } = await (name === 'customUrl'
      ? sql<{ dashboard_id: string }>`SELECT dashboard_id FROM dashboards WHERE custom_url = ${key}`
      : sql<{ dashboard_id: string }>`SELECT dashboard_id FROM dashboards WHERE custom_domain = ${key}`
    ).execute(this.#db);
    return rows[0]?.dashboard_id;
  }

  async page(accountId: string, paging: { readonly limit: number; readonly page: number }): Promise<{ items: DashboardDocument[]; total: number }> {
    checkDashboardPaging(accountId, paging);
    const offset = (paging.page - 1) * paging.limit;
    // One statement, so the total and the page are of one snapshot.
    const { rows } = await sql<{ total: number; doc: string | null }>`
      WITH total AS (SELECT count(*) AS total FROM dashboards WHERE account_id = ${accountId}),
           page AS (SELECT seq, doc FROM dashboards WHERE account_id = ${accountId} ORDER BY seq LIMIT ${paging.limit} OFFSET ${offset})
      SELECT total.total, page.doc FROM total LEFT JOIN page ON true ORDER BY page.seq`.execute(this.#db);
    const total = Number(rows[0]?.total ?? 0);
    return { items: rows.flatMap((row) => (row.doc === null ? [] : [JSON.parse(row.doc) as DashboardDocument])), total };
  }

  async replace(accountId: string, doc: DashboardDocument): Promise<boolean> {
    checkDashboard(accountId, doc);
    const { url, domain } = namesOf(doc);
    try {
      const result = await sql`
        UPDATE dashboards SET doc = ${JSON.stringify(doc)}, dashboard_id = ${doc.dashboardId}, custom_url = ${url}, custom_domain = ${domain}
        WHERE account_id = ${accountId} AND id = ${doc.id}`.execute(this.#db);
      return Number(result.numAffectedRows ?? 0) > 0;
    } catch (error) {
      throw nameTaken(error, url, domain) ?? error;
    }
  }

  async remove(accountId: string, dashboardId: string): Promise<boolean> {
    checkDashboardKey(accountId, dashboardId);
    const result = await sql`DELETE FROM dashboards WHERE account_id = ${accountId} AND dashboard_id = ${dashboardId}`.execute(this.#db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }
}

function namesOf(doc: DashboardDocument): { url: string | null; domain: string | null } {
  return { url: dashboardNameKey(doc['customUrl']), domain: dashboardNameKey(doc['customDomain']) };
}

/** The refusal a unique violation of the names' indexes stands for (the index names the column), or undefined. */
function nameTaken(error: unknown, url: string | null, domain: string | null): DashboardNameTaken | undefined {
  const failure = error as { code?: unknown; constraint?: unknown } | null;
  if (failure?.code !== '23505') return undefined;
  if (url !== null && failure.constraint === 'dashboards_custom_url') return new DashboardNameTaken('customUrl', url);
  if (domain !== null && failure.constraint === 'dashboards_custom_domain') return new DashboardNameTaken('customDomain', domain);
  return undefined;
}
