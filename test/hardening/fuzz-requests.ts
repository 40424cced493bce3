/**
 * The request generator of fuzz.test.ts: a fast-check arbitrary of whole HTTP requests (method, path
 * with possibly bad ids, query with possibly bad values, body mutated from a valid sample or raw
 * malformed text, content type).
 */
import fc from 'fast-check';
import { ENDPOINT_IDS, ENDPOINTS, fillPath, type EndpointId } from '@vigil/schema';
import { SAMPLE_BODIES, sampleQuery, validParams, type ResourceIds } from './samples.js';

const STRESS = process.env.VIGIL_STRESS === '1';
export const FUZZ_REQUEST_COUNT = Number(process.env.VIGIL_FUZZ_COUNT ?? (STRESS ? 50_000 : 10_000));

export type BodyKind = 'none' | 'valid' | 'mutated' | 'replaced' | 'raw';

export interface FuzzRequest {
  readonly endpoint: EndpointId;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly bodyKind: BodyKind;
}

/** Long enough to exceed any column or buffer a naive store might size for names. */
const HUGE = 200_000;

/** Values that break naive code: wrong types, extremes, odd unicode, huge and deeply nested. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  fc.constantFrom<unknown>(
    null, true, false, 0, -1, 1.5, -0, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, '', ' ', '0', 'null', 'true',
    '\u0000', '\ud800', '\u202e', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', '😀'.repeat(1000), '<script>', "' OR 1=1 --", '../../etc/passwd',
    [], {}, [null], { '': null }, { __proto__: { polluted: true } }, { constructor: { prototype: { x: 1 } } },
    '2026-13-45T99:99:99Z', 'not a date',
  ),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.constant(null).map(() => 'x'.repeat(HUGE)),
  // Lists stay in the low thousands: each wrong item costs the service one validation issue, and
  // 20,000 of them take seconds; larger lists run under VIGIL_STRESS.
  fc.nat({ max: STRESS ? 20_000 : 2_000 }).map((n) => Array.from({ length: n }, (_, i) => i)),
  fc.nat({ max: STRESS ? 20_000 : 2_000 }).map((n) => Array.from({ length: n }, () => 'tag')),
  fc.integer({ min: 100, max: 100_000 }).map((depth) => deepMarker(depth)),
);

/**
 * Deep nesting is spliced into the body text after serialising (see `toText`): building it as an
 * object would overflow this process's own stack in structuredClone and JSON.stringify first.
 */
function deepMarker(depth: number): string {
  return `\u0001DEEP:${depth}\u0001`;
}

/** JSON text of `value` with every deep marker expanded to alternating arrays and objects. */
export function toText(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(/"\\u0001DEEP:(\d+)\\u0001"/g, (_, depth: string) => {
    const n = Number(depth);
    let open = '';
    let close = '';
    for (let i = 0; i < n; i += 1) {
      open += i % 2 === 0 ? '[' : '{"a":';
      close = (i % 2 === 0 ? ']' : '}') + close;
    }
    return `${open}"bottom"${close}`;
  });
}

/** Ids that name nothing, or name something of another kind or tenant. */
function badIds(pool: () => { ids: ResourceIds; otherIds: ResourceIds }): fc.Arbitrary<string | number> {
  return fc.oneof(
    fc.constantFrom<string | number>(
      0, -1, 1.5, '1e3', '0x10', 99999999, '99999999999999999999999', 'abc', 'null', 'undefined', '%00', '..', ' ',
      '00000000-0000-0000-0000-000000000000', 'a0000000-0000-4000-8000-000000000001x', '😀', '\u202e',
    ),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
    fc.constant(null).map(() => 'i'.repeat(5_000)),
    fc.constant(null).map(() => Object.values(pool().otherIds)[0] as string),
    fc.nat({ max: 11 }).map((i) => Object.values(pool().otherIds)[i] as string | number),
    fc.nat({ max: 11 }).map((i) => Object.values(pool().ids)[i] as string | number),
  );
}

