/**
 * Field paths in the one form users see everywhere (diagnostics, plans, state):
 * `request.assertions[0].target`. Segments are property names or array indexes.
 */
export type PathSegment = string | number;

export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

export function parsePath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (match[2] !== undefined) segments.push(Number(match[2]));
    else if (match[1] !== undefined) segments.push(match[1]);
  }
  return segments;
}

export function getAtPath(root: unknown, path: string | readonly PathSegment[]): unknown {
  const segments = typeof path === 'string' ? parsePath(path) : path;
  let current: unknown = root;
  for (const segment of segments) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

/** Returns a copy of `root` with the value at `path` replaced; missing containers are not created. */
export function replaceAtPath(root: unknown, path: string | readonly PathSegment[], replace: (value: unknown) => unknown): unknown {
  const segments = typeof path === 'string' ? parsePath(path) : path;
  if (segments.length === 0) return replace(root);
  if (root === null || typeof root !== 'object') return root;
  const [head, ...rest] = segments as [PathSegment, ...PathSegment[]];
  const container = root as Record<string | number, unknown>;
  if (!(head in container)) return root;
  const copy: Record<string | number, unknown> | unknown[] = Array.isArray(root) ? [...root] : { ...container };
  (copy as Record<string | number, unknown>)[head] = replaceAtPath(container[head], rest, replace);
  return copy;
}
