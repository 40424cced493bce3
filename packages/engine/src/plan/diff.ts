/**
 * Field-level differences between two normalised payloads. deep-diff's records never leave this
 * module (STYLE habit 3): everything downstream sees `{path, before, after}`.
 *
 * Lists whose elements have an identity are compared element by element, so inserting one header
 * reads as one `+`, not as every later header changing (docs/cli.md, "Reading a plan"):
 * - `assertions` by their whole content (an assertion has no name);
 * - `headers`, `queryParameters`, `environmentVariables` by `key`, `alertChannelSubscriptions` by
 *   `alertChannelId`, `dependencies` by `path`;
 * - the kind's set fields (`tags`, `locations`, `privateLocations`, sorted by normalisation) by value.
 * Elements are lined up in order (the longest common run of identities, as a line diff does). An
 * inserted element, and a change inside an element both sides have, is indexed as in `after` (the
 * code); a removed element as in `before` (the service), where it is now. Other lists of records are
 * compared index by index; other lists of primitives are shown whole.
 */
import deepDiff from 'deep-diff';
import { parsePath } from '../kinds/paths.js';
import { stableStringify } from './stable-json.js';
import type { FieldChange } from './types.js';

export interface DiffOptions {
  /** Top-level fields whose order carries no meaning (the adapter's `setFields`). */
  readonly sets?: readonly string[];
}

interface Walk {
  readonly sets: ReadonlySet<string>;
  readonly out: FieldChange[];
}

/** How a list's elements are told apart; `pairs`: a removed and an inserted element in the same place read as one changed element. */
interface Identity {
  readonly of: (item: unknown) => string | undefined;
  readonly pairs: boolean;
}

const KEYED: Readonly<Record<string, string>> = {
  headers: 'key',
  queryParameters: 'key',
  environmentVariables: 'key',
  alertChannelSubscriptions: 'alertChannelId',
  dependencies: 'path',
};

function isPrimitiveArray(value: unknown): value is unknown[] {
  return Array.isArray(value) && value.every((item) => item === null || typeof item !== 'object');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !('$unknown' in value);
}

function identityOf(name: string | undefined, topLevel: boolean, sets: ReadonlySet<string>): Identity | undefined {
  if (name === undefined) return undefined;
  if (topLevel && sets.has(name)) return { of: (item) => stableStringify(item), pairs: false };
  if (name === 'assertions') return { of: (item) => (isRecord(item) ? stableStringify(item) : undefined), pairs: true };
  const field = KEYED[name];
  if (field === undefined) return undefined;
  return { of: (item) => (isRecord(item) && item[field] !== undefined ? stableStringify(item[field]) : undefined), pairs: false };
}

