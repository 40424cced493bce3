/**
 * Assertions of an API check: look up the actual value for a source (and property, and regex),
 * then compare it with the target. The rules are written down, with worked cases, in
 * docs/testing.md ("Assertions"); `evaluate.test.ts` runs every case of that table, so the doc and
 * this file cannot drift apart.
 *
 * Patterns and JSONPaths are users' code run on remote bodies, so executors do not call this module
 * directly for them: `pool.ts` runs them here on a worker thread with a deadline, and only the cheap
 * assertions without one run on the caller's thread.
 */
import { jsonPathProblem } from '@vigil/schema';
import { JSONPath } from 'jsonpath-plus';
import type { AssertionOutcome } from '../types.js';

export interface AssertionInput {
  source: string;
  /** The source as the check names it, for messages (a DNS `TEXT_ANSWER` is evaluated as `TEXT_BODY`). */
  label?: string | undefined;
  comparison: string;
  property?: string | undefined;
  target?: string | undefined;
  regex?: string | null | undefined;
}

/** What assertions look at: the response as received (the body uncut, up to the read cap). */
export interface AssertedResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Readonly<Record<string, string>>;
  body: string;
  responseTime: number;
  /** Set when the read stopped at this many bytes: a JSON body cut there cannot parse, and the message says why. */
  readLimitBytes?: number | undefined;
}

/**
 * Matches one JSONPath may collect. `$..*` on a multi-megabyte document matches every node, and a
 * comparison over millions of values is neither meaningful nor cheap.
 */
export const MAX_JSONPATH_MATCHES = 10_000;
/**
 * Bytes of an assertion's actual value kept in its outcome. The comparison sees the whole value; a
 * stored result (and the failure message quoting it) keeps this much, so a 5 MiB body asserted on
 * is not stored once more inside every result.
 */
export const MAX_ACTUAL_BYTES = 4 * 1024;

/** Marks "no value here" (a missing header, a JSONPath without a match, a regex without a match). */
const ABSENT: unique symbol = Symbol('absent');
type Actual = unknown;

class AssertionError extends Error {}

/** One assertion; never throws for anything in it or in the response (a broken assertion fails with its `error`). */
export function evaluateOne(assertion: AssertionInput, response: AssertedResponse, parsedBody = lazyJson(response)): AssertionOutcome {
  const property = assertion.property ?? '';
  const target = assertion.target ?? '';
  const regex = assertion.regex ?? null;
  // Objects written out in full, not spread from a shared base: V8 builds a spread-plus-extra-keys
  // literal on a slow path that cost more than the comparison itself (measured ~25 µs vs < 1 µs).
  const { source, comparison } = assertion;
  try {
    let actual = actualValue(source, property, response, parsedBody);
    if (regex !== null && regex !== '') actual = capture(actual, regex);
    const passed = compare(comparison, actual, target, source === 'HEADERS');
    return { source, comparison, property, target, regex, actual: recordable(actual), passed, error: null };
  } catch (error) {
    if (!(error instanceof AssertionError)) throw error;
    return { source, comparison, property, target, regex, actual: undefined, passed: false, error: error.message };
  }
}

function actualValue(source: string, property: string, response: AssertedResponse, parsedBody: () => unknown): Actual {
  switch (source) {
    case 'STATUS_CODE':
      return response.status;
    case 'RESPONSE_TIME':
      return response.responseTime;
    case 'TEXT_BODY':
      return response.body;
    case 'HEADERS':
      if (property === '') return { ...response.headers };
      return Object.hasOwn(response.headers, property.toLowerCase()) ? response.headers[property.toLowerCase()] : ABSENT;
    case 'JSON_BODY':
      return jsonPathValue(parsedBody(), property);
    default:
      throw new AssertionError(`unknown assertion source ${source}`);
  }
}

export function lazyJson(response: AssertedResponse): () => unknown {
  let parsed: { value: unknown } | { error: string } | undefined;
  return () => {
    if (parsed === undefined) {
      try {
        parsed = { value: JSON.parse(response.body) as unknown };
      } catch (error) {
        const cut = response.readLimitBytes === undefined ? '' : `; only its first ${response.readLimitBytes} bytes were read (the read limit)`;
        parsed = { error: `the response body is not JSON (${(error as Error).message})${cut}` };
      }
    }
    if ('error' in parsed) throw new AssertionError(parsed.error);
    return parsed.value;
  };
}

/** One match is that value; several are an array of them; none is absent. */
function jsonPathValue(document: unknown, property: string): Actual {
  const path = property.trim() === '' ? '$' : property;
  // jsonpath-plus reads almost anything as some path; the stricter check `vigil validate` uses comes first.
  const problem = jsonPathProblem(property);
  if (problem !== null) throw new AssertionError(`the JSONPath ${JSON.stringify(property)} does not parse: ${problem}`);
  const matches: unknown[] = [];
  const tooMany = new AssertionError(
    `the JSONPath ${JSON.stringify(property)} matched more than ${MAX_JSONPATH_MATCHES} values; an assertion compares at most ${MAX_JSONPATH_MATCHES} (narrow the path)`,
  );
  try {
    // Collected through the callback, which jsonpath-plus calls during the walk: throwing there stops
    // the walk at the limit instead of after it has visited every node.
    JSONPath({
      path,
      json: document as object,
      wrap: true,
      eval: 'safe',
      callback: (value: unknown) => {
        if (matches.length >= MAX_JSONPATH_MATCHES) throw tooMany;
        matches.push(value);
      },
    });
  } catch (error) {
    if (error === tooMany) throw error;
    throw new AssertionError(`the JSONPath ${JSON.stringify(property)} does not parse: ${(error as Error).message}`);
  }
  if (matches.length === 0) return ABSENT;
  return matches.length === 1 ? matches[0] : matches;
}

