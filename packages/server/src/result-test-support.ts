/**
 * For the server's own tests and benchmarks: what a check has stored, read through the check-results
 * port as every reader of the service reads it, on either engine.
 */
import type { CheckResultDocument, CheckResults } from './store/result-ports.js';

/** Results per read: the pages a check's every result is read in. */
const PAGE = 1000;

/** Every stored result of a check, oldest first (ties by id). */
export async function allResultsOf(results: Pick<CheckResults, 'oldestFirst'>, accountId: string, checkId: string): Promise<CheckResultDocument[]> {
  const all: CheckResultDocument[] = [];
  for (let page = 1; ; page++) {
    const { items } = await results.oldestFirst(accountId, checkId, { page, limit: PAGE });
    all.push(...items);
    if (items.length < PAGE) return all;
  }
}
