/** A field path as segments: `['request', 'assertions', 0, 'target']`. */
export type PathSegment = string | number;

/** `request.assertions[0].target`: the form diagnostics and `ResourceSpec` paths use. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

/** Sets `value` at `segments` inside `target`, creating plain objects/arrays on the way. */
export function setAtPath(target: Record<string, unknown>, segments: readonly PathSegment[], value: unknown): void {
  let node: Record<string | number, unknown> = target;
  segments.forEach((segment, index) => {
    if (index === segments.length - 1) {
      node[segment] = value;
      return;
    }
    const next = node[segment];
    if (typeof next !== 'object' || next === null) {
      node[segment] = typeof segments[index + 1] === 'number' ? [] : {};
    }
    node = node[segment] as Record<string | number, unknown>;
  });
}

/** Reads the value at `segments`, or `undefined` when any step is missing. */
export function getAtPath(target: unknown, segments: readonly PathSegment[]): unknown {
  let node: unknown = target;
  for (const segment of segments) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}

/**
 * A copy of plain data without `undefined` properties: an unset prop must be absent from the
 * payload (zod keeps `key: undefined`, and a diff would see a field that is not there). Copying
 * also keeps parsing from ever touching the user's own objects.
 */
export function withoutUndefined<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => withoutUndefined(item)) as T;
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const copy: Record<string, unknown> = {};
  const source = value as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const item = source[key];
    if (item !== undefined) copy[key] = withoutUndefined(item);
  }
  return copy as T;
}
