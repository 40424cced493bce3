/**
 * The MetricsReads port on PostgreSQL (metrics-read-ports.ts). Each status row names the transaction
 * that last wrote it (`written_xid`, migrations.ts step 24). A follower's read takes, in the same
 * statement (one snapshot), the oldest transaction still running then (`pg_snapshot_xmin`): every
 * transaction below it had ended, so its rows were in that read or never will be. The next read
 * asks for the rows written by that transaction or a later one, which holds each write not seen yet
 * (committed since, or still running then) and a few seen already, handed over again unchanged.
 * A transaction left open for long holds the horizon back: the rows written since it began are read
 * again at each call until it ends, never missed.
 */
import { sql, type Kysely } from 'kysely';
import type { FollowedStatus, MetricsReads, StatusBatch, StatusFields, StatusFollower } from '../metrics-read-ports.js';
import { text } from '../port-rules.js';
import type { PostgresSchema } from './database.js';

interface FollowedRow {
  /** xid8 as text: a 64-bit count, past what a JavaScript number holds exactly. */
  horizon: string;
  check_id: string | null;
  doc: string | null;
}

export class PostgresMetricsReads implements MetricsReads {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  followStatuses(accountId: string): StatusFollower {
    text('accountId', accountId);
    const db = this.#db;
    /** Undefined until the first read, which reads every row. */
    let horizon: string | undefined;
    return {
      async next(): Promise<StatusBatch> {
        const full = horizon === undefined;
        // The horizon and the rows in one statement, so they are of one snapshot; the outer join
        // keeps the horizon's row when no status matches.
        const { rows } = await sql<FollowedRow>`
          SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon, s.check_id, s.doc
          FROM (SELECT 1) AS one
          LEFT JOIN check_statuses s ON s.account_id = ${accountId} AND (${full} OR s.written_xid >= ${horizon ?? '0'}::xid8)`.execute(db);
        horizon = rows[0]!.horizon;
        const statuses: FollowedStatus[] = [];
        for (const row of rows) {
          if (row.check_id !== null) statuses.push([row.check_id, JSON.parse(row.doc!) as StatusFields]);
        }
        return { full, statuses };
      },
      close() {
        horizon = undefined;
      },
    };
  }

  async openIncidents(accountIds: readonly string[]): Promise<number[]> {
    for (const accountId of accountIds) text('accountId', accountId);
    if (accountIds.length === 0) return [];
    const { rows } = await sql<{ account_id: string; open: number }>`
      SELECT account_id, count(*)::int AS open FROM incidents
      WHERE account_id = ANY(${[...accountIds]}::text[]) AND last_status <> 'RESOLVED' GROUP BY account_id`.execute(this.#db);
    const open = new Map(rows.map((row) => [row.account_id, row.open]));
    return accountIds.map((accountId) => open.get(accountId) ?? 0);
  }
}
