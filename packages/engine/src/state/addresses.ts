import { RESOURCE_KINDS } from '@vigil/constructs';
import { StateError } from './errors.js';
import type { Address, ResourceKind } from './types.js';

/** Logical ids are `[A-Za-z0-9_\-/#.]+`. */
export const LOGICAL_ID_PATTERN = /^[A-Za-z0-9_\-/#.]+$/;

export interface ParsedAddress {
  kind: ResourceKind;
  logicalId: string;
}

function isResourceKind(value: string): value is ResourceKind {
  return (RESOURCE_KINDS as readonly string[]).includes(value);
}

/** Splits `api-check.home` into kind and logical id, or explains why it is not an address. */
export function tryParseAddress(address: string): ParsedAddress | { problem: string } {
  const dot = address.indexOf('.');
  if (dot <= 0) {
    return { problem: `"${address}" is not an address: expected <kind>.<logicalId>, e.g. api-check.home` };
  }
  const kind = address.slice(0, dot);
  const logicalId = address.slice(dot + 1);
  if (!isResourceKind(kind)) {
    return { problem: `"${address}" has an unknown kind "${kind}"; kinds are ${RESOURCE_KINDS.join(', ')}` };
  }
  if (!LOGICAL_ID_PATTERN.test(logicalId)) {
    return { problem: `"${address}" has an invalid logical id "${logicalId}": use letters, digits and _ - / # .` };
  }
  return { kind, logicalId };
}

/** Like `tryParseAddress`, but throws a `StateError` (code `address-invalid`). */
export function parseAddress(address: string): ParsedAddress {
  const parsed = tryParseAddress(address);
  if ('problem' in parsed) throw new StateError('address-invalid', parsed.problem);
  return parsed;
}

export function formatAddress(kind: ResourceKind, logicalId: string): Address {
  return `${kind}.${logicalId}`;
}

/**
 * The known address closest to `wanted` by edit distance, when it is close enough to be a typo
 * (at most a third of the length, and never more than 4 edits).
 */
export function closestAddress(wanted: string, known: Iterable<string>): string | undefined {
  const budget = Math.min(4, Math.max(1, Math.floor(wanted.length / 3)));
  let best: { address: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(wanted, candidate);
    if (distance <= budget && (best === undefined || distance < best.distance)) best = { address: candidate, distance };
  }
  return best?.address;
}

/** Levenshtein distance with one rolling row. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
