/**
 * `POST /v1/analytics/checks`: availability and response-time percentiles of up to 100 checks over a
 * quick range, computed by the same code as the per-check analytics endpoints (FINAL results only,
 * availability in percent). Ids the account does not have are left out of the answer, as the real
 * service does, so the answer never tells which ids exist in other accounts. ICMP and traceroute
 * metrics stay null: Vigil has no such checks. Reads over the storage ports (`ctx.routeUnit`).
 */
import { ENDPOINTS, type BatchAnalyticsItem, type CheckType } from '@vigil/schema';
import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import { readAnalyticsInputs } from '../readside/analytics-rollups.js';
import { computeAnalytics } from '../readside/analytics.js';
import { quickRangeWindow } from '../readside/windows.js';
import type { RouteContext } from './index.js';
import { anyCheck } from './typed-checks.js';

const RESPONSE_METRICS = ['availability', 'responseTime_avg', 'responseTime_p50', 'responseTime_p95', 'responseTime_p99'] as const;

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  ctx.routeUnit(ENDPOINTS['analytics.batch'], async ({ tx, account, query, body }) => {
    const window = quickRangeWindow(query.quickRange, Date.now());
    // One read of the horizons for every check of the request.
    const horizons = await tx.checkResults.horizons();
    const items: BatchAnalyticsItem[] = [];
    for (const checkId of new Set(body.checkIds)) {
      const check = await anyCheck(tx, account.id, checkId);
      if (!check) continue;
      const { facts, rollups } = await readAnalyticsInputs(tx.checkResults, account.id, checkId, window, horizons);
      const { series } = computeAnalytics(facts, { kind: 'api-checks', metrics: RESPONSE_METRICS, window, page: 1, limit: 1 }, rollups);
      const row = series[0]?.data[0] ?? {};
      const value = (name: string): number | null => (typeof row[name] === 'number' ? row[name] : null);
      items.push({
        checkId,
        checkType: check['checkType'] as CheckType,
        availability: value('availability'),
        responseTime_avg: value('responseTime_avg'),
        responseTime_p50: value('responseTime_p50'),
        responseTime_p95: value('responseTime_p95'),
        responseTime_p99: value('responseTime_p99'),
        latency_avg: null,
        latency_p50: null,
        latency_p95: null,
        latency_p99: null,
        packetLoss_avg: null,
        packetLoss_p95: null,
        packetLoss_p99: null,
        hopCount_avg: null,
      });
    }
    return items;
  });
}
