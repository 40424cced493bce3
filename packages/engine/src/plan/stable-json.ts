import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every depth, so equal values always hash alike. Written by hand
 * rather than with a JSON.stringify replacer, which re-sorts through a callback per value and was a
 * visible share of planning 10,000 resources.
 */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : stableStringify(item))).join(',')}]`;
  const parts: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const inner = (value as Record<string, unknown>)[key];
    if (inner !== undefined && typeof inner !== 'function') parts.push(`${JSON.stringify(key)}:${stableStringify(inner)}`);
  }
  return `{${parts.join(',')}}`;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
