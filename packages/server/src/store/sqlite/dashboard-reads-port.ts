/**
 * The dashboard-reads port (dashboard-read-ports.ts) on SQLite: check statuses and hourly rollups
 * read for a whole page of checks at once (the ids as one JSON parameter, so the statement is the
 * same whatever the page's size), incidents, and the resources inside the project states' documents.
 */
import type { Statement } from 'better-sqlite3';
import type { CheckStatus } from '@vigil/schema';
import {
  checkHourRange,
  checkIncidentPaging,
  checkPageOfChecks,
  type DashboardReads,
  type HourlyTotals,
  type StateResource,
} from '../dashboard-read-ports.js';
import type { SqliteDatabase } from '../database.js';
import type { IncidentDocument } from '../incident-ports.js';
import { positive, text } from '../port-rules.js';
import type { BatchedSqlite } from './batched.js';

class DashboardReadStatements {
  readonly statuses: Statement;
  readonly hourly: Statement;
  readonly incidents: Statement;
  readonly incidentCount: Statement;
  readonly serviceIncidents: Statement;
  readonly stateResources: Statement;

  constructor(db: SqliteDatabase) {
    this.statuses = db.prepare('SELECT check_id AS checkId, doc FROM check_statuses WHERE account_id = ? AND check_id IN (SELECT value FROM json_each(?))');
    this.hourly = db.prepare(`
      SELECT s.check_id AS checkId, r.start_ms AS startMs, sum(r.rt_sum) AS rtSum, sum(r.rt_count) AS rtCount,
             sum(r.results) AS results, sum(r.failures) AS failures
      FROM result_series s JOIN result_rollups_hourly r ON r.series = s.key
      WHERE s.account_id = ? AND s.check_id IN (SELECT value FROM json_each(?)) AND r.start_ms >= ? AND r.start_ms < ?
      GROUP BY s.check_id, r.start_ms ORDER BY s.check_id, r.start_ms`);
    this.incidents = db
      .prepare(
        "SELECT state FROM incidents WHERE account_id = ? AND (? IS NULL OR (json_extract(state, '$.lastUpdateStatus') = 'RESOLVED') = ?) ORDER BY seq DESC LIMIT ? OFFSET ?",
      )
      .pluck();
    this.incidentCount = db
      .prepare("SELECT count(*) FROM incidents WHERE account_id = ? AND (? IS NULL OR (json_extract(state, '$.lastUpdateStatus') = 'RESOLVED') = ?)")
      .pluck();
    this.serviceIncidents = db
      .prepare("SELECT state FROM incidents WHERE account_id = ? AND EXISTS (SELECT 1 FROM json_each(state, '$.serviceIds') WHERE value = ?) ORDER BY seq DESC LIMIT ?")
      .pluck();
    this.stateResources = db.prepare(
      `SELECT d.project AS project, r.key AS address, CAST(json_extract(r.value, '$.remoteId') AS TEXT) AS remoteId
       FROM state_documents d, json_each(d.doc, '$.resources') r
       WHERE d.account_id = ? AND json_valid(d.doc) AND json_type(d.doc, '$.resources') = 'object' AND json_extract(r.value, '$.kind') = ?`,
    );
  }
}

export class SqliteDashboardReads implements DashboardReads {
  readonly #store: BatchedSqlite;
  #prepared: DashboardReadStatements | undefined;

  constructor(store: BatchedSqlite) {
    this.#store = store;
  }

  /** Prepared at the first call, for the reason the other ports' engines give. */
  #statements(): DashboardReadStatements {
    const db = this.#store.db;
    return (this.#prepared ??= new DashboardReadStatements(db));
  }

  async statusesOf(accountId: string, checkIds: readonly string[]): Promise<Map<string, CheckStatus>> {
    checkPageOfChecks(accountId, checkIds);
    const rows = this.#statements().statuses.all(accountId, JSON.stringify(checkIds)) as Array<{ checkId: string; doc: string }>;
    return new Map(rows.map((row) => [row.checkId, JSON.parse(row.doc) as CheckStatus]));
  }

  async hourlyOf(accountId: string, checkIds: readonly string[], fromMs: number, toMs: number): Promise<HourlyTotals[]> {
    checkPageOfChecks(accountId, checkIds);
    checkHourRange(fromMs, toMs);
    return this.#statements().hourly.all(accountId, JSON.stringify(checkIds), fromMs, toMs) as HourlyTotals[];
  }

  async incidentPage(accountId: string, resolved: boolean | undefined, paging: { readonly limit: number; readonly offset: number }): Promise<{ items: IncidentDocument[]; total: number }> {
    checkIncidentPaging(accountId, paging);
    const flag = resolved === undefined ? null : resolved ? 1 : 0;
    const statements = this.#statements();
    const states = statements.incidents.all(accountId, flag, flag, paging.limit, paging.offset) as string[];
    return { items: states.map((state) => JSON.parse(state) as IncidentDocument), total: statements.incidentCount.get(accountId, flag, flag) as number };
  }

  async incidentsOfService(accountId: string, serviceId: string, limit: number): Promise<IncidentDocument[]> {
    text('accountId', accountId);
    text('serviceId', serviceId, 255);
    positive('limit', limit);
    return (this.#statements().serviceIncidents.all(accountId, serviceId, limit) as string[]).map((state) => JSON.parse(state) as IncidentDocument);
  }

  async stateResourcesOfKind(accountId: string, kind: string): Promise<StateResource[]> {
    text('accountId', accountId);
    text('kind', kind, 255);
    return this.#statements().stateResources.all(accountId, kind) as StateResource[];
  }
}
