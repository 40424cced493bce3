/**
 * Selection of check results for `GET /v1/check-results/{checkId}`.
 *
 * Order: oldest first by `created_at`, ties by id — the server-wide list order, so
 * walking the pages of a window never skips or repeats a result. (The real service does not state
 * an order; one convention for every list is worth more than guessing.)
 */
import type { Page } from '../store/index.js';
import type { ResultFacts } from './result-facts.js';
import { inWindow, type TimeWindow } from './windows.js';

export type ResultTypeFilter = 'FINAL' | 'ATTEMPT' | 'ALL';

export interface CheckResultFilter {
  window: TimeWindow;
  location?: string | undefined;
  /** The check's own type: a filter naming another type matches nothing. */
  checkType?: string | undefined;
  hasFailures?: boolean | undefined;
  /** Default `FINAL`. */
  resultType?: ResultTypeFilter | undefined;
}

/** Facts plus the type of the check they belong to. */
export interface TypedResult {
  facts: ResultFacts;
  checkType: string;
}

/** Whether one result passes every filter. */
export function matchesResultFilter(result: TypedResult, filter: CheckResultFilter): boolean {
  const { facts } = result;
  const resultType = filter.resultType ?? 'FINAL';
  return (
    inWindow(facts.createdAt, filter.window) &&
    (filter.location === undefined || facts.runLocation === filter.location) &&
    (filter.checkType === undefined || result.checkType === filter.checkType) &&
    (filter.hasFailures === undefined || facts.hasFailures === filter.hasFailures) &&
    (resultType === 'ALL' || facts.resultType === resultType)
  );
}

/** Oldest first, ties by id. */
export function compareResults(a: ResultFacts, b: ResultFacts): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** One page (1-based) of an already ordered list. */
export function pageOf<T>(items: readonly T[], page: number, limit: number): Page<T> {
  const start = (page - 1) * limit;
  return { items: items.slice(start, start + limit), total: items.length };
}

/** Filters, orders and pages a check's results. */
export function selectCheckResults<T extends TypedResult>(
  results: readonly T[],
  filter: CheckResultFilter,
  paging: { page: number; limit: number },
): Page<T> {
  const matching = results
    .filter((r) => matchesResultFilter(r, filter))
    .sort((a, b) => compareResults(a.facts, b.facts));
  return pageOf(matching, paging.page, paging.limit);
}

/**
 * A stored result as the API returns it: with the real document's required `traceId`, null unless
 * the result was recorded with one (Vigil's runner records no traces). Added on the way out, so the
 * stored form stays exactly what was recorded.
 */
export function presentResult<T extends object>(doc: T): T & { traceId: unknown } {
  return { ...doc, traceId: (doc as { traceId?: unknown }).traceId ?? null };
}
