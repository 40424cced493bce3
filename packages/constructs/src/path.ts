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
