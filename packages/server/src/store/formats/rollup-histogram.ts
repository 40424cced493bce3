/**
 * The response-time histogram of a rollup row, from which percentiles over data whose raw results
 * were pruned are estimated.
 *
 * Layout: fixed log-scale buckets, bucket i ≥ 1 holding the values in (γ^(i-1), γ^i] ms with
 * γ = 1.02, and bucket 0 holding everything below 1 ms. Why this layout:
 * - Fixed boundaries make histograms mergeable exactly: an hour, a day or a whole window is the
 *   sum of counts per index, in SQL (one `json_set` per recorded result) and in analytics alike.
 *   Sketches with boundaries that follow the data (t-digest, reservoirs) cannot be merged without
 *   adding error at every merge.
 * - A log scale bounds the *relative* error, which is what a response time needs: 1 % of 20 ms and
 *   1 % of 20 s alike, with about 35 buckets per doubling instead of one per millisecond.
 * - Stored sparse, as a JSON object of non-empty buckets (`{"178":12,"179":40}`): a check's
 *   response times spread over a few dozen buckets in an hour, so a row stays a few hundred bytes.
 *
 * Worst relative error: a bucket's value is read as 2·γ^i / (γ + 1), which is within
 * (γ − 1) / (γ + 1) ≈ 0.99 % of every value of (γ^(i-1), γ^i]. A percentile interpolates between two
 * such estimates (analytics' R-7 rule), so it is within 0.99 % of the exact percentile of the raw
 * values, and is clamped into the exact [min, max] of the row. Values below 1 ms are read as
 * 0.5 ms: where they take part, up to 0.5 ms of absolute error comes on top.
 *
 * In store/formats/ because the rows' `rt_hist` column is written in these buckets by the engine
 * (store/sqlite/rollups.ts, and the migration step that back-fills rollups), and read by analytics.
 */

const GAMMA = 1.02;
const LOG_GAMMA = Math.log(GAMMA);

/** The worst relative error of a percentile estimated from a histogram, for values of 1 ms and more. */
export const HISTOGRAM_RELATIVE_ERROR = (GAMMA - 1) / (GAMMA + 1);

/** Non-empty buckets: index → count. */
export type Histogram = Map<number, number>;

/** The bucket a response time (ms) falls in. */
export function bucketOf(valueMs: number): number {
  if (!(valueMs >= 1)) return 0;
  return Math.max(1, Math.ceil(Math.log(valueMs) / LOG_GAMMA));
}

/** The value a bucket stands for: the point of least relative distance to both of its ends. */
function estimateOf(bucket: number): number {
  return bucket === 0 ? 0.5 : (2 * GAMMA ** bucket) / (GAMMA + 1);
}

/** Adds `count` values of `bucket`. */
export function addToHistogram(histogram: Histogram, bucket: number, count = 1): void {
  histogram.set(bucket, (histogram.get(bucket) ?? 0) + count);
}

/** Adds every bucket of `other` into `histogram`. */
export function mergeHistogram(histogram: Histogram, other: ReadonlyMap<number, number>): void {
  for (const [bucket, count] of other) addToHistogram(histogram, bucket, count);
}

/** The JSON a row's `rt_hist` column holds. */
export function parseHistogram(json: string): Histogram {
  const histogram: Histogram = new Map();
  for (const [bucket, count] of Object.entries(JSON.parse(json) as Record<string, number>)) histogram.set(Number(bucket), count);
  return histogram;
}

/**
 * The p-th percentile (0..100) of the values a non-empty histogram counts, by the R-7 rule of
 * readside/stats.ts applied to bucket estimates, clamped into the exact `[min, max]` of those values.
 */
export function histogramPercentile(histogram: Histogram, p: number, bounds: { min: number; max: number }): number {
  const buckets = [...histogram.entries()].sort(([a], [b]) => a - b);
  const total = buckets.reduce((sum, [, count]) => sum + count, 0);
  const rank = (p / 100) * (total - 1);
  const lowRank = Math.floor(rank);
  const highRank = Math.ceil(rank);
  let low: number | undefined;
  let high: number | undefined;
  let seen = 0;
  for (const [bucket, count] of buckets) {
    seen += count;
    if (low === undefined && lowRank < seen) low = estimateOf(bucket);
    if (highRank < seen) {
      high = estimateOf(bucket);
      break;
    }
  }
  if (low === undefined || high === undefined) throw new Error('this is a bug in vigil: a percentile of an empty histogram');
  const value = low + (high - low) * (rank - lowRank);
  return Math.min(bounds.max, Math.max(bounds.min, value));
}
