import { CONSTRUCT_BRAND, EXTERNAL_REF_BRAND } from './brand.js';
import type { Construct } from './construct.js';
import type { ResourceKind } from './types.js';

/** How a reference to another construct appears in a payload: where the remote id goes. */
export interface Ref {
  $ref: string;
}

/** Whether `value` is a `{ "$ref": "<address>" }` placeholder of a synthesised payload. */
export function isRef(value: unknown): value is Ref {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { $ref?: unknown }).$ref === 'string' &&
    Object.keys(value).length === 1
  );
}

/**
 * Checks `Symbol.for('vigil.construct')` instead of `instanceof`: bundled user code may carry its
 * own copy of this package, whose classes are different objects from ours.
 */
export function isConstruct(value: unknown): value is Construct {
  return typeof value === 'object' && value !== null && (value as { [CONSTRUCT_BRAND]?: unknown })[CONSTRUCT_BRAND] === true;
}

/**
 * A resource Vigil does not manage, referred to by its remote id (`EmailAlertChannel.fromId(42)`).
 * Its id is put into payloads as is; it adds no dependency edge.
 */
export interface ExternalRef<K extends ResourceKind = ResourceKind, Id extends string | number = string | number> {
  readonly [EXTERNAL_REF_BRAND]: true;
  readonly kind: K;
  readonly remoteId: Id;
}

export function externalRef<K extends ResourceKind, Id extends string | number>(kind: K, remoteId: Id): ExternalRef<K, Id> {
  return Object.freeze({ [EXTERNAL_REF_BRAND]: true as const, kind, remoteId });
}

export function isExternalRef(value: unknown): value is ExternalRef {
  return typeof value === 'object' && value !== null && (value as { [EXTERNAL_REF_BRAND]?: unknown })[EXTERNAL_REF_BRAND] === true;
}
