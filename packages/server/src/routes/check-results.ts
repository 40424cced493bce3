/**
 * `GET /v1/check-results/{checkId}`: a check's stored results in a window (default the last 6
 * hours), filtered and paged. Selection rules and order: readside/check-results.ts.
 *
 * The real service also refuses `from`/`to` more than six hours apart; the spec states only the
 * defaults, so a longer explicit window is served (a local service has no raw-result retention
 * cost to protect), and only an empty or inverted window (`to` <= `from`) is a 400.
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { badRequest, notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import { presentResult, selectCheckResults } from '../readside/check-results.js';
import { checkResultWindow } from '../readside/windows.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const { results } = ctx.repositories.readSide;

  ctx.route(ENDPOINTS['checkResults.list'], ({ account, params, query }) => {
    const check = ctx.store.checks.get(account.id, params.checkId);
    if (!check) throw notFound('Check', params.checkId);
    if (query.from !== undefined && query.to !== undefined && query.to <= query.from) {
      throw badRequest('"to" must be greater than "from"', { source: 'query', keys: ['to'] });
    }
    const window = checkResultWindow({ fromSeconds: query.from, toSeconds: query.to, now: Date.now() });
    const checkType = String(check['checkType']);
    // Filtered and paged on the facts columns; only the page's documents are decoded.
    const stored = results.factsBetween(account.id, params.checkId, window.from, window.to).map((facts) => ({ facts, checkType }));
    const page = selectCheckResults(
      stored,
      { window, location: query.location, checkType: query.checkType, hasFailures: query.hasFailures, resultType: query.resultType },
      { page: query.page, limit: query.limit },
    );
    return { items: page.items.map((result) => presentResult(results.result(account.id, params.checkId, result.facts.id)!)), total: page.total };
  });
}
