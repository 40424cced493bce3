import { z } from 'zod';
import { ResponseShapeError, normaliseErrorBody } from './errors.js';
import { MAX_PAGE_SIZE, paginate, type PageOptions } from './paging.js';
import type { HttpMethod, HttpRequest, HttpResponse, QueryValue, Transport } from './transport.js';

/** The parts of an `ENDPOINTS` entry of `@vigil/schema` that the client uses. */
export interface EndpointSpec {
  readonly method: HttpMethod;
  /** OpenAPI style: `/v1/checks/{id}`. */
  readonly path: string;
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  readonly response?: z.ZodType;
  readonly status: number;
  readonly list?: boolean;
  /** Paged by cursor: `{length, entries, nextId}`. */
  readonly cursor?: boolean;
}

/** What a caller passes for a schema slot: the schema's input type, or nothing when there is no schema. */
type InputOf<S> = S extends z.ZodType ? z.input<S> : undefined;
/** What a call resolves to: the response schema's output (a list endpoint's array included). */
export type ResponseOf<E extends EndpointSpec> = E['response'] extends z.ZodType ? z.output<E['response']> : undefined;
/** One item of a list endpoint's response. */
export type ItemOf<E extends EndpointSpec> = ResponseOf<E> extends ReadonlyArray<infer Item>
  ? Item
  : ResponseOf<E> extends { entries: ReadonlyArray<infer Entry> }
    ? Entry
    : never;

export interface CallInput<E extends EndpointSpec> {
  params?: InputOf<E['params']>;
  query?: InputOf<E['query']>;
  body?: InputOf<E['body']>;
  /** POST only: reuse a journaled key when recovering an interrupted create. */
  idempotencyKey?: string | undefined;
}

/** Per-call options every collection method accepts. */
export interface CallOptions {
  /** The `Idempotency-Key` to send with a create; generate it with `newIdempotencyKey()` and journal it first. */
  idempotencyKey?: string | undefined;
}

/** A path template split at its `{name}` parameters: literal text at even indexes, names at odd ones. */
const templateParts = new Map<string, readonly string[]>();

/** `/v1/checks/{id}` with `{id: 12}` → `/v1/checks/12`; a missing parameter is a bug in the caller. */
export function fillPath(template: string, params: Readonly<Record<string, unknown>> | undefined): string {
  // Split once per template: a regex replace with a callback per call cost ~8 µs of every GET.
  let parts = templateParts.get(template);
  if (parts === undefined) {
    parts = template.split(/\{([^}]+)\}/);
    templateParts.set(template, parts);
  }
  let path = parts[0]!;
  for (let index = 1; index < parts.length; index += 2) {
    const name = parts[index]!;
    const value = params?.[name];
    if (value === undefined || value === null || value === '') {
      throw new TypeError(`path parameter "${name}" of ${template} is missing; this is a bug in the caller`);
    }
    path += encodeURIComponent(String(value)) + parts[index + 1]!;
  }
  return path;
}

/** Parses of one schema before it is compiled; exported for tests. */
export const COMPILE_AFTER_PARSES = 100;

/** Per response schema: its parses so far, or, from the `COMPILE_AFTER_PARSES`th on, its compiled clone. */
const schemaTiers = new WeakMap<z.ZodType, number | z.ZodType>();

/**
 * The schema to parse a response with: the schema itself for its first parses, then its compiled
 * clone (zod's `z.compile`). The interpreted parse of a check was the largest cost of a GET besides
 * the network: ~60 µs in the middle of a request loop (CPU profile of 20,000 GETs), against
 * ~15–20 µs compiled. Compiling takes 4–25 ms per schema (~10 ms for a check, repaid by ~250 parses),
 * so only a schema in steady use is compiled, and a command that calls an endpoint a handful of times
 * never pays for it. Results and issues are zod's own either way (a body the compiled code rejects is
 * re-parsed by the interpreter for its issues), and a schema zod cannot compile comes back unchanged.
 */
function parserFor(schema: z.ZodType): z.ZodType {
  const tier = schemaTiers.get(schema) ?? 0;
  if (typeof tier !== 'number') return tier;
  if (tier + 1 < COMPILE_AFTER_PARSES) {
    schemaTiers.set(schema, tier + 1);
    return schema;
  }
  const compiled = z.compile(schema);
  schemaTiers.set(schema, compiled);
  return compiled;
}

/** `items[3].alertSettings.reminders` from a zod issue path. */
function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let text = '';
  for (const part of path) text += typeof part === 'number' ? `[${part}]` : `${text === '' ? '' : '.'}${String(part)}`;
  return text === '' ? '(body)' : text;
}

/**
 * The issue to name for a failed union: the branch's issue that got furthest into the value (a
 * request with a bad `method` fails the API branch at `request.method` and the other types' branch
 * at `request`; the first tells the reader what is wrong).
 */
function innermost(issue: z.core.$ZodIssue): { path: PropertyKey[]; message: string } {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return { path: issue.path, message: issue.message };
  let best: { path: PropertyKey[]; message: string } | undefined;
  for (const branch of issue.errors) {
    const first = branch[0];
    if (!first) continue;
    const found = innermost(first);
    if (!best || found.path.length > best.path.length) best = found;
  }
  return best ? { path: [...issue.path, ...best.path], message: best.message } : { path: issue.path, message: issue.message };
}

