/**
 * The heartbeat monitors' SQL besides the ping port's (heartbeat-pings.ts, which also finds monitors
 * by ping token and prunes pings): the insert and range read of their pings (`heartbeat_events`),
 * and the missed deadlines already reported.
 *
 * `SqliteHeartbeatDeadlines` is the async port the watch (heartbeats/watch.ts) keeps deadlines
 * with: in `heartbeat_timings` (step 32), a window claimed through `MissedWindowTable.claim`, leased
 * until its holder confirms it (step 35). Rows a service before the port wrote (`reported_by` null:
 * its in-process watch) and rows claimed before step 35 count as reported for good, so an upgrade
 * never fails a window again.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import type { ClaimedWindow, HeartbeatDeadlines, MissedDeadline, MissedWindowKey, WatchedHeartbeat } from '../ports.js';
import { byDeadline, checkDeadlineClaim, checkHeartbeatKey, checkMissedWindows, checkMoment, checkWatchedHeartbeat } from '../port-rules.js';
import { committed, type BatchedSqlite } from './batched.js';

/**
 * The pings of heartbeat monitors as the ping port stores them: every ping is stored pending, to be
 * handed out to become its result.
 */
export class HeartbeatEventTable {
  readonly #insert: Statement;
  readonly #between: Statement;

  constructor(db: SqliteDatabase) {
    this.#insert = db.prepare('INSERT OR IGNORE INTO heartbeat_events (account_id, id, check_id, at_ms, doc, pending) VALUES (?, ?, ?, ?, ?, 1)');
    this.#between = db.prepare('SELECT id, at_ms, doc FROM heartbeat_events WHERE account_id = ? AND check_id = ? AND at_ms >= ? AND at_ms < ? ORDER BY at_ms, id');
  }

  /** Stores a ping (JSON) unless its id is stored; returns whether it was new. */
  add(accountId: string, id: string, checkId: string, atMs: number, doc: string): boolean {
    return this.#insert.run(accountId, id, checkId, atMs, doc).changes > 0;
  }

  /** A check's pings that came in `[fromMs, toMs)`, oldest first (ties by id). */
  between(accountId: string, checkId: string, fromMs: number, toMs: number): Array<{ id: string; at_ms: number; doc: string }> {
    return this.#between.all(accountId, checkId, fromMs, toMs) as Array<{ id: string; at_ms: number; doc: string }>;
  }
}

/**
 * The missed window claimed last per check: the port's claim, which only ever moves a check's window
 * forward, and its lease until the holder confirms it (`lease_until_ms` null: reported for good).
 */
export class MissedWindowTable {
  readonly #claim: Statement;
  readonly #reclaim: Statement;
  readonly #confirm: Statement;
  readonly #giveUp: Statement;
  readonly #find: Statement;

