/**
 * Rate-limit windows in SQLite: one row per window (a SHA-256 of the limiter's key), counted by one
 * upsert whose RETURNING row is the decision, so two connections never both take the last request.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import type { RateDecision, RateLimitRequest, RateLimitWindows } from '../ports.js';
import { checkRateLimitRequest, rateDecision, windowId } from '../port-rules.js';
import { committed, type BatchedSqlite } from './batched.js';

/** How often a connection deletes ended windows (piggybacking on a request; no timer). */
const PURGE_EVERY_MS = 60_000;

/** The synchronous table, for a caller already inside a transaction; the port wraps it. */
export class RateWindowTable {
  readonly #take: Statement;
  readonly #purge: Statement;
  #lastPurge = 0;

  constructor(db: SqliteDatabase) {
    // A window that has run its length starts again at this request; otherwise the request counts,
    // up to limit + 1 (see rateDecision). SET expressions read the row as it was before the update.
    this.#take = db.prepare(
      `INSERT INTO rate_windows (id, started_ms, hits, expires_ms) VALUES (@id, @now, 1, @now + @windowMs)
       ON CONFLICT (id) DO UPDATE SET
         started_ms = CASE WHEN @now - rate_windows.started_ms >= @windowMs THEN @now ELSE rate_windows.started_ms END,
         expires_ms = CASE WHEN @now - rate_windows.started_ms >= @windowMs THEN @now + @windowMs ELSE rate_windows.expires_ms END,
         hits = CASE WHEN @now - rate_windows.started_ms >= @windowMs THEN 1 ELSE min(rate_windows.hits + 1, @limit + 1) END
       RETURNING started_ms AS startedMs, hits`,
    );
    this.#purge = db.prepare('DELETE FROM rate_windows WHERE expires_ms <= ?');
  }

  take(request: RateLimitRequest): RateDecision {
    const { limit, windowMs, now } = request;
    if (now - this.#lastPurge > PURGE_EVERY_MS) {
      this.#purge.run(now);
      this.#lastPurge = now;
    }
    const window = this.#take.get({ id: windowId(request.key), now, windowMs, limit }) as { startedMs: number; hits: number };
    return rateDecision(request, window);
  }
}

export class SqliteRateLimitWindows implements RateLimitWindows {
  readonly #store: BatchedSqlite;
  readonly #table: RateWindowTable;

  constructor(store: BatchedSqlite) {
    this.#store = store;
    this.#table = new RateWindowTable(store.db);
  }

  async take(request: RateLimitRequest): Promise<RateDecision> {
    checkRateLimitRequest(request);
    // Every API request comes here. With no transaction open on the file in this process, the upsert
    // runs alone: SQLite's autocommit makes one statement its own transaction, which spares the BEGIN
    // and COMMIT statements (a third of the cost). The purge, when due, is another statement of its own.
    const { db } = this.#store;
    if (!db.inTransaction && this.#store.otherConnectionWriting?.() === undefined) return this.#table.take(request);
    return committed(this.#store, () => this.#table.take(request));
  }
}