/** Query keys the endpoint knows (from its zod schema) plus the usual suspects. */
function queryKeys(id: EndpointId): string[] {
  const endpoint = ENDPOINTS[id] as { query?: { shape: Record<string, unknown> } };
  return [...Object.keys(endpoint.query?.shape ?? {}), 'limit', 'page', 'autoAssignAlerts'];
}

const queryValue = fc.oneof(
  fc.constantFrom('', '0', '-1', '1', '100', '101', '1e3', '1.5', 'NaN', 'Infinity', 'true', 'false', 'yes', 'null', '[]', '{}',
    'avg', 'responseTime', 'responseTime_p99', 'runLocation', 'last7Days', 'success,failure', 'FINAL', 'ALL', '2026-01-01',
    // Node answers a request line past 16 KiB itself (431, no body, connection closed), before the
    // service sees it; values stay below that so every request reaches the service.
    '9'.repeat(400), 'x'.repeat(4_000), '%', '%ZZ', '😀', '\u0000'),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.integer().map(String),
);

function queryArbitrary(id: EndpointId): fc.Arbitrary<string> {
  const base = sampleQuery(id);
  const keys = queryKeys(id);
  return fc.oneof(
    fc.constant(base),
    fc.dictionary(fc.constantFrom(...keys), queryValue, { maxKeys: 4 }).map((extra) => ({ ...base, ...extra })),
    fc.dictionary(fc.string({ maxLength: 10 }), queryValue, { maxKeys: 3 }),
    // Repeated keys: some frameworks turn these into arrays.
    fc.tuple(fc.constantFrom(...keys), queryValue, queryValue).map(([key, a, b]) => `${enc(key)}=${enc(a)}&${enc(key)}=${enc(b)}`),
  ).map((query) => {
    if (typeof query === 'string') return `?${query}`;
    const text = Object.entries(query).map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
    return text === '' ? '' : `?${text}`;
  });
}

function enc(value: string): string {
  // A lone surrogate cannot be URI-encoded; send its replacement instead of throwing in the generator.
  return encodeURIComponent(value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));
}

/** Every property path of a JSON value (objects and arrays), root excluded. */
function pathsOf(value: unknown, prefix: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) value.forEach((item, i) => { out.push([...prefix, i]); pathsOf(item, [...prefix, i], out); });
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) { out.push([...prefix, key]); pathsOf(item, [...prefix, key], out); }
  }
  return out;
}

/** Top-level body keys: the zod object's shape (or each union option's), plus the sample's own. */
function schemaKeys(id: EndpointId): string[] {
  const body = (ENDPOINTS[id] as { body?: ZodLike }).body;
  const shapes = body?.shape ? [body.shape] : (body?.options ?? []).map((option) => option.shape ?? {});
  const keys = new Set([...shapes.flatMap((shape) => Object.keys(shape)), ...Object.keys(SAMPLE_BODIES[id] ?? {})]);
  return [...keys];
}

interface ZodLike { readonly shape?: Record<string, unknown>; readonly options?: readonly ZodLike[] }

function withValueAt(root: unknown, path: Array<string | number>, value: unknown, remove: boolean): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const segment of path.slice(0, -1)) {
    const next = node[segment];
    // An earlier mutation may have replaced a parent with a scalar: nothing left to reach.
    if (next === null || typeof next !== 'object') return copy;
    node = next as Record<string | number, unknown>;
  }
  const last = path[path.length - 1]!;
  if (remove) {
    if (Array.isArray(node) && typeof last === 'number') node.splice(last, 1);
    else delete node[last];
  } else node[last] = value;
  return copy;
}

interface BodyChoice { readonly text?: string; readonly kind: BodyKind }

