/**
 * Rate-limit windows in PostgreSQL: one upsert counts the request and returns the window, so the
 * decision and the count are one atomic step (the upsert locks the row; concurrent requests for the
 * same window queue on it) and replicas share the limit. Same rules as store/sqlite/rate-limits.ts.
 */
import { sql, type Kysely } from 'kysely';
import type { RateDecision, RateLimitRequest, RateLimitWindows } from '../ports.js';
import { checkRateLimitRequest, rateDecision, windowId } from '../port-rules.js';
import type { PostgresSchema } from './database.js';

/** How often this replica deletes ended windows (piggybacking on a request; no timer). */
const PURGE_EVERY_MS = 60_000;

export class PostgresRateLimitWindows implements RateLimitWindows {
  readonly #db: Kysely<PostgresSchema>;
  #lastPurge = 0;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async take(request: RateLimitRequest): Promise<RateDecision> {
    checkRateLimitRequest(request);
    const { now, windowMs, limit } = request;
    if (now - this.#lastPurge > PURGE_EVERY_MS) {
      this.#lastPurge = now;
      await this.#db.deleteFrom('rate_windows').where('expires_ms', '<=', now).execute();
    }
    // A window that has run its length starts again at this request; otherwise the request counts,
    // up to limit + 1 (see rateDecision). SET expressions read the row as it was before the update.
    const ended = sql<boolean>`${now}::bigint - rate_windows.started_ms >= ${windowMs}::bigint`;
    const window = await this.#db
      .insertInto('rate_windows')
      .values({ id: windowId(request.key), started_ms: now, hits: 1, expires_ms: now + windowMs })
      .onConflict((conflict) =>
        conflict.column('id').doUpdateSet({
          started_ms: sql<number>`CASE WHEN ${ended} THEN ${now}::bigint ELSE rate_windows.started_ms END`,
          expires_ms: sql<number>`CASE WHEN ${ended} THEN ${now + windowMs}::bigint ELSE rate_windows.expires_ms END`,
          hits: sql<number>`CASE WHEN ${ended} THEN 1 ELSE LEAST(rate_windows.hits + 1, ${limit + 1}::bigint) END`,
        }),
      )
      .returning(['started_ms', 'hits'])
      .executeTakeFirstOrThrow();
    return rateDecision(request, { startedMs: window.started_ms, hits: window.hits });
  }
}
