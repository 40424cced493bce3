/**
 * Error groups: the errors of a check's results, deduplicated by a hash of the message with its
 * variable parts (numbers, hex, UUIDs, timestamps, quoted values) replaced by placeholders, so
 * "timeout after 5003ms" and "timeout after 4871ms" are one group. How an occurrence folds into its
 * group, and how an archive PATCH changes one, is decided here once for every engine of the
 * ErrorGroups port; which messages a result records is the read side's (readside/error-groups.ts).
 */
import { createHash } from 'node:crypto';

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

/** An error group as it is stored and served (times in epoch milliseconds). */
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
