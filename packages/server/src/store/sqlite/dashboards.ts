/**
 * The dashboards table (step 24: the collection layout plus `dashboard_id`, `custom_url` and
 * `custom_domain`): the collection and the look-ups by the names that identify a dashboard.
 */
import type { Statement } from 'better-sqlite3';
import { Collection, type IndexedColumn } from './collection.js';
import type { SqliteDatabase } from '../database.js';
import type { StoredDoc } from './store.js';

/** The fields that name a dashboard across the service, and the column each is kept in. */
export const DASHBOARD_NAME_COLUMNS = { customUrl: 'custom_url', customDomain: 'custom_domain' } as const;
export type DashboardNameField = keyof typeof DASHBOARD_NAME_COLUMNS;

export class DashboardTable {
  readonly collection: Collection<StoredDoc>;
  readonly #byDashboardId: Statement;
  readonly #byName: Record<DashboardNameField, { inAccount: Statement; holder: Statement }>;

  /** @param columns how each name column is derived from a document (the caller's rule). */
  constructor(db: SqliteDatabase, columns: readonly IndexedColumn[]) {
    this.collection = new Collection<StoredDoc>(db, 'dashboards', 'integer', columns);
    this.#byDashboardId = db.prepare('SELECT doc FROM dashboards WHERE account_id = ? AND dashboard_id = ?').pluck();
    const byName = (column: string) => ({
      inAccount: db.prepare(`SELECT doc FROM dashboards WHERE account_id = ? AND ${column} = ?`).pluck(),
      holder: db.prepare(`SELECT dashboard_id FROM dashboards WHERE ${column} = ?`).pluck(),
    });
    this.#byName = { customUrl: byName(DASHBOARD_NAME_COLUMNS.customUrl), customDomain: byName(DASHBOARD_NAME_COLUMNS.customDomain) };
  }

  /** The stored JSON of the account's dashboard with this `dashboardId`. */
  byDashboardId(accountId: string, dashboardId: string): string | undefined {
    return this.#byDashboardId.get(accountId, dashboardId) as string | undefined;
  }

  /** The stored JSON of the account's dashboard holding the name (compared as its key). */
  byName(accountId: string, field: DashboardNameField, key: string | null): string | undefined {
    return this.#byName[field].inAccount.get(accountId, key) as string | undefined;
  }

  /** Across the service: the `dashboardId` of the dashboard holding the name. */
  holderOf(field: DashboardNameField, key: string): string | undefined {
    return this.#byName[field].holder.get(key) as string | undefined;
  }
}
