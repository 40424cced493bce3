/**
 * The dashboards port (dashboard-ports.ts) on the dashboards table (step 24 of migrations/: the
 * collection layout plus `dashboard_id`, `custom_url` and `custom_domain`, each unique across the
 * service). Integer ids come from the per-account counters every collection counts with.
 */
import type { Statement } from 'better-sqlite3';
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
import type { SqliteDatabase } from '../database.js';
import { text } from '../port-rules.js';
import { committed, type BatchedSqlite } from './batched.js';
import { PAGE_LIMIT } from './collection.js';
import { idCounter, type NextId } from './id-counters.js';

const NAME_COLUMNS = { customUrl: 'custom_url', customDomain: 'custom_domain' } as const satisfies Record<DashboardName, string>;

/** The statements, prepared once per connection's port. */
class DashboardStatements {
  readonly nextId: NextId;
  readonly insert: Statement;
  readonly get: Statement;
  readonly named: Record<DashboardName, { inAccount: Statement; holder: Statement }>;
  readonly count: Statement;
  readonly page: Statement;
  readonly replace: Statement;
  readonly remove: Statement;

  constructor(db: SqliteDatabase) {
    this.nextId = idCounter(db);
    this.insert = db.prepare('INSERT INTO dashboards (account_id, id, doc, dashboard_id, custom_url, custom_domain) VALUES (?, ?, ?, ?, ?, ?)');
    this.get = db.prepare('SELECT doc FROM dashboards WHERE account_id = ? AND dashboard_id = ?').pluck();
    const named = (column: string) => ({
      inAccount: db.prepare(`SELECT doc FROM dashboards WHERE account_id = ? AND ${column} = ?`).pluck(),
      holder: db.prepare(`SELECT dashboard_id FROM dashboards WHERE ${column} = ?`).pluck(),
    });
    this.named = { customUrl: named(NAME_COLUMNS.customUrl), customDomain: named(NAME_COLUMNS.customDomain) };
    this.count = db.prepare('SELECT count(*) FROM dashboards WHERE account_id = ?').pluck();
    this.page = db.prepare(`SELECT doc FROM dashboards WHERE account_id = ? ORDER BY seq ${PAGE_LIMIT}`).pluck();
    this.replace = db.prepare('UPDATE dashboards SET doc = ?, dashboard_id = ?, custom_url = ?, custom_domain = ? WHERE account_id = ? AND id = ?');
    this.remove = db.prepare('DELETE FROM dashboards WHERE account_id = ? AND dashboard_id = ?');
  }
}

export class SqliteDashboards implements Dashboards {
  readonly #store: BatchedSqlite;
  #prepared: DashboardStatements | undefined;

  constructor(store: BatchedSqlite) {
    this.#store = store;
  }

  /**
   * Prepared at the first call rather than at construction: a unit's ports are built while its
   * savepoint is open, and reading `db` each call is what refuses a unit's port used after the unit.
   */
  #statements(): DashboardStatements {
    const db = this.#store.db;
    return (this.#prepared ??= new DashboardStatements(db));
  }

  async insert(accountId: string, build: (id: number) => DashboardDocument): Promise<DashboardDocument> {
    text('accountId', accountId);
    return committed(this.#store, () => {
      const statements = this.#statements();
      // Counted in the insert's transaction: a refused create gives its id back.
      const doc = build(statements.nextId('dashboards', accountId));
      checkDashboard(accountId, doc);
      const { url, domain } = namesOf(doc);
      try {
        statements.insert.run(accountId, String(doc.id), JSON.stringify(doc), doc.dashboardId, url, domain);
      } catch (error) {
        throw nameTaken(error, url, domain) ?? error;
      }
      return doc;
    });
  }

  async get(accountId: string, dashboardId: string): Promise<DashboardDocument | undefined> {
    checkDashboardKey(accountId, dashboardId);
    return parsed(this.#statements().get.get(accountId, dashboardId));
  }

  async named(accountId: string, name: DashboardName, value: string): Promise<DashboardDocument | undefined> {
    text('accountId', accountId);
    checkDashboardName(name, value);
    return parsed(this.#statements().named[name].inAccount.get(accountId, value.toLowerCase()));
  }

  async holder(name: DashboardName, value: string): Promise<string | undefined> {
    checkDashboardName(name, value);
    return this.#statements().named[name].holder.get(value.toLowerCase()) as string | undefined;
  }

  async page(accountId: string, paging: { readonly limit: number; readonly page: number }): Promise<{ items: DashboardDocument[]; total: number }> {
    checkDashboardPaging(accountId, paging);
    const statements = this.#statements();
    const total = statements.count.get(accountId) as number;
    const offset = (paging.page - 1) * paging.limit;
    const docs = offset >= total ? [] : (statements.page.all(accountId, paging.limit, offset) as string[]);
    return { items: docs.map((doc) => JSON.parse(doc) as DashboardDocument), total };
  }

  async replace(accountId: string, doc: DashboardDocument): Promise<boolean> {
    checkDashboard(accountId, doc);
    const { url, domain } = namesOf(doc);
    const text = JSON.stringify(doc);
    try {
      return await committed(this.#store, () => this.#statements().replace.run(text, doc.dashboardId, url, domain, accountId, String(doc.id)).changes > 0);
    } catch (error) {
      throw nameTaken(error, url, domain) ?? error;
    }
  }

  async remove(accountId: string, dashboardId: string): Promise<boolean> {
    checkDashboardKey(accountId, dashboardId);
    return committed(this.#store, () => this.#statements().remove.run(accountId, dashboardId).changes > 0);
  }
}

function namesOf(doc: DashboardDocument): { url: string | null; domain: string | null } {
  return { url: dashboardNameKey(doc['customUrl']), domain: dashboardNameKey(doc['customDomain']) };
}

function parsed(doc: unknown): DashboardDocument | undefined {
  return typeof doc === 'string' ? (JSON.parse(doc) as DashboardDocument) : undefined;
}

/** The refusal a UNIQUE failure of the names' indexes stands for (the message names the column), or undefined. */
function nameTaken(error: unknown, url: string | null, domain: string | null): DashboardNameTaken | undefined {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== 'SQLITE_CONSTRAINT_UNIQUE') return undefined;
  if (url !== null && error.message.includes('dashboards.custom_url')) return new DashboardNameTaken('customUrl', url);
  if (domain !== null && error.message.includes('dashboards.custom_domain')) return new DashboardNameTaken('customDomain', domain);
  return undefined;
}