  constructor(db: SqliteDatabase) {
    // Only over a confirmed row: the claim never looks at a check whose window is leased (see #due).
    this.#claim = db.prepare(
      `INSERT INTO heartbeat_deadlines (account_id, check_id, reported_due_ms, reported_by, lease_until_ms, claimed_anchor_ms) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, check_id) DO UPDATE SET reported_due_ms = excluded.reported_due_ms, reported_by = excluded.reported_by,
         lease_until_ms = excluded.lease_until_ms, claimed_anchor_ms = excluded.claimed_anchor_ms
       WHERE reported_due_ms < excluded.reported_due_ms`,
    );
    this.#reclaim = db.prepare(
      `UPDATE heartbeat_deadlines SET reported_by = @owner, lease_until_ms = @leaseUntilMs
       WHERE rowid IN (SELECT rowid FROM heartbeat_deadlines WHERE lease_until_ms <= @nowMs ORDER BY reported_due_ms, account_id, check_id LIMIT @limit)
       RETURNING account_id, check_id, reported_due_ms AS due_ms, claimed_anchor_ms AS anchor_ms`,
    );
    this.#confirm = db.prepare(
      'UPDATE heartbeat_deadlines SET lease_until_ms = NULL WHERE account_id = ? AND check_id = ? AND reported_due_ms = ? AND reported_by = ? AND lease_until_ms IS NOT NULL',
    );
    this.#giveUp = db.prepare('UPDATE heartbeat_deadlines SET lease_until_ms = NULL WHERE account_id = ? AND check_id = ? AND lease_until_ms IS NOT NULL');
    this.#find = db.prepare('SELECT reported_due_ms AS dueMs, reported_by AS owner, lease_until_ms AS leaseUntilMs FROM heartbeat_deadlines WHERE account_id = ? AND check_id = ?');
  }

  /**
   * Records the window as claimed by `owner` (null: a service before the port), leased as given or,
   * without a lease, reported for good; false when it, or a later one, already was.
   */
  claim(accountId: string, checkId: string, dueMs: number, owner: string | null, lease?: { untilMs: number; anchorMs: number }): boolean {
    return this.#claim.run(accountId, checkId, dueMs, owner, lease?.untilMs ?? null, lease?.anchorMs ?? null).changes > 0;
  }

  /** Hands up to `limit` windows whose lease ran out by `nowMs` to `owner` until `leaseUntilMs`. */
  reclaimExpired(nowMs: number, limit: number, owner: string, leaseUntilMs: number): Array<{ account_id: string; check_id: string; due_ms: number; anchor_ms: number }> {
    return this.#reclaim.all({ nowMs, limit, owner, leaseUntilMs }) as Array<{ account_id: string; check_id: string; due_ms: number; anchor_ms: number }>;
  }

  /** Records the window as reported for good; false when `owner` no longer holds its lease. */
  confirm(window: MissedWindowKey, owner: string): boolean {
    return this.#confirm.run(window.accountId, window.checkId, window.dueMs, owner).changes > 0;
  }

  /** Ends the check's lease without a result (the check is no longer watched). */
  giveUp(accountId: string, checkId: string): void {
    this.#giveUp.run(accountId, checkId);
  }

  find(accountId: string, checkId: string): ClaimedWindow | undefined {
    return this.#find.get(accountId, checkId) as ClaimedWindow | undefined;
  }
}

/**
 * The first deadline after the anchor is `anchor + period + grace`; `next_due_ms` is the next window
 * not yet looked at. A claim moves it past `now` to the window after the latest that closed, and
 * returns that latest one (heartbeats/deadlines.ts: `latestMissedWindow`, `nextDeadlineMs`). Integer
 * division is the floor there, since `now >= next_due_ms >= first deadline`.
 */
const FIRST_DUE = '(anchor_ms + period_ms + grace_ms)';

export class SqliteHeartbeatDeadlines implements HeartbeatDeadlines {
  readonly #store: BatchedSqlite;
  readonly #windows: MissedWindowTable;
  readonly #watch: Statement;
  readonly #forget: Statement;
  readonly #ping: Statement;
  readonly #due: Statement;

