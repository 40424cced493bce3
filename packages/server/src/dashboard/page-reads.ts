/**
 * What the dashboard reads for a whole page of checks at once: their statuses and their last day of
 * hourly response times (the sparklines), each one statement for the page whatever its size, instead
 * of a look-up per check. Also the incidents the dashboard lists, newest first, and those on one
 * status-page service. The reads are the storage ports' (store/dashboard-read-ports.ts), so the
 * pages read the same on every engine; this shapes their rows for the pages.
 */
import type { CheckStatus } from '@vigil/schema';
import type { IncidentState } from '../readside/incidents.js';
import { HOUR_MS } from '../store/port-rules.js';
import type { DashboardReads } from '../store/dashboard-read-ports.js';

export interface HourlyPoint {
  readonly startMs: number;
  /** Mean response time of the hour's FINAL results, null when none had one. */
  readonly meanMs: number | null;
  readonly results: number;
  readonly failures: number;
}

export class PageReads {
  readonly #reads: DashboardReads;

  constructor(reads: DashboardReads) {
    this.#reads = reads;
  }

  /** The statuses of the given checks that have run, by check id. */
  statusesOf(accountId: string, checkIds: readonly string[]): Promise<Map<string, CheckStatus>> {
    return this.#reads.statusesOf(accountId, checkIds);
  }

  /** Hourly points of the given checks in `[fromMs, toMs)`, oldest first, by check id. */
  async hourlyOf(accountId: string, checkIds: readonly string[], fromMs: number, toMs: number): Promise<Map<string, HourlyPoint[]>> {
    const byCheck = new Map<string, HourlyPoint[]>();
    for (const row of await this.#reads.hourlyOf(accountId, checkIds, Math.floor(fromMs / HOUR_MS) * HOUR_MS, toMs)) {
      let points = byCheck.get(row.checkId);
      if (!points) byCheck.set(row.checkId, (points = []));
      points.push({ startMs: row.startMs, meanMs: row.rtCount > 0 ? row.rtSum / row.rtCount : null, results: row.results, failures: row.failures });
    }
    return byCheck;
  }

  /** The account's incidents, newest first; `resolved` narrows to resolved (true) or open (false) ones. */
  async incidents(accountId: string, resolved: boolean | undefined, paging: { page: number; limit: number }): Promise<{ items: IncidentState[]; total: number }> {
    // A page number past any account's incidents reads none, whatever its size.
    const offset = Math.min((paging.page - 1) * paging.limit, Number.MAX_SAFE_INTEGER);
    return this.#reads.incidentPage(accountId, resolved, { limit: paging.limit, offset });
  }

  /** The newest incidents that name a status-page service. */
  async incidentsOfService(accountId: string, serviceId: string, limit: number): Promise<IncidentState[]> {
    return this.#reads.incidentsOfService(accountId, serviceId, limit);
  }
}
