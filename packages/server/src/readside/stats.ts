/**
 * The ten aggregations the analytics endpoints offer as metric suffixes (`responseTime_p95`, ...).
 *
 * Definitions (documented because clients compare against them):
 * - percentiles use linear interpolation between the closest ranks (the "R-7" / numpy default /
 *   Excel `PERCENTILE.INC` method), so `median` and `p50` are the same number;
 * - `stddev` is the population standard deviation (divides by n, not n - 1): a window holds every
 *   run of the check, not a sample of them;
 * - every aggregation of an empty series is `null` (no data is not the same as zero).
 */
export const AGGREGATIONS = ['avg', 'max', 'median', 'min', 'p50', 'p90', 'p95', 'p99', 'stddev', 'sum'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

/** Applies one aggregation to a series of numbers; `null` for an empty series. */
export function aggregate(values: readonly number[], aggregation: Aggregation): number | null {
  if (values.length === 0) return null;
  switch (aggregation) {
    case 'avg':
      return sum(values) / values.length;
    case 'max':
      return values.reduce((a, b) => (b > a ? b : a));
    case 'min':
      return values.reduce((a, b) => (b < a ? b : a));
    case 'sum':
      return sum(values);
    case 'median':
    case 'p50':
      return percentile(values, 50);
    case 'p90':
      return percentile(values, 90);
    case 'p95':
      return percentile(values, 95);
    case 'p99':
      return percentile(values, 99);
    case 'stddev': {
      const mean = sum(values) / values.length;
      return Math.sqrt(sum(values.map((v) => (v - mean) ** 2)) / values.length);
    }
    default:
      return assertNever(aggregation);
  }
}

/** Linear-interpolation percentile of a non-empty series; `p` in 0..100. */
export function percentile(values: readonly number[], p: number): number {
  // A typed array sorts numerically without a comparator call per comparison (thousands of values per metric).
  const sorted = Float64Array.from(values).sort();
  const rank = (p / 100) * (sorted.length - 1);
  const lower = Math.floor(rank);
  const upper = Math.ceil(rank);
  const lowValue = sorted[lower] as number;
  const highValue = sorted[upper] as number;
  return lowValue + (highValue - lowValue) * (rank - lower);
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

export function assertNever(value: never): never {
  throw new Error(`this is a bug in vigil: unexpected value ${JSON.stringify(value)}`);
}
