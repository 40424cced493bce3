/**
 * The SQL of `GET /metrics` (metrics/): what every scrape reads of each account — the raw status
 * rows, the open incidents — and the database's change counter its check catalog polls for writes
 * by other connections. Kept together because they run on every scrape and nowhere else.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';

export class MetricsReads {
  readonly #db: SqliteDatabase;
  readonly #statusDocs: Statement;
  readonly #openIncidents: Statement;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    // Raw rows: at 10,000 checks the column names of an object per row were a measurable part of a scrape.
    this.#statusDocs = db.prepare('SELECT check_id, doc FROM check_statuses WHERE account_id = ?').raw();
    this.#openIncidents = db.prepare("SELECT COUNT(*) FROM incidents WHERE account_id = ? AND json_extract(state, '$.lastUpdateStatus') <> 'RESOLVED'").pluck();
  }

  /**
   * Every stored status of the account (JSON) by check id, a deleted check's left-behind row
   * included: the caller walks its own list of checks and skips the rest.
   */
  statusDocsByCheck(accountId: string): Map<string, string> {
    return new Map(this.#statusDocs.all(accountId) as Array<[string, string]>);
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
