/**
 * Which fields of a new resource a reader needs to see. A create's plan data lists every field
 * (apply sends them all), but most hold the kind's documented default (`basicAuth.password = ""`,
 * `muted = false`); like `terraform plan`, renderings show only what differs from those defaults.
 * The defaults come from the kind's create schema, so they are never restated here.
 */
import type { z } from 'zod';
import { adapterFor } from '../kinds/index.js';
import { deepEqual } from '../plan/diff.js';
import { getAtPath, parsePath, type PathSegment } from '../kinds/paths.js';
import type { Change, FieldChange } from '../plan/types.js';

type Lookup = { readonly found: true; readonly value: unknown } | { readonly found: false };
const NOT_FOUND: Lookup = { found: false };

interface SchemaDef {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly defaultValue?: unknown;
  readonly shape?: Record<string, z.ZodType>;
  readonly element?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly in?: z.ZodType;
  readonly getter?: () => z.ZodType;
}

function defOf(schema: z.ZodType): SchemaDef {
  return (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
}

/** The default the schema gives the field at `segments[index…]`, the innermost one winning. */
function lookup(schema: z.ZodType, segments: readonly PathSegment[], index: number): Lookup {
  const def = defOf(schema);
  switch (def.type) {
    case 'default':
    case 'prefault': {
      const inner = lookup(def.innerType!, segments, index);
      if (inner.found) return inner;
      const value = getAtPath(def.defaultValue, segments.slice(index));
      return value === undefined ? NOT_FOUND : { found: true, value };
    }
    case 'optional':
    case 'nullable':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return lookup(def.innerType!, segments, index);
    case 'pipe':
      return lookup(def.in!, segments, index);
    case 'lazy':
      return lookup(def.getter!(), segments, index);
    case 'union':
      for (const option of def.options ?? []) {
        const found = lookup(option, segments, index);
        if (found.found) return found;
      }
      return NOT_FOUND;
    case 'object': {
      const segment = segments[index];
      const field = typeof segment === 'string' ? def.shape?.[segment] : undefined;
      return field ? lookup(field, segments, index + 1) : NOT_FOUND;
    }
    case 'array':
      return typeof segments[index] === 'number' ? lookup(def.element!, segments, index + 1) : NOT_FOUND;
    default:
      return NOT_FOUND;
  }
}

// Plans of 10,000 creates ask about the same few dozen paths over and over.
const cache = new WeakMap<z.ZodType, Map<string, Lookup>>();

function defaultAt(schema: z.ZodType, path: string): Lookup {
  let perSchema = cache.get(schema);
  if (!perSchema) cache.set(schema, (perSchema = new Map()));
  // Every item of a list has the same defaults: `assertions[3].property` is `assertions[0].property`.
  const key = path.replace(/\[\d+\]/g, '[0]');
  let found = perSchema.get(key);
  if (!found) perSchema.set(key, (found = lookup(schema, parsePath(key), 0)));
  return found;
}

/** Most fields are scalars: compared directly, so plans of 10,000 creates render quickly. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  return deepEqual(a, b);
}

/** Whether `change` lists a whole new payload (a create, or the new half of a kind change). */
export function listsWholePayload(change: Change): boolean {
  return change.action === 'create' || (change.action === 'replace' && change.reason === 'kind-changed');
}

/**
 * The fields worth showing for `change`: for a new payload, those that differ from the kind's
 * defaults; for anything else, every field that changes. `hidden` counts what was left out.
 */
export function visibleFields(change: Change): { fields: readonly FieldChange[]; hidden: number } {
  if (!listsWholePayload(change)) return { fields: change.diff, hidden: 0 };
  // Alert channels have one schema per `type`; the others ignore the payload they are given.
  const type = change.diff.find((field) => field.path === 'type')?.after;
  const schema = adapterFor(change.kind).schemaFor({ type });
  const fields = change.diff.filter((field) => {
    const found = defaultAt(schema, field.path);
    return !(found.found && sameValue(found.value, field.after));
  });
  return { fields, hidden: change.diff.length - fields.length };
}
