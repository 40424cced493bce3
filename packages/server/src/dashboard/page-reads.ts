/**
 * Reads of the read side's tables for a whole page of checks at once: their statuses and their
 * last day of hourly response times (the sparklines), each one statement for the page whatever its
 * size, instead of a look-up per check. Also the incidents the dashboard lists, newest first, and
 * those on one status-page service.
 *
 * These belong with the read side's stores (readside/statuses.ts, rollups-store.ts, pages-store.ts)
 * and move there when those stores get their storage ports; until then they sit with their only
 * caller, reading the same tables with the same tenancy rule (every statement filters on the account).
 */
import type { CheckStatus } from '@vigil/schema';
import type { Statement } from 'better-sqlite3';
import type { IncidentState } from '../readside/incidents.js';
import { HOUR_MS } from '../readside/rollups-store.js';
import type { Store } from '../store/index.js';

export interface HourlyPoint {
  readonly startMs: number;
  /** Mean response time of the hour's FINAL results, null when none had one. */
  readonly meanMs: number | null;
  readonly results: number;
  readonly failures: number;
}

export class PageReads {
  readonly #statuses: Statement;
  readonly #hourly: Statement;
  readonly #incidents: Statement;
  readonly #incidentCount: Statement;
  readonly #serviceIncidents: Statement;

  /** Call after the read side's and the statuses' tables exist (readSideOf, statusesOf). */
  constructor(store: Store) {
    const db = store.db;
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

  /** The statuses of the given checks that have run, by check id. */
  statusesOf(accountId: string, checkIds: readonly string[]): Map<string, CheckStatus> {
    const rows = this.#statuses.all(accountId, JSON.stringify(checkIds)) as Array<{ checkId: string; doc: string }>;
    return new Map(rows.map((row) => [row.checkId, JSON.parse(row.doc) as CheckStatus]));
  }

  /** Hourly points of the given checks in `[fromMs, toMs)`, oldest first, by check id. */
  hourlyOf(accountId: string, checkIds: readonly string[], fromMs: number, toMs: number): Map<string, HourlyPoint[]> {
    const rows = this.#hourly.all(accountId, JSON.stringify(checkIds), Math.floor(fromMs / HOUR_MS) * HOUR_MS, toMs) as Array<{
      checkId: string;
      startMs: number;
      rtSum: number;
      rtCount: number;
      results: number;
      failures: number;
    }>;
    const byCheck = new Map<string, HourlyPoint[]>();
    for (const row of rows) {
      let points = byCheck.get(row.checkId);
      if (!points) byCheck.set(row.checkId, (points = []));
      points.push({ startMs: row.startMs, meanMs: row.rtCount > 0 ? row.rtSum / row.rtCount : null, results: row.results, failures: row.failures });
    }
    return byCheck;
  }

  /** The account's incidents, newest first; `resolved` narrows to resolved (true) or open (false) ones. */
  incidents(accountId: string, resolved: boolean | undefined, paging: { page: number; limit: number }): { items: IncidentState[]; total: number } {
    const flag = resolved === undefined ? null : resolved ? 1 : 0;
    const rows = this.#incidents.all(accountId, flag, flag, paging.limit, (paging.page - 1) * paging.limit) as Array<{ state: string }>;
    return { items: rows.map((row) => JSON.parse(row.state) as IncidentState), total: this.#incidentCount.get(accountId, flag, flag) as number };
  }

  /** The newest incidents that name a status-page service. */
  incidentsOfService(accountId: string, serviceId: string, limit: number): IncidentState[] {
    return (this.#serviceIncidents.all(accountId, serviceId, limit) as Array<{ state: string }>).map((row) => JSON.parse(row.state) as IncidentState);
  }
}