/** Compares `before` (remote) with `after` (desired). */
export function diffPayloads(before: unknown, after: unknown, options: DiffOptions = {}): FieldChange[] {
  const walk: Walk = { sets: new Set(options.sets ?? []), out: [] };
  diffValue(before, after, '', undefined, walk);
  // Stable: a removal and an insertion at the same index keep that order.
  return walk.out.sort((a, b) => comparePaths(a.path, b.path));
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function diffValue(before: unknown, after: unknown, path: string, name: string | undefined, walk: Walk): void {
  if (before === after) return;
  if (Array.isArray(before) && Array.isArray(after)) {
    diffList(before, after, path, name, walk);
    return;
  }
  if (isRecord(before) && isRecord(after)) {
    for (const key of Object.keys(before)) diffValue(before[key], after[key], join(path, key), key, walk);
    for (const key of Object.keys(after)) if (!(key in before)) diffValue(undefined, after[key], join(path, key), key, walk);
    return;
  }
  if (!deepEqual(before, after)) walk.out.push({ path, before, after });
}

function diffList(before: unknown[], after: unknown[], path: string, name: string | undefined, walk: Walk): void {
  const identity = identityOf(name, !path.includes('.') && !path.includes('['), walk.sets);
  const beforeIds = identity ? before.map(identity.of) : [];
  const afterIds = identity ? after.map(identity.of) : [];
  if (!identity || beforeIds.includes(undefined) || afterIds.includes(undefined)) {
    if (isPrimitiveArray(before) && isPrimitiveArray(after)) {
      if (!deepEqual(before, after)) walk.out.push({ path, before, after });
      return;
    }
    for (let index = 0; index < Math.max(before.length, after.length); index += 1) {
      diffValue(before[index], after[index], `${path}[${index}]`, undefined, walk);
    }
    return;
  }
  let nextBefore = 0;
  let nextAfter = 0;
  const gap = (beforeEnd: number, afterEnd: number): void => {
    const paired = identity.pairs ? Math.min(beforeEnd - nextBefore, afterEnd - nextAfter) : 0;
    for (let index = nextBefore + paired; index < beforeEnd; index += 1) walk.out.push({ path: `${path}[${index}]`, before: before[index], after: undefined });
    for (let offset = 0; offset < paired; offset += 1) {
      diffValue(before[nextBefore + offset], after[nextAfter + offset], `${path}[${nextAfter + offset}]`, undefined, walk);
    }
    for (let index = nextAfter + paired; index < afterEnd; index += 1) walk.out.push({ path: `${path}[${index}]`, before: undefined, after: after[index] });
  };
  for (const [beforeIndex, afterIndex] of commonRun(beforeIds as string[], afterIds as string[])) {
    gap(beforeIndex, afterIndex);
    diffValue(before[beforeIndex], after[afterIndex], `${path}[${afterIndex}]`, undefined, walk);
    nextBefore = beforeIndex + 1;
    nextAfter = afterIndex + 1;
  }
  gap(before.length, after.length);
}

/**
 * The path in `to` of the element at `path` in `from`: list elements with an identity are found by
 * it (the second `TOKEN` is the second `TOKEN`), others at the same index. `undefined` when `to`
 * does not have it.
 */
export function samePlace(from: unknown, path: string, to: unknown): string | undefined {
  let out = '';
  let left = from;
  let right = to;
  let name: string | undefined;
  for (const segment of parsePath(path)) {
    if (typeof segment === 'string') {
      if (!isRecord(left) || !isRecord(right) || !(segment in right)) return undefined;
      out = join(out, segment);
      left = left[segment];
      right = right[segment];
      name = segment;
      continue;
    }
    if (!Array.isArray(left) || !Array.isArray(right)) return undefined;
    const identity = identityOf(name, !out.includes('.') && !out.includes('['), new Set());
    let index = segment;
    if (identity && !identity.pairs) {
      const id = identity.of(left[segment]);
      if (id === undefined) return undefined;
      const occurrence = left.slice(0, segment).filter((item) => identity.of(item) === id).length;
      const matches = (right as unknown[]).flatMap((item, at) => (identity.of(item) === id ? [at] : []));
      const found = matches[occurrence];
      if (found === undefined) return undefined;
      index = found;
    } else if (segment >= right.length) return undefined;
    out += `[${index}]`;
    left = left[segment];
    right = right[index];
    name = undefined;
  }
  return out;
}

/**
 * The longest common subsequence of two identity lists, as index pairs. Equal heads and tails are
 * matched first, so the usual case (nothing or one element changed) costs no table.
 */
function commonRun(left: readonly string[], right: readonly string[]): Array<[number, number]> {
  let head = 0;
  while (head < left.length && head < right.length && left[head] === right[head]) head += 1;
  let tail = 0;
  while (tail < left.length - head && tail < right.length - head && left[left.length - 1 - tail] === right[right.length - 1 - tail]) tail += 1;
  const pairs: Array<[number, number]> = [];
  for (let index = 0; index < head; index += 1) pairs.push([index, index]);
  const a = left.slice(head, left.length - tail);
  const b = right.slice(head, right.length - tail);
  // lengths[i][j]: the longest common run of a[i..] and b[j..].
  const lengths = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
    }
  }
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) {
      pairs.push([head + i, head + j]);
      i += 1;
      j += 1;
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) i += 1;
    else j += 1;
  }
  for (let index = 0; index < tail; index += 1) pairs.push([left.length - tail + index, right.length - tail + index]);
  return pairs;
}

// One collator for every comparison: String#localeCompare builds a new one per call, which made
// sorting the fields of 1,000 new resources take over a second.
const pathCollator = new Intl.Collator('en', { numeric: true });

/** Paths sort by segments, numerically for indexes, so `[10]` follows `[9]`. */
export function comparePaths(a: string, b: string): number {
  return pathCollator.compare(a, b);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return (deepDiff.diff(a, b) ?? []).length === 0;
}

/**
 * A new resource as leaf fields (`request.url`, `request.assertions[0].target`), the way a reviewer
 * reads it; lists of primitives stay whole, and cleared fields (null, empty lists) are left out.
 */
export function leafFields(value: unknown): FieldChange[] {
  const out: FieldChange[] = [];
  // The path is built as text on the way down (as formatPath would spell it): copying a segment
  // list per field was a visible share of planning 1,000 creates.
  const visit = (current: unknown, path: string): void => {
    if (current === null || current === undefined) return;
    if (Array.isArray(current)) {
      if (current.length === 0) return;
      if (isPrimitiveArray(current)) out.push({ path, before: undefined, after: current });
      else current.forEach((item, index) => visit(item, `${path}[${index}]`));
      return;
    }
    if (typeof current === 'object' && !('$unknown' in current)) {
      for (const [key, inner] of Object.entries(current)) visit(inner, path === '' ? key : `${path}.${key}`);
      return;
    }
    out.push({ path, before: undefined, after: current });
  };
  visit(value, '');
  return out.sort((a, b) => comparePaths(a.path, b.path));
}
