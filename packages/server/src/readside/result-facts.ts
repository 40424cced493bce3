/**
 * The numeric facts the read side computes with (store/formats/result-facts.ts reads them from a
 * stored result's row, phases as `BASE_METRICS` in analytics.ts documents them), and the loosely
 * typed subset of a stored check result (whose wire shape lives in @vigil/schema) they come from.
 */
import type { ResultFacts, ResultType } from '../store/formats/result-facts.js';
import type { StoredResultFields } from '../store/formats/result-fields.js';

export type { ResultFacts, ResultType };

/** The loosely typed subset of a stored check result that the facts are read from. */
export interface RawResult extends StoredResultFields {
  apiCheckResult?: unknown;
}
