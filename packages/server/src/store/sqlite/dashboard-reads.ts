/**
 * The web dashboard's own reads: a whole page of checks at once (their statuses and hourly response
 * times, one statement for the page whatever its size, instead of a look-up per check), the
 * incidents it lists, and which resources a project state on this service holds. Each statement
 * filters on the account. Rows come back as stored; the dashboard (dashboard/page-reads.ts,
 * dashboard/resources.ts) parses and shapes them.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';

/** One check's FINAL results of one hour, summed over its locations. */
export interface HourlyTotals {
  readonly checkId: string;
  readonly startMs: number;
  readonly rtSum: number;
  readonly rtCount: number;
  readonly results: number;
  readonly failures: number;
}

export class DashboardReadTable {
  readonly #statuses: Statement;
  readonly #hourly: Statement;
  readonly #incidents: Statement;
  readonly #incidentCount: Statement;
  readonly #serviceIncidents: Statement;

  constructor(db: SqliteDatabase) {
    this.#statuses = db.prepare('SELECT check_id AS checkId, doc FROM check_statuses WHERE account_id = ? AND check_id IN (SELECT value FROM json_each(?))');
    this.#hourly = db.prepare(`
      SELECT s.check_id AS checkId, r.start_ms AS startMs, sum(r.rt_sum) AS rtSum, sum(r.rt_count) AS rtCount,
             sum(r.results) AS results, sum(r.failures) AS failures
      FROM result_series s JOIN result_rollups_hourly r ON r.series = s.key
      WHERE s.account_id = ? AND s.check_id IN (SELECT value FROM json_each(?)) AND r.start_ms >= ? AND r.start_ms < ?
      GROUP BY s.check_id, r.start_ms ORDER BY s.check_id, r.start_ms`);
    this.#incidents = db.prepare(
      "SELECT state FROM incidents WHERE account_id = ? AND (? IS NULL OR (json_extract(state, '$.lastUpdateStatus') = 'RESOLVED') = ?) ORDER BY seq DESC LIMIT ? OFFSET ?",
    );
    this.#incidentCount = db.prepare(
      "SELECT count(*) FROM incidents WHERE account_id = ? AND (? IS NULL OR (json_extract(state, '$.lastUpdateStatus') = 'RESOLVED') = ?)",
    ).pluck();
    this.#serviceIncidents = db.prepare(
      "SELECT state FROM incidents WHERE account_id = ? AND EXISTS (SELECT 1 FROM json_each(state, '$.serviceIds') WHERE value = ?) ORDER BY seq DESC LIMIT ?",
    );
  }

  /** The stored statuses (JSON) of those of the given checks that have run. */
  statusesOf(accountId: string, checkIds: readonly string[]): Array<{ checkId: string; doc: string }> {
    return this.#statuses.all(accountId, JSON.stringify(checkIds)) as Array<{ checkId: string; doc: string }>;
  }

  /** The given checks' hourly totals starting in `[fromMs, toMs)`, by check, oldest first. */
  hourlyOf(accountId: string, checkIds: readonly string[], fromMs: number, toMs: number): HourlyTotals[] {
    return this.#hourly.all(accountId, JSON.stringify(checkIds), fromMs, toMs) as HourlyTotals[];
  }

  /** A page of the account's incidents (JSON), newest first; `resolved` narrows to resolved (true) or open (false) ones. */
  incidents(accountId: string, resolved: boolean | undefined, limit: number, offset: number): string[] {
    const flag = resolved === undefined ? null : resolved ? 1 : 0;
    return (this.#incidents.all(accountId, flag, flag, limit, offset) as Array<{ state: string }>).map((row) => row.state);
  }

  /** How many incidents `incidents` pages through. */
  incidentCount(accountId: string, resolved: boolean | undefined): number {
    const flag = resolved === undefined ? null : resolved ? 1 : 0;
    return this.#incidentCount.get(accountId, flag, flag) as number;
  }

  /** The newest incidents (JSON) that name a status-page service. */
  incidentsOfService(accountId: string, serviceId: string, limit: number): string[] {
    return (this.#serviceIncidents.all(accountId, serviceId, limit) as Array<{ state: string }>).map((row) => row.state);
  }
}

/** A resource held in a project state on this service. */
export interface StateResourceRow {
  readonly project: string;
  /** The resource's address in its project (`kind:logicalId`). */
  readonly address: string;
  readonly remoteId: string | null;
}

/** The resources of one kind held in an account's state documents (the `service` state backend). */
export class StateResourceTable {
  readonly #ofKind: Statement;

  constructor(db: SqliteDatabase) {
    this.#ofKind = db.prepare(
      `SELECT d.project AS project, r.key AS address, CAST(json_extract(r.value, '$.remoteId') AS TEXT) AS remoteId
       FROM state_documents d, json_each(d.doc, '$.resources') r
       WHERE d.account_id = ? AND json_valid(d.doc) AND json_extract(r.value, '$.kind') = ?`,
    );
  }

  ofKind(accountId: string, kind: string): StateResourceRow[] {
    return this.#ofKind.all(accountId, kind) as StateResourceRow[];
  }
}
