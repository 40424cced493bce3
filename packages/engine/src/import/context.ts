/**
 * What every kind's mapper shares: the remote object seen the way the planner sees it, the values a
 * construct left without that prop would produce, and the callbacks for references and secrets.
 */
import { completeDesired, normalizeRemote } from '../kinds/normalize.js';
import type { KindAdapter, Payload, RemoteObject } from '../kinds/types.js';
import { deepEqual } from '../plan/diff.js';

export type { MapContext, MappedResource } from '../kinds/types.js';

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
