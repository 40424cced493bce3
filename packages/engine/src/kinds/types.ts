/**
 * What the planner and apply know about a resource kind: one adapter per kind (STYLE habit 2), so
 * adding a kind touches one file plus its tests. The engine never imports the HTTP client (DESIGN
 * §2): adapters call the service through `ServiceCalls`, which the CLI implements with
 * `@vigil/client`.
 */
import type { ResourceKind } from '@vigil/constructs';
import type { EndpointId } from '@vigil/schema';
import type { z } from 'zod';
import type { RemoteId } from '../plan/types.js';

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
