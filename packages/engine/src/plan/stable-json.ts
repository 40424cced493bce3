import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth, so equal values always hash alike. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    return Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
