/**
 * Heartbeat deadlines in PostgreSQL, by the same rules and statements' shape as
 * store/sqlite/heartbeats.ts. A claim locks the due rows of `heartbeat_timings` with
 * `FOR UPDATE SKIP LOCKED` (replicas claiming at once split the due checks instead of waiting on each
 * other), moves each past `now`, and records the latest missed window in `heartbeat_deadlines` with an
 * upsert that only moves forward: a window is reported once even by replicas that saw the same check
 * due one after the other, and the rows it returns are the windows this caller won. The window is
 * leased to the caller until it confirms it (`lease_until_ms` back to null); a lease that runs out is
 * taken over by the next claim, its rows locked the same way.
 */
import { sql, type Kysely } from 'kysely';
import type { ClaimedWindow, HeartbeatDeadlines, MissedDeadline, MissedWindowKey, WatchedHeartbeat } from '../ports.js';
import { byDeadline, checkDeadlineClaim, checkHeartbeatKey, checkMissedWindows, checkMoment, checkWatchedHeartbeat } from '../port-rules.js';
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
    return this.#db.transaction().execute(async (tx) => {
      // A window claimed but not confirmed is given up: with the check gone there is nothing to fail.
      await tx.updateTable('heartbeat_deadlines').set({ lease_until_ms: null }).where('account_id', '=', accountId).where('check_id', '=', checkId).where('lease_until_ms', 'is not', null).execute();
      const result = await tx.deleteFrom('heartbeat_timings').where('account_id', '=', accountId).where('check_id', '=', checkId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    });
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

  async claimMissed(nowMs: number, limit: number, owner: string, leaseMs: number): Promise<MissedDeadline[]> {
    checkDeadlineClaim(nowMs, limit, owner, leaseMs);
    const untilMs = nowMs + leaseMs;
    return this.#db.transaction().execute(async (tx) => {
      // Windows whose holder let the lease run out unconfirmed (it died, or is stuck) go to this caller.
      const { rows: again } = await sql<{ account_id: string; check_id: string; anchor_ms: number; due_ms: number }>`
        UPDATE heartbeat_deadlines AS d SET reported_by = ${owner}, lease_until_ms = ${untilMs}::bigint
        FROM (
          SELECT account_id, check_id FROM heartbeat_deadlines
          WHERE lease_until_ms <= ${nowMs}::bigint
          ORDER BY reported_due_ms, account_id, check_id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ) AS expired
        WHERE d.account_id = expired.account_id AND d.check_id = expired.check_id
        RETURNING d.account_id, d.check_id, d.claimed_anchor_ms AS anchor_ms, d.reported_due_ms AS due_ms`.execute(tx);
      if (again.length >= limit) return again.map(missedOf).sort(byDeadline);
      // The window after the latest that closed by now; integer division is the floor, as now >= the first deadline.
      // A check whose window is leased is left due: its next window is claimed after the confirm, so a
      // lease that runs out unconfirmed hands out the window it was for, not a later one in its place.
      const { rows: due } = await sql<{ account_id: string; check_id: string; anchor_ms: number; due_ms: number }>`
        UPDATE heartbeat_timings AS t
        SET next_due_ms = (t.anchor_ms + t.period_ms + t.grace_ms) + ((${nowMs}::bigint - (t.anchor_ms + t.period_ms + t.grace_ms)) / t.period_ms + 1) * t.period_ms
        FROM (
          SELECT account_id, check_id FROM heartbeat_timings AS candidate
          WHERE next_due_ms <= ${nowMs}::bigint
            AND NOT EXISTS (
              SELECT 1 FROM heartbeat_deadlines AS d
              WHERE d.account_id = candidate.account_id AND d.check_id = candidate.check_id AND d.lease_until_ms IS NOT NULL
            )
          ORDER BY next_due_ms, account_id, check_id
          LIMIT ${limit - again.length}
          FOR UPDATE SKIP LOCKED
        ) AS due
        WHERE t.account_id = due.account_id AND t.check_id = due.check_id
        RETURNING t.account_id, t.check_id, t.anchor_ms, t.next_due_ms - t.period_ms AS due_ms`.execute(tx);
      if (due.length === 0) return again.map(missedOf).sort(byDeadline);
      // The rows are this transaction's (locked above), so no other claim upserts the same keys meanwhile.
      const claimed = await tx
        .insertInto('heartbeat_deadlines')
        .values(
          due.map((row) => ({ account_id: row.account_id, check_id: row.check_id, reported_due_ms: row.due_ms, reported_by: owner, lease_until_ms: untilMs, claimed_anchor_ms: row.anchor_ms })),
        )
        .onConflict((conflict) =>
          conflict
            .columns(['account_id', 'check_id'])
            .doUpdateSet({
              reported_due_ms: (eb) => eb.ref('excluded.reported_due_ms'),
              reported_by: (eb) => eb.ref('excluded.reported_by'),
              lease_until_ms: (eb) => eb.ref('excluded.lease_until_ms'),
              claimed_anchor_ms: (eb) => eb.ref('excluded.claimed_anchor_ms'),
            })
            .where('heartbeat_deadlines.reported_due_ms', '<', (eb) => eb.ref('excluded.reported_due_ms')),
        )
        .returning(['account_id', 'check_id'])
        .execute();
      const won = new Set(claimed.map(keyOf));
      return [...again, ...due.filter((row) => won.has(keyOf(row)))].map(missedOf).sort(byDeadline);
    });
  }

  async reportedMissed(windows: readonly MissedWindowKey[], owner: string): Promise<boolean[]> {
    checkMissedWindows(windows, owner);
    if (windows.length === 0) return [];
    // One statement for the batch: the rows it confirmed come back, and the answers are read off them.
    const { rows } = await sql<{ account_id: string; check_id: string; due_ms: number }>`
      UPDATE heartbeat_deadlines AS d SET lease_until_ms = NULL
      FROM (SELECT * FROM unnest(${windows.map((window) => window.accountId)}::text[], ${windows.map((window) => window.checkId)}::text[], ${windows.map((window) => window.dueMs)}::bigint[])
        AS w(account_id, check_id, due_ms)) AS w
      WHERE d.account_id = w.account_id AND d.check_id = w.check_id AND d.reported_due_ms = w.due_ms
        AND d.reported_by = ${owner} AND d.lease_until_ms IS NOT NULL
      RETURNING d.account_id, d.check_id, d.reported_due_ms AS due_ms`.execute(this.#db);
    const confirmed = new Set(rows.map((row) => `${keyOf(row)}\u0000${row.due_ms}`));
    return windows.map((window) => confirmed.has(`${keyOf({ account_id: window.accountId, check_id: window.checkId })}\u0000${window.dueMs}`));
  }

  async reported(accountId: string, checkId: string): Promise<ClaimedWindow | undefined> {
    checkHeartbeatKey(accountId, checkId);
    const row = await this.#db
      .selectFrom('heartbeat_deadlines')
      .select(['reported_due_ms', 'reported_by', 'lease_until_ms'])
      .where('account_id', '=', accountId)
      .where('check_id', '=', checkId)
      .executeTakeFirst();
    return row && { dueMs: row.reported_due_ms, owner: row.reported_by, leaseUntilMs: row.lease_until_ms };
  }
}

function missedOf(row: { account_id: string; check_id: string; anchor_ms: number; due_ms: number }): MissedDeadline {
  return { accountId: row.account_id, checkId: row.check_id, dueMs: row.due_ms, anchorMs: row.anchor_ms };
}
