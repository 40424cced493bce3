/**
 * What every kind's mapper shares: the remote object seen the way the planner sees it, the values a
 * construct left without that prop would produce, and the callbacks for references and secrets.
 */
import type { ResourceKind } from '@vigil/constructs';
import { completeDesired, normalizeRemote } from '../kinds/normalize.js';
import type { KindAdapter, Payload, RemoteObject } from '../kinds/types.js';
import { deepEqual } from '../plan/diff.js';
import type { RemoteId } from '../state/index.js';
import type { Code, ObjectCode } from './code.js';

export interface MapContext {
  readonly logicalId: string;
  /** The variable of an imported resource, or `X.fromId(id)` for one left out. */
  ref(kind: ResourceKind, remoteId: RemoteId): Code;
  /**
   * A secret at payload `path`: `process.env.NAME` in the code (`NAME` from `hint`), or `''` when
   * the service holds an empty one. `remoteValue` is `null` when the service does not return it.
   */
  secret(options: { path: string; hint: string; remoteValue: unknown }): Code;
  /** Something the generated code cannot reproduce exactly; the next plan will show it. */
  warn(message: string): void;
}

/** What a mapper decided: the construct, its props, and payload keys it manages beyond the defaults. */
export interface MappedResource {
  readonly construct: string;
  readonly props: ObjectCode;
  readonly extraKeys: readonly string[];
}

/** The remote object parsed field by field with the create schema, as the planner compares it. */
export function remoteView(adapter: KindAdapter, remote: RemoteObject): Payload {
  const keys = Object.keys(adapter.schemaFor(remote).shape);
  return normalizeRemote({ adapter, remote, managedKeys: keys, secretPaths: [], applied: undefined });
}

/** What synth produces for a construct given only `minimal` props: defaults and cleared fields. */
export function baselineOf(adapter: KindAdapter, minimal: Payload): Payload {
  const schema = adapter.schemaFor(minimal);
  const parsed = schema.safeParse(minimal);
  if (!parsed.success) throw new Error(`this is a bug in vigil: the minimal ${adapter.kind} ${JSON.stringify(minimal)} does not parse`);
  return completeDesired(adapter, parsed.data as Payload);
}

export function differs(a: unknown, b: unknown): boolean {
  return !deepEqual(a ?? null, b ?? null);
}

/** A header, query parameter or variable without its `locked: false` default. */
export function withoutFalse(item: unknown, keys: readonly string[]): unknown {
  if (item === null || typeof item !== 'object') return item;
  const copy: Record<string, unknown> = { ...(item as Record<string, unknown>) };
  for (const key of keys) if (copy[key] === false) delete copy[key];
  return copy;
}
