/**
 * The SQL of `GET /metrics` (metrics/): the raw status rows (all of an account's at its first
 * scrape, then those written since), the open incidents, and the database's change counter the
 * scrape polls for writes by other connections. Kept together because they serve the scrape only.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';

export class MetricsReads {
  readonly #db: SqliteDatabase;
  readonly #statusDocs: Statement;
  readonly #statusDocsOf: Statement;
  readonly #openIncidents: Statement;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    // Raw rows: at 10,000 checks the column names of an object per row were a measurable part of a scrape.
    this.#statusDocs = db.prepare('SELECT check_id, doc FROM check_statuses WHERE account_id = ?').raw();
    this.#statusDocsOf = db.prepare('SELECT check_id, doc FROM check_statuses WHERE account_id = ? AND check_id IN (SELECT value FROM json_each(?))').raw();
    this.#openIncidents = db.prepare("SELECT COUNT(*) FROM incidents WHERE account_id = ? AND json_extract(state, '$.lastUpdateStatus') <> 'RESOLVED'").pluck();
  }

  /**
   * Every stored status of the account as [check id, JSON], a deleted check's left-behind row
   * included: the caller knows its checks and skips the rest.
   */
  statusDocs(accountId: string): Array<[string, string]> {
    return this.#statusDocs.all(accountId) as Array<[string, string]>;
  }

  /** The stored statuses of those of `checkIds` that have one, as [check id, JSON]. */
  statusDocsOf(accountId: string, checkIds: readonly string[]): Array<[string, string]> {
    return this.#statusDocsOf.all(accountId, JSON.stringify(checkIds)) as Array<[string, string]>;
  }

  /** Incidents of the account not resolved yet. */
  openIncidents(accountId: string): number {
    return Number(this.#openIncidents.get(accountId));
  }

  /** SQLite's counter that changes when another connection commits a write to the database. */
  dataVersion(): number {
    return this.#db.pragma('data_version', { simple: true }) as number;
  }
}