/**
 * Parses a response body with the endpoint's schema. A mismatch means the service (or the schema)
 * broke the contract: it is raised, naming the endpoint and the first offending field, rather than
 * passed on as data whose type lies.
 */
export function parseResponse<E extends EndpointSpec>(endpointId: string, endpoint: E, response: HttpResponse, path: string): ResponseOf<E> {
  if (!endpoint.response) return undefined as ResponseOf<E>;
  const result = parserFor(endpoint.response).safeParse(response.body);
  if (result.success) return result.data as ResponseOf<E>;
  const named = result.error.issues.map(innermost);
  const issues = named.slice(0, 3).map((issue) => `${fieldPath(issue.path)}: ${issue.message}`);
  throw new ResponseShapeError({
    method: endpoint.method,
    path,
    status: response.status,
    statusText: response.statusText,
    data: normaliseErrorBody(undefined),
    endpoint: endpointId,
    field: fieldPath(named[0]?.path ?? []),
    issues,
    attempts: response.attempts,
  });
}

/**
 * The query as sent: `autoAssignAlerts=false` on every endpoint that takes it (check and group
 * writes) unless the caller set it. The service defaults it to true, which would subscribe a managed
 * check to every alert channel of the account behind its code's back.
 */
export function queryWithDefaults(endpoint: EndpointSpec, query: Readonly<Record<string, QueryValue>> | undefined): Readonly<Record<string, QueryValue>> | undefined {
  const shape = (endpoint.query as { shape?: Record<string, unknown> } | undefined)?.shape;
  if (!shape || !('autoAssignAlerts' in shape) || query?.['autoAssignAlerts'] !== undefined) return query;
  return { ...query, autoAssignAlerts: false };
}

/** The request of one endpoint call: the path filled in, the query with its defaults. */
function endpointRequest<E extends EndpointSpec>(endpointId: string, endpoint: E, input: CallInput<E>): HttpRequest {
  return {
    method: endpoint.method,
    path: fillPath(endpoint.path, input.params as Record<string, unknown> | undefined),
    query: queryWithDefaults(endpoint, input.query as Readonly<Record<string, QueryValue>> | undefined),
    body: input.body,
    idempotencyKey: input.idempotencyKey,
    endpoint: endpointId,
  };
}

/** Calls one endpoint: fills the path, sends, and parses the response with the endpoint's schema. */
export async function callEndpoint<E extends EndpointSpec>(
  transport: Transport,
  endpointId: string,
  endpoint: E,
  input: CallInput<E> = {},
): Promise<{ data: ResponseOf<E>; response: HttpResponse }> {
  const request = endpointRequest(endpointId, endpoint, input);
  const response = await transport.request(request);
  return { data: parseResponse(endpointId, endpoint, response, request.path), response };
}

/**
 * `callEndpoint` for a caller that wants the data alone (every collection method): one promise and
 * one result object fewer per call. Never throws; a bad input (a missing path parameter) rejects.
 */
export function callEndpointData<E extends EndpointSpec>(transport: Transport, endpointId: string, endpoint: E, input: CallInput<E> = {}): Promise<ResponseOf<E>> {
  let request: HttpRequest;
  try {
    request = endpointRequest(endpointId, endpoint, input);
  } catch (error) {
    return Promise.reject(error);
  }
  return transport.request(request).then((response) => parseResponse(endpointId, endpoint, response, request.path));
}

/**
 * Every item of a list endpoint, fetched lazily in pages of 100 (`limit`/`page` are the client's; any
 * other query, such as `tag`, is kept on every page). A cursor-paged endpoint is followed by its
 * `nextId` instead.
 */
export function listAllOf<E extends EndpointSpec>(
  transport: Transport,
  endpointId: string,
  endpoint: E,
  input: Omit<CallInput<E>, 'body' | 'idempotencyKey'> = {},
  options: PageOptions = {},
): AsyncGenerator<ItemOf<E>, void, undefined> {
  if (endpoint.cursor) return followCursor(transport, endpointId, endpoint, input, options);
  return paginate<ItemOf<E>>(async ({ page, limit }) => {
    const query = { ...(input.query as object | undefined), page, limit } as InputOf<E['query']>;
    const { data, response } = await callEndpoint(transport, endpointId, endpoint, { params: input.params, query });
    return { items: data as ItemOf<E>[], headers: response.headers };
  }, options);
}

async function* followCursor<E extends EndpointSpec>(
  transport: Transport,
  endpointId: string,
  endpoint: E,
  input: Omit<CallInput<E>, 'body' | 'idempotencyKey'>,
  options: PageOptions,
): AsyncGenerator<ItemOf<E>, void, undefined> {
  let nextId: string | null | undefined;
  do {
    const query = { ...(input.query as object | undefined), limit: options.pageSize ?? MAX_PAGE_SIZE, ...(nextId ? { nextId } : {}) } as InputOf<E['query']>;
    const { data } = await callEndpoint(transport, endpointId, endpoint, { params: input.params, query });
    const page = data as { entries: ItemOf<E>[]; nextId: string | null };
    yield* page.entries;
    nextId = page.nextId;
  } while (nextId);
}
