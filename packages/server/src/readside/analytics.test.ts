import { describe, expect, it } from 'vitest';
import { ANALYTICS_KINDS, analyticsMetricNames } from '@vigil/schema';
import { computeAnalytics, metadataOf, metricNames, parseMetric, type AnalyticsQuery } from './analytics.js';
import type { ResultFacts } from '../store/formats/result-facts.js';

const base = Date.parse('2026-03-18T00:00:00.000Z');
const minute = 60_000;

function result(overrides: Partial<ResultFacts> & { id: string; minute: number }): ResultFacts {
  const { minute: offset, ...rest } = overrides;
  return {
    checkId: 'c1',
    createdAt: base + offset * minute,
    resultType: 'FINAL',
    runLocation: 'eu-west-1',
    hasFailures: false,
    attempts: 0,
    responseTime: 100,
    statusCode: 200,
    timingPhases: {},
    ...rest,
  };
}

// Five runs in two locations; one failure (503); one retry attempt that must not count.
const results: ResultFacts[] = [
  result({ id: 'r1', minute: 0, responseTime: 100, timingPhases: { dns: 10, wait: 1 } }),
  result({ id: 'r2', minute: 5, responseTime: 200, timingPhases: { dns: 20 }, runLocation: 'us-east-1' }),
  result({ id: 'r3', minute: 10, responseTime: 300, timingPhases: { dns: 30 }, hasFailures: true, statusCode: 503, attempts: 2 }),
  result({ id: 'r4', minute: 15, responseTime: 400, runLocation: 'us-east-1', attempts: 1 }),
  result({ id: 'r5', minute: 20, responseTime: 1000, timingPhases: { dns: 40 } }),
  result({ id: 'a1', minute: 9, responseTime: 9999, resultType: 'ATTEMPT', hasFailures: true }),
  result({ id: 'old', minute: -1, responseTime: 5 }),
];

const query = (overrides: Partial<AnalyticsQuery>): AnalyticsQuery => ({
  kind: 'api-checks',
  metrics: ['responseTime_avg'],
  window: { from: base, to: base + 60 * minute },
  page: 1,
  limit: 10,
  ...overrides,
});

describe('analytics over one window without aggregationInterval', () => {
  it('aggregates FINAL results inside the window into one row', () => {
    const { series } = computeAnalytics(results, query({
      metrics: ['responseTime_avg', 'responseTime_max', 'responseTime_p90', 'responseTime_sum', 'availability', 'retries'],
    }));
    // Response times 100, 200, 300, 400, 1000: avg 400, p90 = 400 + 0.6 · 600 = 760.
    expect(series).toEqual([{
      data: [{
        timestamp: '2026-03-18T00:00:00.000Z',
        responseTime_avg: 400,
        responseTime_max: 1000,
        responseTime_p90: 760,
        responseTime_sum: 2000,
        availability: 80,
        retries: 3,
      }],
    }]);
  });

  it('reports an unsuffixed time base as its average', () => {
    const { series } = computeAnalytics(results, query({ metrics: ['responseTime', 'dns'] }));
    expect(series[0]?.data).toEqual([{ timestamp: '2026-03-18T00:00:00.000Z', responseTime: 400, dns: 25 }]);
  });

  it('skips results without the phase instead of counting 0', () => {
    const { series } = computeAnalytics(results, query({ metrics: ['dns_avg', 'wait_min'] }));
    expect(series[0]?.data).toEqual([{ timestamp: '2026-03-18T00:00:00.000Z', dns_avg: 25, wait_min: 1 }]);
  });

  it('gives null aggregations and null availability for an empty window', () => {
    const { series } = computeAnalytics(results, query({
      window: { from: base + 120 * minute, to: base + 180 * minute },
      metrics: ['responseTime_p99', 'availability', 'retries', 'responseTime'],
    }));
    expect(series).toEqual([{
      data: [{ timestamp: '2026-03-18T02:00:00.000Z', responseTime_p99: null, availability: null, retries: 0, responseTime: null }],
    }]);
  });

  it('has no series for a grouped report of an empty window', () => {
    const { series, totalSeries } = computeAnalytics([], query({ groupBy: 'runLocation' }));
    expect([series, totalSeries]).toEqual([[], 0]);
  });
});

describe('filterByStatus', () => {
  it.each([
    [['failure'] as const, [300]],
    [['success'] as const, [100, 200, 400, 1000]],
    [['success', 'failure'] as const, [100, 200, 300, 400, 1000]],
  ])('%j keeps response times %j', (filterByStatus, expected) => {
    const { series } = computeAnalytics(results, query({ metrics: ['responseTime_sum'], filterByStatus }));
    expect(series[0]?.data[0]?.['responseTime_sum']).toBe(expected.reduce((a, b) => a + b, 0));
  });
});

