import { CONSTRUCT_BRAND, CONSTRUCT_REF_BRAND, EXTERNAL_REF_BRAND } from './brand.js';
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
  /** Why `remoteId` cannot be an id of this kind; reported where the reference is used. */
  readonly problem?: string;
}

export function externalRef<K extends ResourceKind, Id extends string | number>(kind: K, remoteId: Id, problem?: string): ExternalRef<K, Id> {
  return Object.freeze(problem === undefined ? { [EXTERNAL_REF_BRAND]: true as const, kind, remoteId } : { [EXTERNAL_REF_BRAND]: true as const, kind, remoteId, problem });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `X.fromId(id)` of a kind whose ids are UUIDs: why `id` is not one, if it is not. */
export function uuidIdProblem(call: string, id: unknown): string | undefined {
  return typeof id === 'string' && UUID.test(id) ? undefined : `${call}(${JSON.stringify(id) ?? String(id)}) needs the resource's UUID`;
}

/** `X.fromId(id)` of a kind whose ids are numbers: why `id` is not one, if it is not. */
export function numericIdProblem(call: string, id: unknown): string | undefined {
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? undefined : `${call}(${JSON.stringify(id) ?? String(id)}) needs the resource's numeric id`;
}

export function isExternalRef(value: unknown): value is ExternalRef {
  return typeof value === 'object' && value !== null && (value as { [EXTERNAL_REF_BRAND]?: unknown })[EXTERNAL_REF_BRAND] === true;
}

/**
 * What `construct.ref()` returns, as in Checkly: a reference accepted wherever the construct itself
 * is (`groupId: group.ref()` means `group: group`).
 */
export interface ConstructRef<C extends Construct = Construct> {
  readonly [CONSTRUCT_REF_BRAND]: true;
  readonly construct: C;
}

export function constructRef<C extends Construct>(construct: C): ConstructRef<C> {
  return Object.freeze({ [CONSTRUCT_REF_BRAND]: true as const, construct });
}

/** The construct behind a `ref()`; any other value as it is. */
export function unwrapConstructRef(value: unknown): unknown {
  const isRef = typeof value === 'object' && value !== null && (value as { [CONSTRUCT_REF_BRAND]?: unknown })[CONSTRUCT_REF_BRAND] === true;
  return isRef ? (value as ConstructRef).construct : value;
}
