import { describe, expect, it } from 'vitest';
import { aggregate, AGGREGATIONS, percentile, type Aggregation } from './stats.js';

describe('aggregations over the series 10, 20, 30, 40, 100', () => {
  const series = [40, 10, 100, 30, 20];
  const expected: Record<Aggregation, number> = {
    avg: 40,
    max: 100,
    min: 10,
    sum: 200,
    median: 30,
    p50: 30,
    // Linear interpolation: rank = p/100 · (n − 1) = 3.6 → 40 + 0.6 · (100 − 40).
    p90: 76,
    p95: 88,
    p99: 97.6,
    // Population deviation: sqrt((900 + 400 + 100 + 0 + 3600) / 5) = sqrt(1000).
    stddev: Math.sqrt(1000),
  };
  it.each(AGGREGATIONS)('%s is the hand-computed value', (aggregation) => {
    expect(aggregate(series, aggregation)).toBeCloseTo(expected[aggregation], 9);
  });
});

describe('aggregations at the edges', () => {
  it.each(AGGREGATIONS)('%s of an empty series is null', (aggregation) => {
    expect(aggregate([], aggregation)).toBeNull();
  });
  it('the median of an even series is the mean of the middle two', () => {
    expect(aggregate([4, 1, 3, 2], 'median')).toBe(2.5);
  });
  it('every percentile of a single value is that value, and its stddev is 0', () => {
    expect(percentile([7], 99)).toBe(7);
    expect(aggregate([7], 'stddev')).toBe(0);
  });
  it('does not reorder the caller’s array', () => {
    const values = [3, 1, 2];
    aggregate(values, 'p90');
    expect(values).toEqual([3, 1, 2]);
  });
});
