/**
 * A stored check result as the API returns it. The results themselves are selected by the
 * check-results port (store/result-ports.ts), which filters and pages them where they are stored.
 */

/**
 * A stored result as the API returns it: with the real document's required `traceId`, null unless
 * the result was recorded with one (Vigil's runner records no traces). Added on the way out, so the
 * stored form stays exactly what was recorded.
 */
export function presentResult<T extends object>(doc: T): T & { traceId: unknown } {
  return { ...doc, traceId: (doc as { traceId?: unknown }).traceId ?? null };
}
