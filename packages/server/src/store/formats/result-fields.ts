/**
 * The fields of a stored check result that its compact row keeps as columns, as loosely typed as
 * results arrive (older ones lack `resultType`, `attempts` or `responseTime`). The row encoder
 * (sqlite/check-results.ts) and the facts analytics computes with (result-facts.ts) read the same ones.
 */
export interface StoredResultFields {
  id: string;
  checkId: string;
  created_at: string;
  resultType?: string | null | undefined;
  runLocation: string;
  hasFailures: boolean;
  attempts?: number | null | undefined;
  responseTime?: number | null | undefined;
}
