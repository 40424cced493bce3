/**
 * The analytics endpoints (the spec's, and the real document's DNS, URL, heartbeat, browser and Playwright ones). Each reads one check of its type (another type, or
 * another tenant's check, is 404) and computes the report from the check's stored results (and,
 * past the raw retention, its rollups); the computation and its documented decisions live in
 * readside/analytics.ts.
 */
import { ENDPOINTS, type AnalyticsKind } from '@vigil/schema';
import type { Hono } from 'hono';
import { badRequest, notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import { analyticsInputs } from '../readside/analytics-rollups.js';
import { computeAnalytics, type AnalyticsGroupBy, type StatusFilter } from '../readside/analytics.js';
import { analyticsWindow, type QuickRange } from '../readside/windows.js';
import type { StoredDoc } from '../store/index.js';
import type { RouteContext } from './index.js';

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
  const { results } = ctx.repositories.readSide;

  const report = (kind: AnalyticsKind, accountId: string, checkId: string, query: AnalyticsQueryInput) => {
    const check: StoredDoc | undefined = ctx.store.checks.get(accountId, checkId);
    const expected = CHECK_TYPE[kind];
    if (!check || check['checkType'] !== expected.checkType) throw notFound(expected.label, checkId);
    const window = analyticsWindow({ quickRange: query.quickRange, fromSeconds: query.from, toSeconds: query.to, now: Date.now() });
    if (window.to <= window.from) {
      // Both given: `to` is the one out of order; a lone future `from` cannot run "until now".
      const key = query.to === undefined ? 'from' : 'to';
      throw badRequest(key === 'to' ? '"to" must be greater than "from"' : '"from" must be in the past', { source: 'query', keys: [key] });
    }
    const { facts, rollups } = analyticsInputs(results, accountId, checkId, window);
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

  ctx.route(ENDPOINTS['analytics.apiChecks'], ({ account, params, query }) => report('api-checks', account.id, params.id, query));
  ctx.route(ENDPOINTS['analytics.tcpChecks'], ({ account, params, query }) => report('tcp-checks', account.id, params.id, query));
  ctx.route(ENDPOINTS['analytics.multiStepChecks'], ({ account, params, query }) =>
    report('multistep-checks', account.id, params.id, query),
  );
  ctx.route(ENDPOINTS['analytics.dns'], ({ account, params, query }) => report('dns', account.id, params.id, query));
  ctx.route(ENDPOINTS['analytics.urlMonitors'], ({ account, params, query }) => report('url-monitors', account.id, params.id, query));
  ctx.route(ENDPOINTS['analytics.heartbeatChecks'], ({ account, params, query }) => report('heartbeat-checks', account.id, params.id, query));
  ctx.route(ENDPOINTS['analytics.browserChecks'], ({ account, params, query }) => report('browser-checks', account.id, params.id, query));
  ctx.route(ENDPOINTS['analytics.playwrightChecks'], ({ account, params, query }) =>
    report('playwright-checks', account.id, params.id, query),
  );
}
