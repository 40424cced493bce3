/**
 * Brings a desired payload and a remote object into one comparable shape: every field
 * vigil manages present (a field left out of the code is sent as cleared, since the service merges
 * updates and would otherwise keep the old value), documented defaults applied, server-computed
 * fields dropped, set-like fields sorted, secrets replaced by their hashes.
 */
import { z } from 'zod';
import { getAtPath, replaceAtPath } from './paths.js';
import { hashSecret } from '../state/index.js';
import type { KindAdapter, Payload, RemoteObject } from './types.js';

function fieldSchemas(schema: z.ZodObject): Record<string, z.ZodType> {
  return schema.shape as Record<string, z.ZodType>;
}

/**
 * What the service holds for a field vigil does not set: `null` where the field is nullable, `[]`
 * for lists; `undefined` (not managed) for fields the service assigns itself, such as
 * `frequencyOffset`, which accept neither.
 */
function clearedValue(schema: z.ZodType): unknown {
  if (schema.safeParse(null).success) return null;
  if (schema.safeParse([]).success) return [];
  return undefined;
}

const clearedCache = new WeakMap<z.ZodObject, Record<string, unknown>>();

function clearedValues(schema: z.ZodObject): Record<string, unknown> {
  let cleared = clearedCache.get(schema);
  if (!cleared) {
    cleared = {};
    for (const [key, field] of Object.entries(fieldSchemas(schema))) {
      const value = clearedValue(field);
      if (value !== undefined) cleared[key] = value;
    }
    clearedCache.set(schema, cleared);
  }
  return cleared;
}

function sortSetFields(adapter: KindAdapter, payload: Payload): Payload {
  const out: Payload = { ...payload };
  for (const field of adapter.setFields) {
    const value = out[field];
    if (Array.isArray(value)) out[field] = [...value].sort(compareSetItems);
  }
  return out;
}

function compareSetItems(a: unknown, b: unknown): number {
  const left = typeof a === 'string' ? a : JSON.stringify(a);
  const right = typeof b === 'string' ? b : JSON.stringify(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * The payload vigil sends: the synthesised one plus every managed field it left out, cleared.
 * Secrets are still plain here; `hideSecrets` hashes them for comparison and storage.
 */
export function completeDesired(adapter: KindAdapter, payload: Payload): Payload {
  const complete: Payload = { ...payload };
  for (const [key, value] of Object.entries(clearedValues(adapter.schemaFor(payload)))) {
    if (complete[key] === undefined) complete[key] = structuredClone(value);
  }
  return sortSetFields(adapter, complete);
}

export function hideSecrets(payload: Payload, secretPaths: readonly string[]): Payload {
  let out: unknown = payload;
  for (const path of secretPaths) {
    out = replaceAtPath(out, path, (value) => (typeof value === 'string' ? hashSecret(value) : value));
  }
  return out as Payload;
}

/**
 * Normalises a remote object against the desired payload it will be compared with: same fields,
 * same nested defaults, secrets as hashes. A secret the service does not return (value `null`) is
 * taken to be the last-applied one, since no read can tell otherwise.
 */
export function normalizeRemote(options: {
  adapter: KindAdapter;
  remote: RemoteObject;
  managedKeys: readonly string[];
  secretPaths: readonly string[];
  applied: Payload | undefined;
  /**
   * Where the secret at a desired `path` sits in `within` (the remote, the last-applied payload):
   * an environment variable is the one with the same key, wherever the list has it; `undefined`
   * when it is not there. Without it, at the same path.
   */
  placeOf?: (path: string, within: unknown) => string | undefined;
}): Payload {
  const { adapter, managedKeys, secretPaths, applied } = options;
  const place = (path: string, within: unknown): string | undefined => (options.placeOf ? options.placeOf(path, within) : path);
  let remote: unknown = adapter.prepareRemote ? adapter.prepareRemote(options.remote) : options.remote;
  // Hidden secrets would fail the schema's string rules; a placeholder keeps the rest parseable.
  for (const path of secretPaths) {
    const at = place(path, remote);
    if (at !== undefined) remote = replaceAtPath(remote, at, (value) => (value === null ? '' : value));
  }

  const schema = adapter.schemaFor(remote as RemoteObject);
  const schemas = fieldSchemas(schema);
  const cleared = clearedValues(schema);
  const picked: Payload = {};
  for (const key of managedKeys) {
    // A field the service leaves out of its answer is not set: the same as cleared.
    const raw = (remote as RemoteObject)[key] ?? cleared[key];
    const schema = schemas[key];
    // Parsing fills nested defaults and strips response-only nested fields, so both sides match in shape.
    const parsed = schema && raw !== undefined ? schema.safeParse(raw) : undefined;
    picked[key] = parsed?.success ? parsed.data : raw;
  }

  let normalized: unknown = sortSetFields(adapter, picked);
  for (const path of secretPaths) {
    const at = place(path, normalized);
    if (at === undefined) continue;
    const remoteValue = getAtPath(normalized, at);
    const appliedAt = applied === undefined ? undefined : place(path, applied);
    normalized = replaceAtPath(normalized, at, () =>
      typeof remoteValue === 'string' && remoteValue !== '' ? hashSecret(remoteValue) : appliedAt === undefined ? undefined : getAtPath(applied, appliedAt),
    );
  }
  return normalized as Payload;
}
