/**
 * Error groups: the errors of a check's results, deduplicated by a hash of the message with its
 * variable parts (numbers, hex, UUIDs, timestamps, quoted values) replaced by placeholders, so
 * "timeout after 5003ms" and "timeout after 4871ms" are one group.
 */
import { createHash } from 'node:crypto';
import { MONITOR_RESULT_FIELDS } from '@vigil/schema';

/**
 * Placeholder rules, applied in this order. The order matters: a timestamp or UUID contains
 * numbers and hex, and a quoted value may contain anything, so the wider patterns go first.
 */
const CLEANING_RULES: ReadonlyArray<readonly [RegExp, string]> = [
  // ISO 8601 timestamps, with or without seconds, fraction and zone.
  [/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<timestamp>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  // Quoted values; the quote must open after a boundary and close before one, so the apostrophe of
  // "can't" never starts a quote.
  [/(^|[\s(=:[{,])(["'`])[^"'`\n]*\2(?=$|[\s)\]},.:;!?])/g, '$1<quoted>'],
  // IPv4 addresses (with an optional port, which the number rule then replaces) before numbers, so
  // "10.0.0.12" does not become a mix of placeholders and digits.
  [/\b\d{1,3}(?:\.\d{1,3}){3}\b/g, '<ip>'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  // Bare hex runs (request ids, hashes): at least 8 characters with both a digit and a letter.
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>'],
  // Numbers not glued to a preceding letter ("5000ms" -> "<number>ms", "ipv4" untouched).
  [/(?<![A-Za-z0-9_.])\d+(?:\.\d+)?/g, '<number>'],
];

/** The message with every variable part replaced by a placeholder (and whitespace collapsed). */
export function cleanErrorMessage(raw: string): string {
  let cleaned = raw;
  for (const [pattern, replacement] of CLEANING_RULES) cleaned = cleaned.replace(pattern, replacement);
  return cleaned.replace(/\s+/g, ' ').trim();
}

/** `errorHash`: sha256 (hex) of the cleaned message. */
export function errorHashOf(cleanedMessage: string): string {
  return createHash('sha256').update(cleanedMessage).digest('hex');
}

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

/** An error group as the read side keeps it (times in epoch milliseconds). */
export interface ErrorGroupState {
  id: string;
  checkId: string;
  errorHash: string;
  rawErrorMessage: string;
  cleanedErrorMessage: string;
  firstSeen: number;
  lastSeen: number;
  archivedUntilNextEvent: boolean;
  /** Archived with `archiveForEver`: later events never bring the group back. */
  archivedForever: boolean;
  /** When it was last archived; only events after this instant un-archive it. */
  archivedAt: number | null;
}

/**
 * Folds one recorded error into its group (or starts the group). `rawErrorMessage` follows the
 * latest occurrence; an occurrence after the archive instant un-archives a group archived "until
 * next event", never one archived forever.
 */
export function recordError(
  existing: ErrorGroupState | undefined,
  occurrence: { checkId: string; message: string; at: number },
  newId: () => string,
): ErrorGroupState {
  const cleanedErrorMessage = cleanErrorMessage(occurrence.message);
  if (!existing) {
    return {
      id: newId(),
      checkId: occurrence.checkId,
      errorHash: errorHashOf(cleanedErrorMessage),
      rawErrorMessage: occurrence.message,
      cleanedErrorMessage,
      firstSeen: occurrence.at,
      lastSeen: occurrence.at,
      archivedUntilNextEvent: false,
      archivedForever: false,
      archivedAt: null,
    };
  }
  const isLatest = occurrence.at >= existing.lastSeen;
  const wakesUp = existing.archivedUntilNextEvent && !existing.archivedForever &&
    (existing.archivedAt === null || occurrence.at > existing.archivedAt);
  return {
    ...existing,
    rawErrorMessage: isLatest ? occurrence.message : existing.rawErrorMessage,
    firstSeen: Math.min(existing.firstSeen, occurrence.at),
    lastSeen: Math.max(existing.lastSeen, occurrence.at),
    archivedUntilNextEvent: wakesUp ? false : existing.archivedUntilNextEvent,
  };
}

export interface ArchivePatch {
  archivedUntilNextEvent?: boolean | undefined;
  archiveForEver?: boolean | undefined;
}

/**
 * Applies `PATCH /v1/error-groups/{id}`. `archiveForEver: true` archives for good (and reads back
 * as `archivedUntilNextEvent: true`, the only archive flag the wire shape has); `false` lifts both
 * archive kinds. `archivedUntilNextEvent` sets or clears the ordinary archive. Omitted fields keep
 * their state (merge semantics, as for every update).
 */
export function applyArchivePatch(group: ErrorGroupState, patch: ArchivePatch, now: number): ErrorGroupState {
  let next = { ...group };
  if (patch.archivedUntilNextEvent !== undefined) {
    next = {
      ...next,
      archivedUntilNextEvent: patch.archivedUntilNextEvent,
      archivedAt: patch.archivedUntilNextEvent ? now : next.archivedAt,
      archivedForever: patch.archivedUntilNextEvent ? next.archivedForever : false,
    };
  }
  if (patch.archiveForEver !== undefined) {
    next = {
      ...next,
      archivedForever: patch.archiveForEver,
      archivedUntilNextEvent: patch.archiveForEver,
      archivedAt: patch.archiveForEver ? now : next.archivedAt,
    };
  }
  return next;
}

function fieldOf(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}
