/**
 * The plan as plain, serialisable data (STYLE: "the plan is plain data that apply executes without
 * diffing again"). `reason` is carried for display only; apply decides on `action` alone.
 */
import type { ResourceKind } from '@vigil/constructs';

export type Address = string;
export type RemoteId = string | number;

export type Action = 'create' | 'update' | 'delete' | 'replace' | 'noop';
export type Reason = 'new' | 'field-changed' | 'drift' | 'not-in-code' | 'kind-changed' | 'deleted-remotely' | 'unchanged';

/** One field that differs, `path` in the `request.assertions[0].target` form. */
export interface FieldChange {
  readonly path: string;
  readonly before: unknown;
  readonly after: unknown;
}

/** Value shown instead of a secret, in every rendering and every saved file. */
export const SENSITIVE = '(sensitive)';

/** A reference to a resource that does not exist yet: its id is only known after apply. */
export interface UnknownRef {
  readonly $unknown: Address;
}

export interface Change {
  readonly address: Address;
  readonly kind: ResourceKind;
  readonly logicalId: string;
  readonly action: Action;
  readonly reason: Reason;
  /** The remote id the action applies to (undefined for a create). */
  readonly remoteId: RemoteId | undefined;
  /** Addresses this resource refers to (creates/updates wait for them; deletes go before them). */
  readonly dependsOn: readonly Address[];
  /** Code changes, field by field (for a create: every field, before undefined). */
  readonly diff: readonly FieldChange[];
  /** Fields changed outside vigil since the last apply; apply reverts them. */
  readonly drift: readonly FieldChange[];
  /** sha256 of the payload apply will send, secrets included, so a saved plan detects any change. */
  readonly payloadHash: string | undefined;
  /** For replace: the address being removed (its kind differs). */
  readonly replaces?: { readonly address: Address; readonly kind: ResourceKind; readonly remoteId: RemoteId };
}

export interface Diagnostic {
  readonly severity: 'error' | 'warning';
  readonly message: string;
  readonly hint?: string;
  readonly address?: string;
  readonly path?: string;
  readonly source?: { readonly file: string; readonly line: number; readonly column: number };
}

export interface PlanSummary {
  readonly create: number;
  readonly update: number;
  readonly delete: number;
  readonly replace: number;
  readonly noop: number;
}

/** The JSON plan (`formatVersion: 1`). */
export interface Plan {
  readonly formatVersion: 1;
  readonly project: string;
  readonly target: { readonly baseUrl: string; readonly accountId: string };
  readonly state: { readonly lineage: string; readonly serial: number };
  /** Present on a destroy plan (`vigil plan --destroy`): its saved file is applied as a destroy. */
  readonly destroy?: true;
  /** `--target` addresses the plan was limited to, so `vigil apply <file>` re-derives the same plan. */
  readonly targets?: readonly Address[];
  readonly summary: PlanSummary;
  readonly changes: readonly Change[];
  /** State entries whose remote resource is gone and which are no longer in code: apply forgets them. */
  readonly forget: readonly Address[];
  readonly diagnostics: readonly Diagnostic[];
}

export function hasChanges(plan: Plan): boolean {
  return plan.changes.some((change) => change.action !== 'noop') || plan.forget.length > 0;
}

export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what} ${JSON.stringify(value)}; this is a bug in vigil`);
}