function bodyArbitrary(id: EndpointId): fc.Arbitrary<BodyChoice> {
  const sample = SAMPLE_BODIES[id];
  const junk: fc.Arbitrary<BodyChoice> = fc.oneof(
    fc.constantFrom('', '{', '[', 'null', '[]', '"x"', '{"a":}', '{"name":"a",}', '\u0000', 'name=a&b=c', '{"name":"\\ud800"}', '{}garbage')
      .map((text) => ({ text, kind: 'raw' as const })),
    fc.jsonValue({ maxDepth: 4 }).map((value) => ({ text: JSON.stringify(value), kind: 'replaced' as const })),
    fc.string({ unit: 'binary', maxLength: 200 }).map((text) => ({ text, kind: 'raw' as const })),
  );
  if (!sample) return fc.oneof({ weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) }, junk);
  const paths = [...pathsOf(sample), ...schemaKeys(id).map((key) => [key])];
  const valid = JSON.stringify(sample);
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant({ text: valid, kind: 'valid' as const }) },
    { weight: 8, arbitrary: fc.tuple(fc.constantFrom(...paths), hostileValue).map(([path, value]) => ({ text: toText(withValueAt(sample, path, value, false)), kind: 'mutated' as const })) },
    { weight: 3, arbitrary: fc.constantFrom(...pathsOf(sample)).map((path) => ({ text: JSON.stringify(withValueAt(sample, path, undefined, true)), kind: 'mutated' as const })) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...paths), hostileValue, hostileValue).map(([path, a, b]) => ({ text: toText(withValueAt(withValueAt(sample, [path[0]!], b, false), path, a, false)), kind: 'mutated' as const })) },
    // Duplicate keys: the last one wins in JSON.parse, so a valid key may hide a hostile one or the reverse.
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...schemaKeys(id)), hostileValue).map(([key, value]) => ({ text: `${valid.slice(0, -1)},${JSON.stringify(key)}:${toText(value)}}`, kind: 'mutated' as const })) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...schemaKeys(id)), hostileValue).map(([key, value]) => ({ text: `{${JSON.stringify(key)}:${toText(value)},${valid.slice(1)}`, kind: 'mutated' as const })) },
    // Truncated bodies, as a dropped connection would leave them.
    { weight: 1, arbitrary: fc.nat({ max: valid.length - 1 }).map((cut) => ({ text: valid.slice(0, cut), kind: 'raw' as const })) },
    { weight: 2, arbitrary: junk },
    { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  );
}

const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', 'multipart/form-data; boundary=x', '', '*/*'),
);

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

function requestFor(id: EndpointId, pool: () => { ids: ResourceIds; otherIds: ResourceIds }): fc.Arbitrary<FuzzRequest> {
  const endpoint = ENDPOINTS[id];
  const names = endpoint.path.match(/\{(\w+)\}/g)?.map((m) => m.slice(1, -1)) ?? [];
  const params = fc.oneof(
    { weight: 3, arbitrary: fc.constant(null) },
    { weight: names.length > 0 ? 2 : 0, arbitrary: badIds(pool) },
  );
  return fc
    .record({
      param: params,
      query: queryArbitrary(id),
      body: bodyArbitrary(id),
      contentType,
      method: fc.oneof({ weight: 9, arbitrary: fc.constant(endpoint.method as string) }, fc.constantFrom(...METHODS)),
    })
    .map(({ param, query, body, contentType: type, method }) => {
      const good = validParams(id, pool().ids);
      const filled = param === null ? good : Object.fromEntries(Object.keys(good).map((name) => [name, param]));
      const path = `${fillPath(endpoint.path, filled)}${query}`;
      const sendsBody = body.text !== undefined && method !== 'GET' && method !== 'HEAD';
      const headers: Record<string, string> = sendsBody && type !== '' ? { 'content-type': type } : {};
      return {
        endpoint: id,
        method,
        path,
        headers,
        ...(sendsBody ? { body: body.text } : {}),
        bodyKind: sendsBody ? body.kind : 'none',
      };
    });
}

/** Every endpoint equally often; `pool` is read lazily because ids exist only once the server runs. */
export function requestArbitrary(pool: () => { ids: ResourceIds; otherIds: ResourceIds }): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(...ENDPOINT_IDS.map((id) => requestFor(id, pool)));
}