  constructor(store: BatchedSqlite) {
    this.#store = store;
    this.#windows = new MissedWindowTable(store.db);
    // Unchanged timing writes nothing: replicas re-watch every heartbeat each time they reload the checks.
    this.#watch = store.db.prepare(
      `INSERT INTO heartbeat_timings (account_id, check_id, period_ms, grace_ms, anchor_ms, next_due_ms)
       VALUES (@accountId, @checkId, @periodMs, @graceMs, @anchorMs, @anchorMs + @periodMs + @graceMs)
       ON CONFLICT (account_id, check_id) DO UPDATE SET period_ms = excluded.period_ms, grace_ms = excluded.grace_ms,
         anchor_ms = max(anchor_ms, excluded.anchor_ms), next_due_ms = max(anchor_ms, excluded.anchor_ms) + excluded.period_ms + excluded.grace_ms
       WHERE period_ms <> excluded.period_ms OR grace_ms <> excluded.grace_ms OR anchor_ms < excluded.anchor_ms`,
    );
    this.#forget = store.db.prepare('DELETE FROM heartbeat_timings WHERE account_id = ? AND check_id = ?');
    this.#ping = store.db.prepare(
      'UPDATE heartbeat_timings SET anchor_ms = @pingMs, next_due_ms = @pingMs + period_ms + grace_ms WHERE account_id = @accountId AND check_id = @checkId AND anchor_ms < @pingMs',
    );
    // One statement, and a write: the transaction takes the write lock before it reads the due rows.
    // The CAST: better-sqlite3 binds a number as a REAL, and a REAL would make the division exact.
    // A check whose window is leased is left due: its next window is claimed after the confirm, so a
    // lease that runs out unconfirmed hands out the window it was for, not a later one in its place.
    this.#due = store.db.prepare(
      `UPDATE heartbeat_timings SET next_due_ms = ${FIRST_DUE} + ((CAST(@nowMs AS INTEGER) - ${FIRST_DUE}) / period_ms + 1) * period_ms
       WHERE rowid IN (
         SELECT rowid FROM heartbeat_timings AS t WHERE next_due_ms <= @nowMs
           AND NOT EXISTS (SELECT 1 FROM heartbeat_deadlines AS d WHERE d.account_id = t.account_id AND d.check_id = t.check_id AND d.lease_until_ms IS NOT NULL)
         ORDER BY next_due_ms, account_id, check_id LIMIT @limit)
       RETURNING account_id, check_id, anchor_ms, next_due_ms - period_ms AS due_ms`,
    );
  }

  async watch(heartbeat: WatchedHeartbeat): Promise<void> {
    checkWatchedHeartbeat(heartbeat);
    const { accountId, checkId, periodMs, graceMs, anchorMs } = heartbeat;
    await committed(this.#store, () => this.#watch.run({ accountId, checkId, periodMs, graceMs, anchorMs }));
  }

  async forget(accountId: string, checkId: string): Promise<boolean> {
    checkHeartbeatKey(accountId, checkId);
    return committed(this.#store, () => {
      this.#windows.giveUp(accountId, checkId);
      return this.#forget.run(accountId, checkId).changes > 0;
    });
  }

  async recordPing(accountId: string, checkId: string, pingMs: number): Promise<boolean> {
    checkHeartbeatKey(accountId, checkId);
    checkMoment('pingMs', pingMs);
    return committed(this.#store, () => this.#ping.run({ accountId, checkId, pingMs }).changes > 0);
  }

  async claimMissed(nowMs: number, limit: number, owner: string, leaseMs: number): Promise<MissedDeadline[]> {
    checkDeadlineClaim(nowMs, limit, owner, leaseMs);
    const untilMs = nowMs + leaseMs;
    return committed(this.#store, () => {
      const again = this.#windows.reclaimExpired(nowMs, limit, owner, untilMs);
      const due =
        again.length < limit ? (this.#due.all({ nowMs, limit: limit - again.length }) as Array<{ account_id: string; check_id: string; anchor_ms: number; due_ms: number }>) : [];
      const won = due.filter((row) => this.#windows.claim(row.account_id, row.check_id, row.due_ms, owner, { untilMs, anchorMs: row.anchor_ms }));
      return [...again, ...won].map((row) => ({ accountId: row.account_id, checkId: row.check_id, dueMs: row.due_ms, anchorMs: row.anchor_ms })).sort(byDeadline);
    });
  }

  async reportedMissed(windows: readonly MissedWindowKey[], owner: string): Promise<boolean[]> {
    checkMissedWindows(windows, owner);
    if (windows.length === 0) return [];
    return committed(this.#store, () => windows.map((window) => this.#windows.confirm(window, owner)));
  }

  async reported(accountId: string, checkId: string): Promise<ClaimedWindow | undefined> {
    checkHeartbeatKey(accountId, checkId);
    return this.#windows.find(accountId, checkId);
  }
}
