/**
 * What the dashboard reads for a whole page of checks at once: their statuses and their last day of
 * hourly response times (the sparklines), each one statement for the page whatever its size, instead
 * of a look-up per check. Also the incidents the dashboard lists, newest first, and those on one
 * status-page service. The statements are the engine's (store/sqlite/dashboard-reads.ts); this
 * shapes their rows for the pages.
 */
import type { CheckStatus } from '@vigil/schema';
import type { IncidentState } from '../readside/incidents.js';
import { HOUR_MS } from '../readside/rollups-store.js';
import type { Store } from '../store/index.js';
import { DashboardReadTable } from '../store/sqlite/dashboard-reads.js';

export interface HourlyPoint {
  readonly startMs: number;
  /** Mean response time of the hour's FINAL results, null when none had one. */
  readonly meanMs: number | null;
  readonly results: number;
  readonly failures: number;
}

export class PageReads {
  readonly #table: DashboardReadTable;

  constructor(store: Store) {
    this.#table = new DashboardReadTable(store.db);
  }

  /** The statuses of the given checks that have run, by check id. */
  statusesOf(accountId: string, checkIds: readonly string[]): Map<string, CheckStatus> {
    return new Map(this.#table.statusesOf(accountId, checkIds).map((row) => [row.checkId, JSON.parse(row.doc) as CheckStatus]));
  }

  /** Hourly points of the given checks in `[fromMs, toMs)`, oldest first, by check id. */
  hourlyOf(accountId: string, checkIds: readonly string[], fromMs: number, toMs: number): Map<string, HourlyPoint[]> {
    const byCheck = new Map<string, HourlyPoint[]>();
    for (const row of this.#table.hourlyOf(accountId, checkIds, Math.floor(fromMs / HOUR_MS) * HOUR_MS, toMs)) {
      let points = byCheck.get(row.checkId);
      if (!points) byCheck.set(row.checkId, (points = []));
      points.push({ startMs: row.startMs, meanMs: row.rtCount > 0 ? row.rtSum / row.rtCount : null, results: row.results, failures: row.failures });
    }
    return byCheck;
  }

  /** The account's incidents, newest first; `resolved` narrows to resolved (true) or open (false) ones. */
  incidents(accountId: string, resolved: boolean | undefined, paging: { page: number; limit: number }): { items: IncidentState[]; total: number } {
    const states = this.#table.incidents(accountId, resolved, paging.limit, (paging.page - 1) * paging.limit);
    return { items: states.map((state) => JSON.parse(state) as IncidentState), total: this.#table.incidentCount(accountId, resolved) };
  }

  /** The newest incidents that name a status-page service. */
  incidentsOfService(accountId: string, serviceId: string, limit: number): IncidentState[] {
    return this.#table.incidentsOfService(accountId, serviceId, limit).map((state) => JSON.parse(state) as IncidentState);
  }
}
