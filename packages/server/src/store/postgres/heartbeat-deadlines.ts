/**
 * Heartbeat deadlines in PostgreSQL, by the same rules and statements' shape as
 * store/sqlite/heartbeats.ts. A claim locks the due rows of `heartbeat_timings` with
 * `FOR UPDATE SKIP LOCKED` (replicas claiming at once split the due checks instead of waiting on each
 * other), moves each past `now`, and records the latest missed window in `heartbeat_deadlines` with an
 * upsert that only moves forward: a window is reported once even by replicas that saw the same check
 * due one after the other, and the rows it returns are the windows this caller won.
 */
import { sql, type Kysely } from 'kysely';
import type { HeartbeatDeadlines, MissedDeadline, WatchedHeartbeat } from '../ports.js';
import { byDeadline, checkDeadlineClaim, checkHeartbeatKey, checkMoment, checkWatchedHeartbeat } from '../port-rules.js';
import type { PostgresSchema } from './database.js';

const keyOf = (row: { account_id: string; check_id: string }) => `${row.account_id}\u0000${row.check_id}`;

export class PostgresHeartbeatDeadlines implements HeartbeatDeadlines {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async watch(heartbeat: WatchedHeartbeat): Promise<void> {
    checkWatchedHeartbeat(heartbeat);
    const { accountId, checkId, periodMs, graceMs, anchorMs } = heartbeat;
    // Unchanged timing writes nothing: replicas re-watch every heartbeat each time they reload the checks.
    await sql`
      INSERT INTO heartbeat_timings AS t (account_id, check_id, period_ms, grace_ms, anchor_ms, next_due_ms)
      VALUES (${accountId}, ${checkId}, ${periodMs}, ${graceMs}, ${anchorMs}, ${anchorMs + periodMs + graceMs})
      ON CONFLICT (account_id, check_id) DO UPDATE SET period_ms = excluded.period_ms, grace_ms = excluded.grace_ms,
        anchor_ms = GREATEST(t.anchor_ms, excluded.anchor_ms), next_due_ms = GREATEST(t.anchor_ms, excluded.anchor_ms) + excluded.period_ms + excluded.grace_ms
      WHERE t.period_ms <> excluded.period_ms OR t.grace_ms <> excluded.grace_ms OR t.anchor_ms < excluded.anchor_ms`.execute(this.#db);
  }

  async forget(accountId: string, checkId: string): Promise<boolean> {
    checkHeartbeatKey(accountId, checkId);
    const result = await this.#db.deleteFrom('heartbeat_timings').where('account_id', '=', accountId).where('check_id', '=', checkId).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async recordPing(accountId: string, checkId: string, pingMs: number): Promise<boolean> {
    checkHeartbeatKey(accountId, checkId);
    checkMoment('pingMs', pingMs);
    const result = await this.#db
      .updateTable('heartbeat_timings')
      .set({ anchor_ms: pingMs, next_due_ms: sql<number>`${pingMs}::bigint + period_ms + grace_ms` })
      .where('account_id', '=', accountId)
      .where('check_id', '=', checkId)
      .where('anchor_ms', '<', pingMs)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async claimMissed(nowMs: number, limit: number, owner: string): Promise<MissedDeadline[]> {
    checkDeadlineClaim(nowMs, limit, owner);
    return this.#db.transaction().execute(async (tx) => {
      // The window after the latest that closed by now; integer division is the floor, as now >= the first deadline.
      const { rows: due } = await sql<{ account_id: string; check_id: string; anchor_ms: number; due_ms: number }>`
        UPDATE heartbeat_timings AS t
        SET next_due_ms = (t.anchor_ms + t.period_ms + t.grace_ms) + ((${nowMs}::bigint - (t.anchor_ms + t.period_ms + t.grace_ms)) / t.period_ms + 1) * t.period_ms
        FROM (
          SELECT account_id, check_id FROM heartbeat_timings
          WHERE next_due_ms <= ${nowMs}::bigint
          ORDER BY next_due_ms, account_id, check_id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ) AS due
        WHERE t.account_id = due.account_id AND t.check_id = due.check_id
        RETURNING t.account_id, t.check_id, t.anchor_ms, t.next_due_ms - t.period_ms AS due_ms`.execute(tx);
      if (due.length === 0) return [];
      // The rows are this transaction's (locked above), so no other claim upserts the same keys meanwhile.
      const claimed = await tx
        .insertInto('heartbeat_deadlines')
        .values(due.map((row) => ({ account_id: row.account_id, check_id: row.check_id, reported_due_ms: row.due_ms, reported_by: owner })))
        .onConflict((conflict) =>
          conflict
            .columns(['account_id', 'check_id'])
            .doUpdateSet({ reported_due_ms: (eb) => eb.ref('excluded.reported_due_ms'), reported_by: (eb) => eb.ref('excluded.reported_by') })
            .where('heartbeat_deadlines.reported_due_ms', '<', (eb) => eb.ref('excluded.reported_due_ms')),
        )
        .returning(['account_id', 'check_id'])
        .execute();
      const won = new Set(claimed.map(keyOf));
      return due
        .filter((row) => won.has(keyOf(row)))
        .map((row) => ({ accountId: row.account_id, checkId: row.check_id, dueMs: row.due_ms, anchorMs: row.anchor_ms }))
        .sort(byDeadline);
    });
  }

  async reported(accountId: string, checkId: string): Promise<{ dueMs: number; owner: string | null } | undefined> {
    checkHeartbeatKey(accountId, checkId);
    const row = await this.#db
      .selectFrom('heartbeat_deadlines')
      .select(['reported_due_ms', 'reported_by'])
      .where('account_id', '=', accountId)
      .where('check_id', '=', checkId)
      .executeTakeFirst();
    return row && { dueMs: row.reported_due_ms, owner: row.reported_by };
  }
}
