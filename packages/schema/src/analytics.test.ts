import { describe, expect, it } from 'vitest';
import { ApiCheckAnalyticsQuery, MultiStepCheckAnalyticsQuery, TcpCheckAnalyticsQuery, analyticsMetricNames } from './analytics.js';
import { expectAccepted, expectRejected } from './test-support.js';

describe('analytics metric names', () => {
  it('lists base metrics, then every suffix of each time base', () => {
    const api = analyticsMetricNames('api-checks');
    expect(api).toHaveLength(8 + 6 * 10);
    expect(api.slice(0, 8)).toEqual(['responseTime', 'wait', 'dns', 'tcp', 'firstByte', 'download', 'availability', 'retries']);
    expect(api).toContain('download_p99');
    expect(api).not.toContain('availability_avg');
    expect(analyticsMetricNames('tcp-checks')).toHaveLength(6 + 4 * 10);
    expect(analyticsMetricNames('multistep-checks')).toEqual([
      'responseTime', 'availability', 'retries',
      ...['avg', 'max', 'median', 'min', 'p50', 'p90', 'p95', 'p99', 'stddev', 'sum'].map((s) => `responseTime_${s}`),
    ]);
  });
});

describe('analytics queries', () => {
  it('fill quickRange, limit and page and split comma-separated lists', () => {
    expect(expectAccepted(ApiCheckAnalyticsQuery, { metrics: 'responseTime,dns_p95', filterByStatus: 'success,failure' })).toEqual({
      metrics: ['responseTime', 'dns_p95'],
      filterByStatus: ['success', 'failure'],
      quickRange: 'last24Hours',
      limit: 10,
      page: 1,
    });
  });

  it.each([
    ['aggregationInterval 1', ApiCheckAnalyticsQuery, { metrics: 'availability', aggregationInterval: '1' }],
    ['aggregationInterval 43200', TcpCheckAnalyticsQuery, { metrics: 'total_sum', aggregationInterval: 43200 }],
    ['groupBy statusCode on API checks', ApiCheckAnalyticsQuery, { metrics: ['wait_avg'], groupBy: 'statusCode' }],
    ['groupBy runLocation on multi-step checks', MultiStepCheckAnalyticsQuery, { metrics: 'responseTime_p50', groupBy: 'runLocation' }],
    ['a custom window', TcpCheckAnalyticsQuery, { metrics: 'data', from: '1700000000', to: '1700003600' }],
  ])('accept %s', (_name, schema, input) => {
    expectAccepted(schema, input);
  });

  it.each([
    ['no metrics', ApiCheckAnalyticsQuery, {}, ['metrics'], '"metrics" is required'],
    ['an empty metric list', ApiCheckAnalyticsQuery, { metrics: '' }, ['metrics'], '"metrics" must contain at least 1 items'],
    ['a TCP metric on API checks', ApiCheckAnalyticsQuery, { metrics: 'responseTime,connection' }, ['metrics.1'], '"metrics[1]" must be one of [' + analyticsMetricNames('api-checks').join(', ') + ']'],
    ['a suffix on a non-time metric', MultiStepCheckAnalyticsQuery, { metrics: 'availability_avg' }, ['metrics.0'], '"metrics[0]" must be one of [' + analyticsMetricNames('multistep-checks').join(', ') + ']'],
    ['groupBy statusCode on TCP checks', TcpCheckAnalyticsQuery, { metrics: 'total', groupBy: 'statusCode' }, ['groupBy'], '"groupBy" must be [runLocation]'],
    ['aggregationInterval 0', ApiCheckAnalyticsQuery, { metrics: 'dns', aggregationInterval: '0' }, ['aggregationInterval'], '"aggregationInterval" must be greater than or equal to 1'],
    ['aggregationInterval 43201', ApiCheckAnalyticsQuery, { metrics: 'dns', aggregationInterval: '43201' }, ['aggregationInterval'], '"aggregationInterval" must be less than or equal to 43200'],
    ['an unknown quickRange', ApiCheckAnalyticsQuery, { metrics: 'dns', quickRange: 'yesterday' }, ['quickRange'], '"quickRange" must be one of [last24Hours, last7Days, last30Days, thisWeek, thisMonth, lastWeek, lastMonth]'],
    ['an unknown status filter', ApiCheckAnalyticsQuery, { metrics: 'dns', filterByStatus: 'degraded' }, ['filterByStatus.0'], '"filterByStatus[0]" must be one of [success, failure]'],
    ['limit 101', ApiCheckAnalyticsQuery, { metrics: 'dns', limit: '101' }, ['limit'], '"limit" must be less than or equal to 100'],
  ] as const)('reject %s', (_name, schema, input, keys, message) => {
    expectRejected(schema, input, { keys: [...keys], message });
  });
});
