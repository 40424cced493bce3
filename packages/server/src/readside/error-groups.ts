/**
 * The error messages a result records, which whoever stores the result folds into its check's error
 * groups in the same unit of work, through the ErrorGroups port (the groups' rules:
 * store/error-group-rules.ts).
 */
import { MONITOR_RESULT_FIELDS } from '@vigil/schema';

/**
 * The error messages a stored result records: `apiCheckResult.requestError`, one message per failed
 * assertion (of `apiCheckResult` — API, URL and TCP — and each of `MONITOR_RESULT_FIELDS`), then the entries of
 * `multiStepCheckResult.errors` and `browserCheckResult.errors` (strings, or objects with a string
 * `message`). Assertion failures count: they are an API check's most common failure, and a group
 * per failing assertion is what a user looks for.
 */
export function errorMessagesOf(result: {
  apiCheckResult?: unknown;
  multiStepCheckResult?: unknown;
  browserCheckResult?: unknown;
} & Partial<Record<(typeof MONITOR_RESULT_FIELDS)[number], unknown>>): string[] {
  const messages: string[] = [];
  const requestError = fieldOf(result.apiCheckResult, 'requestError');
  if (typeof requestError === 'string' && requestError.trim() !== '') messages.push(requestError);
  for (const holder of [result.apiCheckResult, ...MONITOR_RESULT_FIELDS.map((key) => result[key])]) {
    const assertions = fieldOf(holder, 'assertions');
    if (!Array.isArray(assertions)) continue;
    for (const assertion of assertions) {
      const message = assertionFailureMessage(assertion);
      if (message !== null) messages.push(message);
    }
  }
  for (const holder of [result.multiStepCheckResult, result.browserCheckResult]) {
    const errors = fieldOf(holder, 'errors');
    if (!Array.isArray(errors)) continue;
    for (const error of errors) {
      const message = typeof error === 'string' ? error : fieldOf(error, 'message');
      if (typeof message === 'string' && message.trim() !== '') messages.push(message);
    }
  }
  return messages;
}

/** A quoted actual value longer than this is cut: the group is named by the assertion, not the body. */
const MAX_ACTUAL_CHARS = 200;

/**
 * `status code: expected 200 (EQUALS), got 503` for an assertion recorded as failed; null for one
 * that passed or that carries no outcome (seeded or imported results without `passed`).
 */
export function assertionFailureMessage(assertion: unknown): string | null {
  if (fieldOf(assertion, 'passed') !== false) return null;
  const source = fieldOf(assertion, 'source');
  if (typeof source !== 'string') return null;
  const property = fieldOf(assertion, 'property');
  const label = [source.toLowerCase().replace(/_/g, ' '), typeof property === 'string' ? property : '']
    .filter((part) => part !== '').join(' ');
  const error = fieldOf(assertion, 'error');
  if (typeof error === 'string' && error.trim() !== '') return `${label}: ${error}`;
  const comparison = String(fieldOf(assertion, 'comparison') ?? '');
  const target = fieldOf(assertion, 'target');
  const expected = target === undefined || target === null || target === ''
    ? comparison
    : `${typeof target === 'string' ? target : JSON.stringify(target)} (${comparison})`;
  return `${label}: expected ${expected}, got ${describeActual(fieldOf(assertion, 'actual'))}`;
}

function describeActual(actual: unknown): string {
  if (actual === undefined) return '(absent)';
  const text = typeof actual === 'string' ? actual : JSON.stringify(actual) ?? String(actual);
  return text.length > MAX_ACTUAL_CHARS ? `${text.slice(0, MAX_ACTUAL_CHARS)}…` : text;
}

function fieldOf(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}
