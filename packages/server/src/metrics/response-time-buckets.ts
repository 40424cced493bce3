/**
 * The bucket bounds of the per-check response-time histogram (`vigil_check_response_time_seconds`),
 * and `vigil server --metrics-buckets`, which replaces them.
 *
 * Each bound is one line per check and location in every scrape, the largest part of a scrape once
 * the checks have run, so the default is six bounds chosen for HTTP checks: 0.1 s and below is a
 * fast answer, 0.25 to 1 s the usual range of an API behind a network, 2.5 s slow, and 10 s the
 * response time past which a check is degraded by default. Ten bounds (0.05 s up to 60 s) made a
 * scrape of 10,000 checks that ran 27 MiB; six make it about 23 MiB. `none` keeps only the
 * histogram's `+Inf` bucket, sum and count: the mean response time per check, without quantiles.
 */

/** Seconds. */
export const DEFAULT_RESPONSE_TIME_BUCKETS: readonly number[] = [0.1, 0.25, 0.5, 1, 2.5, 10];

/** More bounds than this would multiply a scrape's size for resolution no check timing has. */
export const MAX_RESPONSE_TIME_BUCKETS = 20;

/**
 * The bounds of `--metrics-buckets`: comma-separated seconds, each above 0 and above the one before,
 * at most MAX_RESPONSE_TIME_BUCKETS, or `none` for no bounds. Throws with the reason otherwise.
 */
export function parseResponseTimeBuckets(text: string): number[] {
  const trimmed = text.trim();
  if (trimmed === 'none') return [];
  const parts = trimmed.split(',').map((part) => part.trim());
  if (parts.length > MAX_RESPONSE_TIME_BUCKETS) throw new Error(`at most ${MAX_RESPONSE_TIME_BUCKETS} bounds, got ${parts.length}`);
  const bounds: number[] = [];
  for (const part of parts) {
    // Number('') is 0 and Number('0x10') is 16: only plain decimals are seconds here.
    const bound = /^\d+(\.\d+)?$|^\.\d+$/.test(part) ? Number(part) : Number.NaN;
    if (!Number.isFinite(bound) || bound <= 0) throw new Error(`"${part}" is not a number of seconds above 0 (write e.g. 0.1,0.5,2 or none)`);
    const previous = bounds.at(-1);
    if (previous !== undefined && bound <= previous) throw new Error(`bounds must increase: ${part} after ${previous}`);
    bounds.push(bound);
  }
  return bounds;
}
