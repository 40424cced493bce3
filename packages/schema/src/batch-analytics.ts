/**
 * `POST /v1/analytics/checks` (real API): headline numbers of up to 100 checks at once over one
 * quick range. Metrics a check type does not have (ICMP latency, traceroute hops) are null.
 */
import { z } from 'zod';
import { CheckType } from './values.js';

export const BATCH_QUICK_RANGES = ['last24Hours', 'last7Days', 'thisWeek', 'lastWeek', 'lastMonth'] as const;

export const BatchAnalyticsQuery = z.object({
  quickRange: z.enum(BATCH_QUICK_RANGES).default('last24Hours'),
});
export type BatchAnalyticsQuery = z.infer<typeof BatchAnalyticsQuery>;

export const BatchAnalyticsRequest = z.strictObject({
  checkIds: z.array(z.string().min(1)).min(1).max(100),
});
export type BatchAnalyticsRequest = z.infer<typeof BatchAnalyticsRequest>;

const metric = z.number().nullable();

export const BATCH_METRICS = [
  'availability', 'responseTime_avg', 'responseTime_p50', 'responseTime_p95', 'responseTime_p99',
  'latency_avg', 'latency_p50', 'latency_p95', 'latency_p99', 'packetLoss_avg', 'packetLoss_p95', 'packetLoss_p99',
  'hopCount_avg',
] as const;
export type BatchMetric = (typeof BATCH_METRICS)[number];

export const BatchAnalyticsItem = z.object({
  checkId: z.string(),
  checkType: CheckType,
  ...Object.fromEntries(BATCH_METRICS.map((name) => [name, metric])) as Record<BatchMetric, typeof metric>,
});
export type BatchAnalyticsItem = z.infer<typeof BatchAnalyticsItem>;
