/**
 * The numeric facts the read side computes with, pulled once out of a stored check result (whose
 * wire shape lives in @vigil/schema). Keeping the extraction in one place is what makes the metric
 * mapping documentable: see `timingPhase` below and `BASE_METRICS` in analytics.ts.
 */
import type { ResultFacts, ResultType } from '../store/formats/result-facts.js';
import type { StoredResultFields } from '../store/formats/result-fields.js';

export type { ResultFacts, ResultType };

/** The loosely typed subset of a stored check result that the facts are read from. */
export interface RawResult extends StoredResultFields {
  apiCheckResult?: unknown;
}

/**
 * Facts of one stored result. Timing phases come from `apiCheckResult.response.timingPhases`
 * (API checks: `wait`, `dns`, `tcp`, `firstByte`, `download`; TCP checks: `dns`, `connection`,
 * `data`); a phase that is absent or not a finite number is simply missing from that result's
 * series rather than counted as 0.
 */
export function factsOf(result: RawResult): ResultFacts {
  const response = objectAt(objectAt(result.apiCheckResult)?.['response']);
  const phases = objectAt(response?.['timingPhases']) ?? {};
  const timingPhases: Record<string, number> = {};
  for (const [name, value] of Object.entries(phases)) {
    if (typeof value === 'number' && Number.isFinite(value)) timingPhases[name] = value;
  }
  const status = response?.['status'];
  return {
    id: result.id,
    checkId: result.checkId,
    createdAt: Date.parse(result.created_at),
    resultType: result.resultType === 'ATTEMPT' ? 'ATTEMPT' : 'FINAL',
    runLocation: result.runLocation,
    hasFailures: result.hasFailures,
    attempts: result.attempts ?? 0,
    responseTime: typeof result.responseTime === 'number' ? result.responseTime : null,
    statusCode: typeof status === 'number' ? status : null,
    timingPhases,
  };
}

function objectAt(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
