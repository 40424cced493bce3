/**
 * `GET /v1/check-results/{checkId}`: a check's stored results in a window (default the last 6
 * hours), filtered and paged, oldest first (ties by id) through the check-results port, which
 * decodes only the page's results.
 *
 * The real service also refuses `from`/`to` more than six hours apart; the spec states only the
 * defaults, so a longer explicit window is served (a local service has no raw-result retention
 * cost to protect), and only an empty or inverted window (`to` <= `from`) is a 400.
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { getCheck } from '../domain/checks.js';
import { badRequest } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import { presentResult } from '../readside/check-results.js';
import { checkResultWindow } from '../readside/windows.js';
import type { RouteContext } from './index.js';

/**
 * A window bound as the port takes it: a moment from 1970 on. No result lies outside those, so a
 * default window reaching before 1970 (a `to` in its first hours) or past the largest moment selects
 * the same results clamped.
 */
export function storedMoment(ms: number): number {
  return Math.min(Math.max(ms, 0), Number.MAX_SAFE_INTEGER);
}

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  ctx.routeUnit(ENDPOINTS['checkResults.list'], async ({ tx, account, params, query }) => {
    const inverted = query.from !== undefined && query.to !== undefined && query.to <= query.from;
    const window = checkResultWindow({ fromSeconds: query.from, toSeconds: query.to, now: Date.now() });
    // The page is read while the check is: one wait for the database instead of two in a row, which
    // under a scheduler's load each cost a turn of a busy event loop. What the check decides comes
    // first all the same (404, then the window's 400, then a type the check is not); the page read
    // is then dropped, its failure with it.
    const reading =
      inverted ? undefined
      : tx.checkResults.oldestFirst(account.id, params.checkId, {
          fromMs: storedMoment(window.from),
          toMs: storedMoment(window.to),
          location: query.location,
          hasFailures: query.hasFailures,
          resultType: query.resultType === 'ALL' ? undefined : query.resultType,
          page: query.page,
          limit: query.limit,
        });
    reading?.catch(() => undefined);
    const check = await getCheck(tx, account.id, params.checkId);
    if (reading === undefined) throw badRequest('"to" must be greater than "from"', { source: 'query', keys: ['to'] });
    // A filter naming another type than the check's matches none of its results.
    if (query.checkType !== undefined && query.checkType !== String(check['checkType'])) return { items: [], total: 0 };
    const page = await reading;
    return { items: page.items.map(presentResult), total: page.total };
  });
}
