/**
 * Building blocks shared by the resource modules: defaults applied to a defaults-free shape, date
 * strings, and query-string coercions.
 */
import { z } from 'zod';
import { QUERY_LIST_MAX } from './limits.js';

/**
 * Returns `shape` with `.default(value)` applied to the named fields.
 *
 * Why not write defaults into the shape directly: zod 4 applies a `.default()` even inside
 * `.optional()`/`.partial()`, so an Update (PUT, merge semantics) schema derived from a defaulted
 * shape would silently fill fields the caller omitted. Each resource therefore declares one
 * defaults-free shape, uses it as-is for Update, and passes it through here for Create.
 * Defaults are copied per parse so no two parsed objects share an array or object.
 */
export function withDefaults<S extends z.ZodRawShape, D extends { [K in keyof S]?: z.output<S[K]> }>(
  shape: S,
  defaults: D,
): { [K in keyof S]: K extends keyof D ? z.ZodDefault<S[K]> : S[K] } {
  const out: Record<string, z.core.$ZodType> = { ...shape };
  for (const [key, value] of Object.entries(defaults)) {
    const field = shape[key] as unknown as z.ZodType;
    out[key] = field.default(copierOf(value) as never);
  }
  return out as { [K in keyof S]: K extends keyof D ? z.ZodDefault<S[K]> : S[K] };
}

/**
 * A function that returns a fresh copy of the plain-JSON `value`, its structure walked once here
 * rather than on every parse: a Create parse fills in about ten defaults, and a generic deep copy
 * (enumerating each object's keys every time) was ~5% of loading 10,000 checks.
 */
function copierOf<T>(value: T): () => T {
  if (Array.isArray(value)) {
    if (value.length === 0) return () => [] as T;
    const items = value.map(copierOf);
    return () => items.map((copy) => copy()) as T;
  }
  if (value !== null && typeof value === 'object') {
    const fields = Object.entries(value).map(([key, field]) => [key, copierOf(field)] as const);
    return () => {
      const copy: Record<string, unknown> = {};
      for (const [key, field] of fields) copy[key] = field();
      return copy as T;
    };
  }
  return () => value;
}

/**
 * Parameters for an object-level refinement that needs only `fields`: it runs even when other
 * fields failed (zod skips refinements after any issue by default), so one response lists every
 * problem, as Joi does — but not when one of its own fields is already invalid.
 */
export function whenFieldsValid(...fields: string[]): { when: (payload: z.core.ParsePayload) => boolean } {
  return {
    when: (payload) =>
      payload.value !== null &&
      typeof payload.value === 'object' &&
      !payload.issues.some((issue) => {
        const head = issue.path?.[0];
        return head === undefined || fields.includes(String(head));
      }),
  };
}

/**
 * A body the real service's document closes (`additionalProperties: false`): every property that
 * is neither a field of `shape` nor one of `alsoAccepted` (properties the document lists that Vigil
 * does not implement: accepted, then dropped) is refused with an `unrecognized_keys` issue naming
 * it. Elsewhere objects stay open, as the document has them: unknown properties are dropped.
 */
export function closedObject<S extends z.ZodRawShape>(shape: S, alsoAccepted: readonly string[] = []) {
  const known = new Set([...Object.keys(shape), ...alsoAccepted]);
  return z
    .object(shape)
    // Unknown properties reach the refinement below (as undefined, so none is ever stored).
    .catchall(CLOSED_CATCHALL)
    .superRefine((value, ctx) => {
      const unknown = Object.keys(value).filter((key) => !known.has(key));
      if (unknown.length > 0) ctx.addIssue({ code: 'unrecognized_keys', keys: unknown, input: value });
    });
}

/** The catch-all of every `closedObject` (and of its refined copies), so the OpenAPI document can tell them. */
export const CLOSED_CATCHALL = z.unknown().transform(() => undefined);

/** Every field of `shape` made optional, none defaulted: the body of a merge-semantics PUT. */
export function allOptional<S extends z.ZodRawShape>(shape: S): { [K in keyof S]: z.ZodOptional<S[K]> } {
  const out: Record<string, z.core.$ZodType> = {};
  for (const [key, field] of Object.entries(shape)) out[key] = (field as unknown as z.ZodType).optional();
  return out as { [K in keyof S]: z.ZodOptional<S[K]> };
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * A calendar date (`2025-01-31`) or an ISO 8601 timestamp with zone; the real service accepts both
 * wherever the spec says "date".
 */
export const DateString = z
  .string()
  .refine((s) => (DATE_ONLY.test(s) || DATE_TIME.test(s)) && Number.isFinite(Date.parse(s)), {
    error: 'must be a valid ISO 8601 date',
  });

/** An ISO 8601 timestamp with zone (`2025-01-31T10:00:00.000Z`). */
export const DateTimeString = z
  .string()
  .refine((s) => DATE_TIME.test(s) && Number.isFinite(Date.parse(s)), {
    error: 'must be a valid ISO 8601 date-time',
  });

/**
 * A boolean in a query string. Accepts a real boolean too, so a typed client can pass `true` and
 * the server (which sees `"true"`) parses the same schema.
 */
export const queryBoolean = () =>
  z.union([z.boolean(), z.enum(['true', 'false'])]).transform((v) => v === true || v === 'true');

/** An integer in a query string (`"10"` or `10`). */
export const queryInt = () => z.coerce.number<number | string>().int();

/** Documents the allowed items in the OpenAPI document, where the input side shows only strings. */
function listDescription(item: z.ZodType): string {
  const values = (item as { options?: readonly unknown[] }).options;
  const each = Array.isArray(values) ? `; each one of: ${values.join(', ')}` : '';
  return `Comma-separated or repeated${each}`;
}

/**
 * A list in a query string: either repeated (`?m=a&m=b`, arrives as an array) or comma-separated
 * (`?m=a,b`). Items are validated by `item` with their index in the path (`metrics.1`).
 */
export const queryList = <T extends z.ZodType<string, string>>(item: T, options: { min?: number; max?: number } = {}) =>
  z
    .union([z.array(z.string()), z.string()])
    .meta({ description: listDescription(item) })
    .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter((s) => s !== ''))
    .pipe(z.array(item).min(options.min ?? 0).max(options.max ?? QUERY_LIST_MAX));
