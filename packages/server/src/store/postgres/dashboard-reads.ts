/**
 * The dashboard-reads port (dashboard-read-ports.ts) in PostgreSQL: check statuses and hourly rollups
 * for a whole page of checks at once (the ids as one array parameter), incidents (their status in
 * the `last_status` column), and the resources inside the project states' documents.
 */
import type { CheckStatus } from '@vigil/schema';
import { sql, type Kysely } from 'kysely';
import {
  checkHourRange,
  checkIncidentPaging,
  checkPageOfChecks,
  type DashboardReads,
  type HourlyTotals,
  type StateResource,
} from '../dashboard-read-ports.js';
import type { IncidentDocument } from '../incident-ports.js';
import { positive, text } from '../port-rules.js';
import type { PostgresSchema } from './database.js';

/** On the pool, or on a unit of work's transaction. */
export class PostgresDashboardReads implements DashboardReads {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async statusesOf(accountId: string, checkIds: readonly string[]): Promise<Map<string, CheckStatus>> {
    checkPageOfChecks(accountId, checkIds);
    const { rows } = await sql<{ check_id: string; doc: string }>`
      SELECT check_id, doc FROM check_statuses WHERE account_id = ${accountId} AND check_id = ANY(${[...checkIds]}::text[])`.execute(this.#db);
    return new Map(rows.map((row) => [row.check_id, JSON.parse(row.doc) as CheckStatus]));
  }

  async hourlyOf(accountId: string, checkIds: readonly string[], fromMs: number, toMs: number): Promise<HourlyTotals[]> {
    checkPageOfChecks(accountId, checkIds);
    checkHourRange(fromMs, toMs);
    const { rows } = await sql<{ check_id: string; start_ms: string; rt_sum: number; rt_count: string; results: string; failures: string }>`
      SELECT s.check_id, r.start_ms, sum(r.rt_sum) AS rt_sum, sum(r.rt_count) AS rt_count, sum(r.results) AS results, sum(r.failures) AS failures
      FROM result_series s JOIN result_rollups_hourly r ON r.series = s.key
      WHERE s.account_id = ${accountId} AND s.check_id = ANY(${[...checkIds]}::text[]) AND r.start_ms >= ${fromMs} AND r.start_ms < ${toMs}
      GROUP BY s.check_id, r.start_ms ORDER BY s.check_id, r.start_ms`.execute(this.#db);
    return rows.map((row) => ({
      checkId: row.check_id,
      startMs: Number(row.start_ms),
      rtSum: Number(row.rt_sum),
      rtCount: Number(row.rt_count),
      results: Number(row.results),
      failures: Number(row.failures),
    }));
  }

  async incidentPage(accountId: string, resolved: boolean | undefined, paging: { readonly limit: number; readonly offset: number }): Promise<{ items: IncidentDocument[]; total: number }> {
    checkIncidentPaging(accountId, paging);
    const narrowed = resolved === undefined ? sql`TRUE` : sql`(last_status = 'RESOLVED') = ${resolved}`;
    const [page, count] = await Promise.all([
      sql<{ state: string }>`
        SELECT state FROM incidents WHERE account_id = ${accountId} AND ${narrowed}
        ORDER BY seq DESC LIMIT ${paging.limit} OFFSET ${paging.offset}`.execute(this.#db),
      sql<{ total: string }>`SELECT count(*) AS total FROM incidents WHERE account_id = ${accountId} AND ${narrowed}`.execute(this.#db),
    ]);
    return { items: page.rows.map((row) => JSON.parse(row.state) as IncidentDocument), total: Number(count.rows[0]!.total) };
  }

  async incidentsOfService(accountId: string, serviceId: string, limit: number): Promise<IncidentDocument[]> {
    text('accountId', accountId);
    text('serviceId', serviceId, 255);
    positive('limit', limit);
    const { rows } = await sql<{ state: string }>`
      SELECT state FROM incidents
      WHERE account_id = ${accountId} AND (state::jsonb -> 'serviceIds') @> jsonb_build_array(${serviceId}::text)
      ORDER BY seq DESC LIMIT ${limit}`.execute(this.#db);
    return rows.map((row) => JSON.parse(row.state) as IncidentDocument);
  }

  async stateResourcesOfKind(accountId: string, kind: string): Promise<StateResource[]> {
    text('accountId', accountId);
    text('kind', kind, 255);
    // A state document is JSON the state routes checked before storing it; only an object of resources is read.
    const { rows } = await sql<{ project: string; address: string; remote_id: string | null }>`
      SELECT d.project, r.key AS address, r.value ->> 'remoteId' AS remote_id
      FROM state_documents d, jsonb_each(CASE WHEN jsonb_typeof(d.doc::jsonb -> 'resources') = 'object' THEN d.doc::jsonb -> 'resources' ELSE '{}'::jsonb END) r
      WHERE d.account_id = ${accountId} AND r.value ->> 'kind' = ${kind}`.execute(this.#db);
    return rows.map((row) => ({ project: row.project, address: row.address, remoteId: row.remote_id }));
  }
}
