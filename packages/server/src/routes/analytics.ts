/**
 * The analytics endpoints (the spec's, and the real document's DNS, URL, heartbeat, browser and Playwright ones). Each reads one check of its type (another type, or
 * another tenant's check, is 404) and computes the report from the check's stored results (and,
 * past the raw retention, its rollups); the computation and its documented decisions live in
 * readside/analytics.ts. Reads over the storage ports (`ctx.routeUnit`): the check through the
 * documents port, results and rollups through the check-results port.
 */
import { ENDPOINTS, type AnalyticsKind } from '@vigil/schema';
import type { Hono } from 'hono';
import { badRequest } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import { readAnalyticsInputs } from '../readside/analytics-rollups.js';
import { computeAnalytics, type AnalyticsGroupBy, type StatusFilter } from '../readside/analytics.js';
import { analyticsWindow, type QuickRange } from '../readside/windows.js';
import type { TransactionPorts } from '../store/ports.js';
import type { RouteContext } from './index.js';
import { checkOfType } from './typed-checks.js';

const CHECK_TYPE: Readonly<Record<AnalyticsKind, { checkType: string; label: string }>> = {
  'api-checks': { checkType: 'API', label: 'API check' },
  'tcp-checks': { checkType: 'TCP', label: 'TCP check' },
  'multistep-checks': { checkType: 'MULTI_STEP', label: 'Multi-step check' },
  dns: { checkType: 'DNS', label: 'DNS monitor' },
  'url-monitors': { checkType: 'URL', label: 'URL monitor' },
  'heartbeat-checks': { checkType: 'HEARTBEAT', label: 'Heartbeat monitor' },
  'browser-checks': { checkType: 'BROWSER', label: 'Browser check' },
  'playwright-checks': { checkType: 'PLAYWRIGHT', label: 'Playwright check' },
};

interface AnalyticsQueryInput {
  from?: number | undefined;
  to?: number | undefined;
  quickRange: QuickRange;
  aggregationInterval?: number | undefined;
  filterByStatus?: StatusFilter[] | undefined;
  groupBy?: AnalyticsGroupBy | undefined;
  metrics: string[];
  limit: number;
  page: number;
}

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const report = async (tx: TransactionPorts, kind: AnalyticsKind, accountId: string, checkId: string, query: AnalyticsQueryInput) => {
    const expected = CHECK_TYPE[kind];
    const check = await checkOfType(tx, accountId, checkId, expected.checkType, expected.label);
    const window = analyticsWindow({ quickRange: query.quickRange, fromSeconds: query.from, toSeconds: query.to, now: Date.now() });
    if (window.to <= window.from) {
      // Both given: `to` is the one out of order; a lone future `from` cannot run "until now".
      const key = query.to === undefined ? 'from' : 'to';
      throw badRequest(key === 'to' ? '"to" must be greater than "from"' : '"from" must be in the past', { source: 'query', keys: [key] });
    }
    const { facts, rollups } = await readAnalyticsInputs(tx.checkResults, accountId, checkId, window);
    const { series, metadata } = computeAnalytics(facts, {
      kind,
      metrics: query.metrics,
      window,
      groupBy: query.groupBy,
      aggregationInterval: query.aggregationInterval,
      filterByStatus: query.filterByStatus,
      page: query.page,
      limit: query.limit,
    }, rollups);
    return {
      checkId: String(check.id),
      name: String(check['name']),
      checkType: expected.checkType,
      activated: check['activated'] !== false,
      muted: check['muted'] === true,
      frequency: typeof check['frequency'] === 'number' ? check['frequency'] : 10,
      from: new Date(window.from).toISOString(),
      to: new Date(window.to).toISOString(),
      tags: Array.isArray(check['tags']) ? check['tags'] : [],
      series,
      pagination: { page: query.page, limit: query.limit },
      metadata,
    };
  };

  ctx.routeUnit(ENDPOINTS['analytics.apiChecks'], ({ tx, account, params, query }) => report(tx, 'api-checks', account.id, params.id, query));
  ctx.routeUnit(ENDPOINTS['analytics.tcpChecks'], ({ tx, account, params, query }) => report(tx, 'tcp-checks', account.id, params.id, query));
  ctx.routeUnit(ENDPOINTS['analytics.multiStepChecks'], ({ tx, account, params, query }) =>
    report(tx, 'multistep-checks', account.id, params.id, query),
  );
  ctx.routeUnit(ENDPOINTS['analytics.dns'], ({ tx, account, params, query }) => report(tx, 'dns', account.id, params.id, query));
  ctx.routeUnit(ENDPOINTS['analytics.urlMonitors'], ({ tx, account, params, query }) => report(tx, 'url-monitors', account.id, params.id, query));
  ctx.routeUnit(ENDPOINTS['analytics.heartbeatChecks'], ({ tx, account, params, query }) => report(tx, 'heartbeat-checks', account.id, params.id, query));
  ctx.routeUnit(ENDPOINTS['analytics.browserChecks'], ({ tx, account, params, query }) => report(tx, 'browser-checks', account.id, params.id, query));
  ctx.routeUnit(ENDPOINTS['analytics.playwrightChecks'], ({ tx, account, params, query }) =>
    report(tx, 'playwright-checks', account.id, params.id, query),
  );
}
