/**
 * Field-level differences between two normalised payloads. deep-diff's records never leave this
 * module (STYLE habit 3): everything downstream sees `{path, before, after}`.
 */
import deepDiff from 'deep-diff';
import { formatPath, getAtPath, type PathSegment } from '../kinds/paths.js';
import type { FieldChange } from './types.js';

type DiffRecord = deepDiff.Diff<unknown, unknown>;

function isPrimitiveArray(value: unknown): value is unknown[] {
  return Array.isArray(value) && value.every((item) => item === null || typeof item !== 'object');
}

/**
 * Compares `before` (remote) with `after` (desired). Changes inside an array of primitives (tags,
 * locations) are reported as the whole array, which reads better than "[2]: eu-west-1 → us-east-1".
 */
export function diffPayloads(before: unknown, after: unknown): FieldChange[] {
  const records: DiffRecord[] = deepDiff.diff(before, after) ?? [];
  const changes = new Map<string, FieldChange>();
  for (const record of records) {
    const segments: PathSegment[] = [...((record.path ?? []) as PathSegment[])];
    let lhs: unknown;
    let rhs: unknown;
    if (record.kind === 'A') {
      segments.push(record.index);
      lhs = record.item.kind === 'N' ? undefined : (record.item as { lhs?: unknown }).lhs;
      rhs = record.item.kind === 'D' ? undefined : (record.item as { rhs?: unknown }).rhs;
    } else {
      lhs = record.kind === 'N' ? undefined : (record as { lhs?: unknown }).lhs;
      rhs = record.kind === 'D' ? undefined : (record as { rhs?: unknown }).rhs;
    }
    const collapseAt = collapsePoint(before, after, segments);
    if (collapseAt !== undefined) {
      const path = formatPath(collapseAt);
      changes.set(path, { path, before: getAtPath(before, collapseAt), after: getAtPath(after, collapseAt) });
      continue;
    }
    const path = formatPath(segments);
    changes.set(path, { path, before: lhs, after: rhs });
  }
  return [...changes.values()].sort((a, b) => comparePaths(a.path, b.path));
}

function collapsePoint(before: unknown, after: unknown, segments: readonly PathSegment[]): PathSegment[] | undefined {
  for (let length = segments.length - 1; length >= 0; length -= 1) {
    if (typeof segments[length] !== 'number') continue;
    const parent = segments.slice(0, length);
    const left = getAtPath(before, parent);
    const right = getAtPath(after, parent);
    if ((left === undefined || isPrimitiveArray(left)) && (right === undefined || isPrimitiveArray(right))) return parent;
  }
  return undefined;
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
