/**
 * What the planner and apply know about a resource kind: one adapter per kind (STYLE habit 2), so
 * adding a kind touches one file plus its tests. The engine never imports the HTTP client (DESIGN
 * §2): adapters call the service through `ServiceCalls`, which the CLI implements with
 * `@vigil/client`.
 */
import type { ResourceKind } from '@vigil/constructs';
import type { EndpointId } from '@vigil/schema';
import type { z } from 'zod';
import type { Code, ObjectCode } from '../import/code.js';
import type { RemoteId } from '../state/types.js';

export type Payload = Record<string, unknown>;
export type RemoteObject = Record<string, unknown>;

export interface CallRequest {
  readonly params?: Readonly<Record<string, string | number>>;
  readonly query?: Readonly<Record<string, unknown>>;
  readonly body?: unknown;
  /** Sent as `Idempotency-Key` on creates, so a retried or recovered create never duplicates. */
  readonly idempotencyKey?: string;
}

/** The slice of the API client the engine needs; implemented by the CLI over `@vigil/client`. */
export interface ServiceCalls {
  call(endpoint: EndpointId, request?: CallRequest): Promise<unknown>;
  /** Every item of a list endpoint, following its pages (pages of 100). */
  listAll(endpoint: EndpointId, request?: CallRequest): AsyncIterable<unknown>;
}

export interface KindAdapter {
  readonly kind: ResourceKind;
  /**
   * Checks of every type share one logical-id namespace: the same id under another check kind is
   * one resource whose type changed (a replace), and imported checks live in their group's file.
   */
  readonly isCheck: boolean;
  /** How `vigil import` writes this kind as code. */
  readonly importing: ImportSpec;
  /**
   * The POST body schema for this payload: its keys are the fields vigil manages, its defaults the
   * documented ones. A function because some kinds (alert channels) have one schema per type.
   */
  schemaFor(payload: Payload): z.ZodObject;
  /** Fields compared as sets (order carries no meaning to the service). */
  readonly setFields: readonly string[];
  /** Fields whose change cannot be applied in place: the resource is replaced. */
  readonly replaceOn: readonly string[];
  /** The remote id in a response object. */
  remoteIdOf(remote: RemoteObject): RemoteId;
  /** Human name, used to recover an interrupted create on a service without idempotency. */
  nameOf(payload: Payload): string;
  /** Shapes a remote object the way the desired payload is shaped, before normalisation. */
  prepareRemote?(remote: RemoteObject): RemoteObject;
  list(api: ServiceCalls): AsyncIterable<RemoteObject>;
  create(api: ServiceCalls, payload: Payload, options: { idempotencyKey: string }): Promise<RemoteObject>;
  update(api: ServiceCalls, remoteId: RemoteId, payload: Payload): Promise<RemoteObject>;
  remove(api: ServiceCalls, remoteId: RemoteId): Promise<void>;
}

/** Check props a check takes from its group or the config when it does not set them, payload-shaped. */
export interface CheckInheritance {
  activated?: unknown;
  muted?: unknown;
  tags?: unknown;
  locations?: unknown;
  privateLocations?: unknown;
  runtimeId?: unknown;
  runParallel?: unknown;
  frequency?: number;
  frequencyOffset?: number;
  /** A strategy object, or `null` for "no retries". */
  retryStrategy?: unknown;
  /** Alert settings of an escalation policy (which implies `useGlobalAlertSettings: false`). */
  alertSettings?: unknown;
  /** The config lists alert channels, so a check without its own subscribes to them. */
  alertChannels?: boolean;
  shouldFail?: unknown;
  /** The config's deprecated `doubleCheck`, which applies only where no level sets a retry strategy. */
  doubleCheck?: unknown;
  /** Variables of checks with scripts that set none of their own (their list replaces these). */
  environmentVariables?: unknown;
  playwrightConfig?: unknown;
}

export interface MapContext {
  readonly logicalId: string;
  /** The variable of an imported resource, or `X.fromId(id)` for one left out. */
  ref(kind: ResourceKind, remoteId: RemoteId): Code;
  /**
   * A secret at payload `path`: `process.env.NAME` in the code (`NAME` from `hint`), or `''` when
   * the service holds an empty one. `remoteValue` is `null` when the service does not return it.
   * `payloadValue`: what the payload holds at `path` when the secret is only part of it (a bot
   * token inside a URL), so the state's hash is of that.
   */
  secret(options: { path: string; hint: string; remoteValue: unknown; payloadValue?: string }): Code;
  /** Something the generated code cannot reproduce exactly; the next plan will show it. */
  warn(message: string): void;
  /** Directory of the generated files, from the project root (POSIX; '' for the root): for paths the code resolves. */
  readonly generatedDir: string;
}

/** What a mapper decided: the construct, its props, and payload keys it manages beyond the defaults. */
export interface MappedResource {
  readonly construct: string;
  readonly props: ObjectCode;
  readonly extraKeys: readonly string[];
}

export interface MapInput {
  readonly adapter: KindAdapter;
  /**
   * What a resource inherits from the config's check defaults. A group passes its checks nothing
   * the import writes (only `frequency`, which the service does not store on a group), so a
   * grouped check inherits from the config alone.
   */
  readonly inherited: CheckInheritance;
  readonly context: MapContext;
}

/**
 * Where an imported resource's code goes: checks into their group's file (or `checks.monitor.ts`),
 * a group into a file of its own, other kinds into one shared file per kind.
 */
export type ImportPlacement = { readonly file: 'with-group' } | { readonly file: 'own' } | { readonly file: 'shared'; readonly stem: string };

export interface ImportSpec {
  /** Position in import order: kinds others refer to come first (lower runs first). */
  readonly order: number;
  readonly placement: ImportPlacement;
  /** Logical id when a name slugifies to nothing (`check`, `group`, …). */
  readonly slugFallback: string;
  /** For kinds others refer to: the exported variable's suffix (`Group` → `checkoutGroup`; '' = none). */
  readonly variableSuffix?: string;
  /** The construct class whose `fromId` stands in for a referenced resource that is not imported. */
  readonly fromIdClass?: string;
  /** What people call a remote resource, when it has no `name` (alert channels: the address). */
  displayName?(remote: RemoteObject): string;
  map(remote: RemoteObject, input: MapInput): MappedResource;
}