describe('aggregationInterval buckets', () => {
  it('buckets 10-minute intervals from the window start, omitting empty buckets', () => {
    const { series } = computeAnalytics(results, query({ aggregationInterval: 10, metrics: ['responseTime_avg', 'availability'] }));
    expect(series[0]?.data).toEqual([
      { timestamp: '2026-03-18T00:00:00.000Z', responseTime_avg: 150, availability: 100 },
      { timestamp: '2026-03-18T00:10:00.000Z', responseTime_avg: 350, availability: 50 },
      { timestamp: '2026-03-18T00:20:00.000Z', responseTime_avg: 1000, availability: 100 },
    ]);
  });
  it('puts a result exactly on a boundary into the later bucket', () => {
    const { series } = computeAnalytics(results, query({ aggregationInterval: 5, metrics: ['responseTime_sum'] }));
    expect((series[0]?.data as Array<{ timestamp: string }>).map((row) => row.timestamp)).toEqual([
      '2026-03-18T00:00:00.000Z',
      '2026-03-18T00:05:00.000Z',
      '2026-03-18T00:10:00.000Z',
      '2026-03-18T00:15:00.000Z',
      '2026-03-18T00:20:00.000Z',
    ]);
  });
});

describe('groupBy', () => {
  it('splits by runLocation, ordered by location', () => {
    const { series, totalSeries } = computeAnalytics(results, query({ groupBy: 'runLocation', metrics: ['responseTime_median'] }));
    expect(series.map((s) => [s.runLocation, s.data[0]?.['responseTime_median']])).toEqual([
      ['eu-west-1', 300],
      ['us-east-1', 300],
    ]);
    expect(totalSeries).toBe(2);
  });
  it('splits by statusCode, numerically', () => {
    const { series } = computeAnalytics(results, query({ groupBy: 'statusCode', metrics: ['availability'] }));
    expect(series.map((s) => [s.statusCode, s.data[0]?.['availability']])).toEqual([
      [200, 100],
      [503, 0],
    ]);
  });
  it('groups runs without a response under status code 0', () => {
    const { series } = computeAnalytics([...results, result({ id: 'dnsfail', minute: 30, statusCode: null, hasFailures: true })],
      query({ groupBy: 'statusCode', metrics: ['retries'] }));
    expect(series.map((s) => s.statusCode)).toEqual([0, 200, 503]);
  });
  it('pages the series with limit and page', () => {
    const second = computeAnalytics(results, query({ groupBy: 'runLocation', limit: 1, page: 2, metrics: ['retries'] }));
    expect(second.series).toEqual([{ runLocation: 'us-east-1', data: [{ timestamp: '2026-03-18T00:00:00.000Z', retries: 1 }] }]);
    const beyond = computeAnalytics(results, query({ groupBy: 'runLocation', limit: 1, page: 3, metrics: ['retries'] }));
    expect(beyond.series).toEqual([]);
  });
});

describe('metric names and metadata', () => {
  it('offers 8 bases plus 6 × 10 suffixed names for API checks', () => {
    expect(metricNames('api-checks')).toHaveLength(68);
    expect(metricNames('tcp-checks')).toHaveLength(6 + 4 * 10);
    expect(metricNames('multistep-checks')).toHaveLength(3 + 10);
  });
  it.each(ANALYTICS_KINDS)('maps exactly the metric names @vigil/schema accepts for %s', (kind) => {
    expect(metricNames(kind)).toEqual(analyticsMetricNames(kind));
  });
  it.each([
    ['api-checks', 'availability_avg'],
    ['api-checks', 'total'],
    ['tcp-checks', 'responseTime'],
    ['multistep-checks', 'dns_p95'],
    ['api-checks', 'responseTime_p42'],
    ['api-checks', 'constructor'],
  ] as const)('%s does not offer %s', (kind, name) => {
    expect(parseMetric(kind, name)).toBeUndefined();
  });
  it.each([
    ['api-checks', 'responseTime_p95', { unit: 'milliseconds', label: 'Response time (p95)', aggregation: 'p95' }],
    ['api-checks', 'firstByte', { unit: 'milliseconds', label: 'First byte', aggregation: 'avg' }],
    ['tcp-checks', 'availability', { unit: 'percentage', label: 'Availability', aggregation: 'avg' }],
    ['multistep-checks', 'retries', { unit: 'count', label: 'Retries', aggregation: 'sum' }],
    ['tcp-checks', 'connection_stddev', { unit: 'milliseconds', label: 'Connection (stddev)', aggregation: 'stddev' }],
  ] as const)('%s metadata of %s', (kind, name, expected) => {
    const parsed = parseMetric(kind, name);
    expect(parsed && metadataOf(parsed)).toEqual(expected);
  });
  it('returns one metadata entry per requested metric', () => {
    const { metadata } = computeAnalytics(results, query({ metrics: ['availability', 'dns_p99'] }));
    expect(Object.keys(metadata)).toEqual(['availability', 'dns_p99']);
  });
});

describe('TCP and multi-step mapping', () => {
  it('maps TCP total to responseTime and connection to its timing phase', () => {
    const tcp = [result({ id: 't1', minute: 1, responseTime: 50, timingPhases: { connection: 7, data: 3 } })];
    const { series } = computeAnalytics(tcp, query({ kind: 'tcp-checks', metrics: ['total_max', 'connection', 'data_sum'] }));
    expect(series[0]?.data).toEqual([{ timestamp: '2026-03-18T00:00:00.000Z', total_max: 50, connection: 7, data_sum: 3 }]);
  });
});
