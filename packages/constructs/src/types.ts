/**
 * Plain data shared by the constructs, the Project and the engine's loader: what a construct
 * synthesises into, and how a problem is reported.
 */

/** Where a construct was created: the user's `new X(...)` call. */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

/**
 * The resource kinds Vigil manages, in one list; each is the first half of an address
 * (`api-check.home`). A new kind is one entry here plus its construct, engine adapter, server
 * variant row and runner executor.
 */
export const RESOURCE_KINDS = [
  'api-check',
  'multistep-check',
  'heartbeat-monitor',
  'browser-check',
  'playwright-check',
  'check-group',
  'maintenance-window',
  'private-location',
  'status-page-service',
  'status-page',
  'dashboard',
  'alert-channel',
  'dns-monitor',
  'tcp-monitor',
  'url-monitor',
  'ssl-monitor',
  'icmp-monitor',
  'traceroute-monitor',
  'grpc-monitor',
] as const;

export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** A user mistake (or a deprecation) found before any network call. */
export interface Diagnostic {
  severity: 'error' | 'warning';
  message: string;
  /** What to do about it. */
  hint?: string;
  /** Address of the resource the problem belongs to, e.g. `api-check.home`. */
  address?: string;
  /** Field path inside the construct's props, e.g. `request.assertions[0].target`. */
  path?: string;
  /** Where the offending construct (or config) was created. */
  source?: SourceLocation;
}

/** A dependency edge: the payload field at `path` holds the remote id of `address`. */
export interface RefEdge {
  /** Payload path, e.g. `alertChannelSubscriptions[0].alertChannelId`. */
  path: string;
  address: string;
}

/** A `fromId` reference: the payload field at `path` holds `remoteId`, a `kind` vigil does not manage. */
export interface ExternalRefEdge {
  path: string;
  kind: ResourceKind;
  remoteId: string | number;
}

/** What one construct synthesises into: the desired state of one remote resource. */
export interface ResourceSpec {
  /** `${kind}.${logicalId}` */
  address: string;
  kind: ResourceKind;
  logicalId: string;
  /**
   * Exactly the request body of the spec's create call, documented defaults filled in. A reference
   * to another construct is `{ "$ref": "<address>" }` where the remote id goes.
   */
  payload: Record<string, unknown>;
  refs: RefEdge[];
  /** `X.fromId(id)` references: the payload already holds their id; plan checks that it exists. */
  externalRefs?: ExternalRefEdge[];
  source: SourceLocation;
  /** Plan must refuse to delete or replace this resource. */
  protect: boolean;
  /** Run by `vigil test` only: plan, apply and import leave it out (checks' `testOnly` prop). */
  testOnly?: boolean;
  /** Payload paths holding secret values, so plan and state hash them instead of storing them. */
  secrets: string[];
}
