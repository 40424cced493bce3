import type { Construct } from './construct.js';
import type { CheckDefaults } from './config.js';
import { formatPath, type PathSegment } from './path.js';
import type { Project } from './project.js';
import { isConstruct, isExternalRef, unwrapConstructRef } from './ref.js';
import type { Diagnostic, ResourceKind } from './types.js';

/** What a reference field accepts, for checking and for messages. */
export interface RefTarget {
  kind: ResourceKind;
  /** How users spell the accepted constructs, e.g. `CheckGroupV2`, `an alert channel`. */
  name: string;
  /** Type of the remote id in the payload; decides the placeholder used while parsing. */
  idType: 'number' | 'string';
}

/** A reference found while building, applied to the parsed payload as `{ $ref }`. */
export interface PendingRef {
  segments: PathSegment[];
  address: string;
}

/** Placeholder remote ids: the schema checks the field's type while the real id is not known yet. */
const PLACEHOLDER_ID = { number: 1, string: 'ref-placeholder' } as const;

function describeValue(value: unknown): string {
  if (isConstruct(value)) return value.describe();
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'number') return `the number ${value}`;
  return `a value of type ${typeof value}`;
}

/**
 * Collects what building one construct's payload finds: diagnostics (bound to the construct's
 * address and source), dependency references, and secret paths.
 */
export class BuildContext {
  readonly diagnostics: Diagnostic[] = [];
  readonly refs: PendingRef[] = [];
  readonly externalRefs: Array<{ segments: PathSegment[]; kind: ResourceKind; remoteId: string | number }> = [];
  readonly secrets: PathSegment[][] = [];
  /**
   * Payload paths whose problem is already reported (a bad reference); schema issues there would
   * only repeat it ("is required").
   */
  readonly reported = new Set<string>();

  constructor(
    readonly construct: Construct,
    readonly project: Project,
  ) {}

  /** `checks` defaults of the project's config (the first level of the defaults cascade). */
  get checkDefaults(): CheckDefaults {
    return this.project.config?.checks ?? {};
  }

  error(path: string | undefined, message: string, hint?: string): void {
    this.#push('error', path, message, hint);
  }

  warning(path: string | undefined, message: string, hint?: string): void {
    this.#push('warning', path, message, hint);
  }

  /** Marks the payload field at `segments` as secret (hashed in plans and state). */
  secret(segments: PathSegment[]): void {
    this.secrets.push(segments);
  }

  /**
   * Resolves a prop that refers to another resource. Returns what goes into the payload while it
   * is parsed: the literal id of a `fromId` reference, or a placeholder that is replaced by
   * `{ $ref: address }` afterwards. Returns `undefined` (and records why) for anything else.
   */
  reference(value: unknown, target: RefTarget, propPath: string, payloadPath: PathSegment[]): unknown {
    const resolved = this.#resolveReference(unwrapConstructRef(value), target, propPath, payloadPath);
    if (resolved === undefined) this.reported.add(formatPath(payloadPath));
    return resolved;
  }

  #resolveReference(value: unknown, target: RefTarget, propPath: string, payloadPath: PathSegment[]): unknown {
    if (isExternalRef(value)) {
      if (value.kind !== target.kind) {
        this.error(propPath, `"${propPath}" must refer to ${target.name}, got a fromId reference of kind ${value.kind}`);
        return undefined;
      }
      if (value.problem !== undefined) {
        this.error(propPath, `"${propPath}": ${value.problem}`, 'fromId takes the id the monitoring service gave the resource (see its URL in the web app or `vigil state show`).');
        return undefined;
      }
      this.externalRefs.push({ segments: payloadPath, kind: value.kind, remoteId: value.remoteId });
      return value.remoteId;
    }
    if (!isConstruct(value)) {
      this.error(
        propPath,
        `"${propPath}" must be ${target.name} construct or a fromId reference, got ${describeValue(value)}`,
        'Pass the construct object itself (for example `group: apiGroup`), or X.fromId(id) for a resource Vigil does not manage.',
      );
      return undefined;
    }
    if (value.kind !== target.kind) {
      this.error(propPath, `"${propPath}" must refer to ${target.name}, got ${value.describe()}`);
      return undefined;
    }
    if (value.project !== this.project) {
      this.error(
        propPath,
        `"${propPath}" refers to ${value.describe()}, which was created by another project load`,
        'Constructs cannot be shared between loads: create it in this project\'s files instead of keeping it in module-level state across loads.',
      );
      return undefined;
    }
    if (!this.project.has(value)) {
      this.error(
        propPath,
        `"${propPath}" refers to ${value.describe()}, which is not registered in this project`,
        'Create the referenced construct with `new` in a file vigil loads.',
      );
      return undefined;
    }
    this.refs.push({ segments: payloadPath, address: value.address });
    return PLACEHOLDER_ID[target.idType];
  }

  #push(severity: Diagnostic['severity'], path: string | undefined, message: string, hint: string | undefined): void {
    const diagnostic: Diagnostic = { severity, message, address: this.construct.address, source: this.construct.source };
    if (hint !== undefined) diagnostic.hint = hint;
    if (path !== undefined && path !== '') diagnostic.path = path;
    this.diagnostics.push(diagnostic);
  }
}

export { formatPath };