/** The regex runs on the value as text; the first capture group wins, else the whole match. */
function capture(actual: Actual, source: string): Actual {
  let pattern: RegExp;
  try {
    pattern = new RegExp(source);
  } catch (error) {
    throw new AssertionError(`the regex ${JSON.stringify(source)} does not parse: ${(error as Error).message}`);
  }
  if (actual === ABSENT) return ABSENT;
  const match = pattern.exec(asText(actual));
  if (match === null) return ABSENT;
  return match.length > 1 ? (match[1] ?? ABSENT) : match[0];
}

/** `namesIgnoreCase`: HTTP header names are case-insensitive, so HAS_KEY on the header map is too. */
function compare(comparison: string, actual: Actual, target: string, namesIgnoreCase: boolean): boolean {
  switch (comparison) {
    case 'EQUALS':
      return equals(actual, target);
    case 'NOT_EQUALS':
      return !equals(actual, target);
    case 'HAS_KEY':
      return hasKey(actual, target, namesIgnoreCase);
    case 'NOT_HAS_KEY':
      return !hasKey(actual, target, namesIgnoreCase);
    case 'HAS_VALUE':
      return hasValue(actual, target);
    case 'NOT_HAS_VALUE':
      return !hasValue(actual, target);
    case 'IS_EMPTY':
      return isEmpty(actual);
    case 'NOT_EMPTY':
      return !isEmpty(actual);
    case 'GREATER_THAN':
      return ordered(actual, target, (a, b) => a > b);
    case 'LESS_THAN':
      return ordered(actual, target, (a, b) => a < b);
    case 'CONTAINS':
      return contains(actual, target);
    case 'NOT_CONTAINS':
      return !contains(actual, target);
    case 'IS_NULL':
      return actual === null || actual === ABSENT;
    case 'NOT_NULL':
      return !(actual === null || actual === ABSENT);
    default:
      throw new AssertionError(`unknown comparison ${comparison}`);
  }
}

/**
 * Numbers (and numeric text) compare as numbers, booleans and null by their JSON spelling, objects
 * and arrays by their JSON (the target parsed first, so spacing does not matter), text exactly.
 */
function equals(actual: Actual, target: string): boolean {
  if (actual === ABSENT) return false;
  const number = toNumber(actual);
  const targetNumber = toNumber(target);
  if (number !== undefined && targetNumber !== undefined) return number === targetNumber;
  if (typeof actual === 'string') return actual === target;
  if (typeof actual === 'object' && actual !== null) {
    const parsed = parseJson(target);
    return parsed !== ABSENT && JSON.stringify(actual) === JSON.stringify(parsed);
  }
  return JSON.stringify(actual) === target.trim();
}

function hasKey(actual: Actual, key: string, ignoreCase: boolean): boolean {
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
  return ignoreCase ? Object.hasOwn(actual, key.toLowerCase()) : Object.hasOwn(actual, key);
}

function hasValue(actual: Actual, target: string): boolean {
  if (Array.isArray(actual)) return actual.some((item) => equals(item, target));
  if (actual !== null && typeof actual === 'object') return Object.values(actual).some((item) => equals(item, target));
  return equals(actual, target);
}

/** Empty: absent, null, "", [] and {}. A number or a boolean is never empty. */
function isEmpty(actual: Actual): boolean {
  if (actual === ABSENT || actual === null || actual === '') return true;
  if (Array.isArray(actual)) return actual.length === 0;
  if (typeof actual === 'object') return Object.keys(actual).length === 0;
  return false;
}

function ordered(actual: Actual, target: string, holds: (a: number, b: number) => boolean): boolean {
  const number = toNumber(actual);
  const targetNumber = toNumber(target);
  return number !== undefined && targetNumber !== undefined && holds(number, targetNumber);
}

function contains(actual: Actual, target: string): boolean {
  if (actual === ABSENT) return false;
  return asText(actual).includes(target);
}

/** A finite number from a number or from text that is wholly a number ("42", " 4.2e1 "); else undefined. */
function toNumber(value: Actual): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}

function asText(value: Actual): string {
  if (typeof value === 'string') return value;
  if (value === ABSENT) return '';
  return JSON.stringify(value) ?? String(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return ABSENT;
  }
}

/**
 * An absent value is recorded as `undefined`, so a stored result leaves `actual` out instead of
 * showing a `null` the target never sent. A value over MAX_ACTUAL_BYTES (as text, objects as JSON)
 * is kept as its first MAX_ACTUAL_BYTES followed by a marker saying how large it was.
 */
function recordable(actual: Actual): unknown {
  if (actual === ABSENT) return undefined;
  if (typeof actual === 'number' || typeof actual === 'boolean' || actual === null) return actual;
  const text = asText(actual);
  // A UTF-16 unit is at most 3 bytes of UTF-8: short text needs no byte count.
  if (text.length * 3 <= MAX_ACTUAL_BYTES) return actual;
  const bytes = Buffer.byteLength(text);
  if (bytes <= MAX_ACTUAL_BYTES) return actual;
  return `${cutUtf8(text, MAX_ACTUAL_BYTES)}… [truncated: ${bytes} bytes in all]`;
}

/** The first `bytes` bytes of `text`, never splitting a character. */
export function cutUtf8(text: string, bytes: number): string {
  // Every unit is at least a byte, so the first `bytes` units hold the cut; no copy of a long text.
  const buffer = Buffer.from(text.length > bytes ? text.slice(0, bytes) : text);
  let end = Math.min(bytes, buffer.length);
  // Back up over continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (end > 0 && end < buffer.length && (buffer[end]! & 0xc0) === 0x80) end -= 1;
  return buffer.subarray(0, end).toString('utf8');
}
