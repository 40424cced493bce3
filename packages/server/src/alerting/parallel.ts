/**
 * `runParallel` checks run every location at each slot; the slot's runs are one evaluation of the
 * alert state, not one per location (three locations failing at once are one failing run, so
 * `failedRunThreshold: 2` still means two slots).
 *
 * When a slot fails — the real service's semantics of `parallelRunFailureThreshold`:
 * - enabled: when the share of its locations that failed is at least `percentage` (1 of 3 failing
 *   is 33 %: failing at 10–30 %, passing at 40 % and above);
 * - disabled (the default): when any location failed. The real service marks a parallel check run
 *   failed as soon as one location fails; the threshold exists to relax exactly that, so without it
 *   one location's failure is the check's failure.
 *
 * The slot is evaluated when all its locations reported. A slot that never completes (a run that
 * crashed inside the service) is evaluated with what it has when the check's next slot reports, so
 * its results are not lost; one held in memory when the process dies is (at most one evaluation).
 */
import type { AlertSettings } from '@vigil/schema';
import type { FinalResultFacts } from './index.js';

export interface ParallelSlot {
  /** The slot's moment (shared by its locations' runs). */
  dueMs: number;
  /** How many locations run in the slot. */
  locations: number;
}

interface Bucket {
  dueMs: number;
  expected: number;
  results: FinalResultFacts[];
}

export class ParallelSlots {
  readonly #byCheck = new Map<string, Bucket[]>();

  /**
   * Adds one location's FINAL result; returns the slots of the check now ready to evaluate, oldest
   * first (usually none, or this slot once its last location reported).
   */
  add(accountId: string, checkId: string, slot: ParallelSlot, result: FinalResultFacts): FinalResultFacts[][] {
    const key = `${accountId}\n${checkId}`;
    const buckets = this.#byCheck.get(key) ?? [];
    let bucket = buckets.find((candidate) => candidate.dueMs === slot.dueMs);
    if (!bucket) {
      bucket = { dueMs: slot.dueMs, expected: slot.locations, results: [] };
      buckets.push(bucket);
      buckets.sort((a, b) => a.dueMs - b.dueMs);
    }
    bucket.results.push(result);
    const ready: FinalResultFacts[][] = [];
    const kept: Bucket[] = [];
    for (const candidate of buckets) {
      const complete = candidate.results.length >= candidate.expected;
      const superseded = candidate.dueMs < slot.dueMs;
      if (complete || superseded) ready.push(candidate.results);
      else kept.push(candidate);
    }
    if (kept.length === 0) this.#byCheck.delete(key);
    else this.#byCheck.set(key, kept);
    return ready;
  }
}

/** One slot's results as the single result the alert state folds (see the module comment). */
export function combineParallel(results: readonly FinalResultFacts[], threshold: AlertSettings['parallelRunFailureThreshold']): FinalResultFacts {
  const failed = results.filter((result) => result.hasFailures || result.hasErrors);
  const passed = results.filter((result) => !(result.hasFailures || result.hasErrors));
  const slotFailed = threshold.enabled ? failed.length * 100 >= threshold.percentage * results.length : failed.length > 0;
  if (slotFailed) return failed[0]!;
  // Passing: the failures below the threshold do not count, a degraded location still does.
  const degraded = passed.find((result) => result.isDegraded === true);
  return { ...(degraded ?? passed[0]!), hasFailures: false, hasErrors: false };
}
