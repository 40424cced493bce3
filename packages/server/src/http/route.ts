/**
 * Registers one endpoint of the contract: resolves the path, reads and validates params, query and
 * body with the endpoint's schemas (400 with `validation.keys` from `formatIssues`), runs the handler,
 * answers with the endpoint's status, adds paging headers to lists and replays `Idempotency-Key`s.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { IDEMPOTENCY_KEY_MAX_LENGTH, formatIssues } from '@vigil/schema';
import type { z } from 'zod';
import type { Account } from '../accounts.js';
import type { Page, Store } from '../store/index.js';
import type { StoragePorts, StoredResponse, TransactionPorts } from '../store/ports.js';
import { readJsonBody } from './body.js';
import { HttpError, badRequest, conflict, type ValidationSource } from './errors.js';
import { requestHeader } from './headers.js';
import { pagingHeaders } from './paging.js';
import { JsonBytes, RawJson, SerializedPage, bodyText, bodyValue, serializeList } from '../domain/json-text.js';
import type { AppEnv } from './types.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The parts of an `ENDPOINTS` entry of @vigil/schema that the server uses. */
export interface EndpointSpec {
  readonly method: HttpMethod;
  /** OpenAPI style: `/v1/checks/{id}`. */
  readonly path: string;
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  /** Schema of the response body; checked only when the app runs with `checkResponses`. */
  readonly response?: z.ZodType;
  readonly status: number;
  /** A list endpoint: the handler returns `{items, total}`, the route adds paging headers. */
  readonly list?: boolean;
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteInput<E extends EndpointSpec> {
  readonly c: Context<AppEnv>;
  readonly account: Account;
  readonly params: Parsed<E['params']>;
  readonly query: Parsed<E['query']>;
  readonly body: Parsed<E['body']>;
}

/** List handlers return a page; every other handler returns the response body (ignored for 204). */
export type RouteResult<E extends EndpointSpec> = E['list'] extends true ? Page<unknown> | SerializedPage : unknown;

export type RouteHandler<E extends EndpointSpec> = (input: RouteInput<E>) => RouteResult<E> | Promise<RouteResult<E>>;

export interface UnitRouteInput<E extends EndpointSpec> extends RouteInput<E> {
  /**
   * The storage ports of the request's unit of work: a write's calls are one transaction, committed
   * before the response is sent. A GET reads through the replica's own ports (no transaction).
   */
  readonly tx: TransactionPorts;
}

/** A handler over the storage ports (`ctx.routeUnit`): async, every write through `tx`. */
export type UnitRouteHandler<E extends EndpointSpec> = (input: UnitRouteInput<E>) => Promise<RouteResult<E>>;

/** `/v1/checks/{id}` → `/v1/checks/:id`. */
export function honoPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

function validate(schema: z.ZodType | undefined, value: unknown, source: ValidationSource): unknown {
  if (!schema) return undefined;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { message, keys } = formatIssues(result.error, value);
  throw badRequest(message, { source, keys });
}

/**
 * Repeated query parameters arrive as arrays, single ones as strings; the schemas accept both.
 * `tag[]=a&tag[]=b` (how axios and qs send arrays, e.g. the Checkly CLI) is read as `tag=a&tag=b`.
 */
function queryObject(c: Context<AppEnv>): Record<string, string | string[]> {
  const all = c.req.queries();
  const query: Record<string, string | string[]> = {};
  for (const [sent, values] of Object.entries(all)) {
    const name = sent.endsWith('[]') ? sent.slice(0, -2) : sent;
    const merged = [...[query[name] ?? []].flat(), ...values];
    query[name] = merged.length === 1 ? merged[0]! : merged;
  }
  return query;
}

interface Outcome {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;
}

function respond(c: Context<AppEnv>, outcome: Outcome): Response {
  if (outcome.status === 204) return c.body(null, 204, outcome.headers);
  if (outcome.body instanceof RawJson || outcome.body instanceof JsonBytes) {
    const body = outcome.body instanceof JsonBytes ? outcome.body.bytes : outcome.body.json;
    // A plain header object (not Hono's `c.body`, which builds a `Headers`) reaches
    // @hono/node-server's `writeHead` as it is: no Headers instance built and iterated per response.
    return new Response(body, { status: outcome.status, headers: { ...outcome.headers, 'content-type': 'application/json' } });
  }
  return c.json(outcome.body as object, outcome.status as 200, outcome.headers);
}

export interface RouteOptions {
  readonly app: import('hono').Hono<AppEnv>;
  /** SQLite's store, for `registerRoute`'s synchronous writes; absent on PostgreSQL, where every write is a unit. */
  readonly store?: Store | undefined;
  /** The store's storage ports, which `registerUnitRoute` handlers write through. */
  readonly ports: StoragePorts;
  /**
   * The `Idempotency-Key`s of POSTs in flight (account and key), so a concurrent repeat gets 409
   * instead of a duplicate: one set per app, shared by all its routes.
   */
  readonly idempotencyInFlight: Set<string>;
  /** Parse every response with the endpoint's schema and answer 500 on a mismatch (tests). */
  readonly checkResponses: boolean;
}

/**
 * A response the contract does not describe is a server bug; in tests it must fail loudly, because
 * the client parses responses with the same schemas.
 */
function assertResponse(endpoint: EndpointSpec, body: unknown, list: boolean): void {
  if (!endpoint.response) return;
  const result = endpoint.response.safeParse(body);
  if (result.success) return;
  const { message } = formatIssues(result.error);
  throw new Error(`response of ${endpoint.method} ${endpoint.path}${list ? ' (list)' : ''} does not match its schema: ${message}`);
}

/** How a route runs its handler: synchronously in the group commit, or as a unit of work over the ports. */
type Handling<E extends EndpointSpec> = { readonly unit: false; readonly handler: RouteHandler<E> } | { readonly unit: true; readonly handler: UnitRouteHandler<E> };

export function registerRoute<E extends EndpointSpec>(options: RouteOptions, endpoint: E, handler: RouteHandler<E>): void {
  if (endpoint.method !== 'GET' && options.store === undefined) {
    throw new Error(`${endpoint.method} ${endpoint.path} writes through SQLite's group commit, which a service on PostgreSQL has not: register it with routeUnit`);
  }
  register(options, endpoint, { unit: false, handler });
}

/**
 * Registers an endpoint whose handler is async over the storage ports: a write runs as one unit of
 * work (`ports.transaction`), and a POST's `Idempotency-Key` response is stored through the unit's
 * own idempotency port, so it commits, or not, with what the handler wrote.
 */
export function registerUnitRoute<E extends EndpointSpec>(options: RouteOptions, endpoint: E, handler: UnitRouteHandler<E>): void {
  register(options, endpoint, { unit: true, handler });
}

function register<E extends EndpointSpec>(options: RouteOptions, endpoint: E, handling: Handling<E>): void {
  const { app, store, ports } = options;
  // A GET has no transaction to scope a part of; its reads need none.
  const readPorts: TransactionPorts = { ...ports, savepoint: (work) => work() };
  const method = endpoint.method.toLowerCase() as Lowercase<HttpMethod>;
  app.on(endpoint.method, honoPath(endpoint.path), async (c) => {
    const account = c.get('account');
    const params = validate(endpoint.params, c.req.param(), 'params');
    const query = validate(endpoint.query, queryObject(c), 'query');
    const raw = method === 'get' || method === 'delete' ? undefined : await readJsonBody(c.req.raw, c.env?.incoming);
    const body = validate(endpoint.body, raw?.json, 'payload');
    const input = { c, account, params, query, body } as RouteInput<E>;

    const toOutcome = (result: unknown): Outcome => {
      if (!endpoint.list) {
        if (options.checkResponses) assertResponse(endpoint, bodyValue(result), false);
        return { status: endpoint.status, body: result, headers: {} };
      }
      const page = result as Page<unknown> | SerializedPage;
      const items =
        page instanceof SerializedPage ? page.body
        : page.items.some((item) => item instanceof RawJson) ? serializeList(page.items)
        : page.items;
      if (options.checkResponses) assertResponse(endpoint, bodyValue(items), true);
      const paging = query as { limit?: number; page?: number } | undefined;
      const headers = pagingHeaders(c.req.url, {
        page: paging?.page ?? 1,
        limit: paging?.limit ?? 10,
        total: page.total,
        count: page instanceof SerializedPage ? page.count : page.items.length,
      });
      return { status: endpoint.status, body: items, headers: { ...headers } };
    };

    const key = method === 'post' ? requestHeader(c, 'idempotency-key') : undefined;
    if (method === 'get') return respond(c, toOutcome(await (handling.unit ? handling.handler({ ...input, tx: readPorts }) : handling.handler(input))));
    if (key !== undefined && key.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
      // Each key is stored with its response for a day; a 16 KiB key per create was stored as sent.
      throw badRequest(`"Idempotency-Key" must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters long`);
    }
    if (handling.unit) {
      const handle = async (tx: TransactionPorts): Promise<Outcome> => toOutcome(await handling.handler({ ...input, tx }));
      const request = key === undefined ? undefined : { accountId: account.id, key, fingerprint: fingerprint(c, raw?.text ?? '') };
      const outcome = request === undefined ? await ports.transaction(handle) : await runIdempotentUnit(ports, options.idempotencyInFlight, request, handle);
      return respond(c, outcome);
    }
    const { handler } = handling;
    // registerRoute refuses a write route without the store.
    if (store === undefined) throw new Error(`${endpoint.method} ${endpoint.path} has no store to write to`);
    if (key === undefined) {
      const { result, committed } = store.writeBatched(() => toOutcome(handler(input)));
      await committed;
      return respond(c, result);
    }
    const request = { accountId: account.id, key, fingerprint: fingerprint(c, raw?.text ?? '') };
    return respond(c, await runIdempotent(store, options.idempotencyInFlight, request, () => handler(input), toOutcome));
  });
}

function fingerprint(c: Context<AppEnv>, bodyText: string): string {
  const url = new URL(c.req.url);
  return createHash('sha256').update(`${c.req.method} ${url.pathname}${url.search}\n${bodyText}`).digest('hex');
}

/**
 * `Idempotency-Key`: the first successful response is stored with the key, in the same
 * transaction as the write it describes, so a response lost to a dropped connection or a crash is
 * replayed and never repeated. A repeat with another method, path or body is refused with 422
 * (the key was reused for a different request); a repeat while the first is still running gets 409.
 * Failed responses are not stored: the caller may fix the request and retry with the same key.
 */
async function runIdempotent(
  store: Store,
  running: Set<string>,
  request: IdempotentRequest,
  handle: () => unknown,
  toOutcome: (result: unknown) => Outcome,
): Promise<Outcome> {
  const now = Date.now();
  const stored = store.idempotency.find(request.accountId, request.key, now);
  if (stored) return replayed(stored, request);
  const slot = claimKey(running, request);
  const save = (outcome: Outcome): Outcome => {
    if (outcome.status < 300) {
      const body = bodyText(outcome.body);
      store.idempotency.save(request.accountId, request.key, { fingerprint: request.fingerprint, status: outcome.status, body }, now);
    }
    return outcome;
  };
  try {
    // Write handlers are synchronous (every SQLite write is): the resource and its stored key are
    // written in one savepoint of the group commit, and answered only once that has committed.
    const { result, committed } = store.writeBatched(() => save(toOutcome(handle())));
    await committed;
    return result;
  } finally {
    running.delete(slot);
  }
}

interface IdempotentRequest {
  readonly accountId: string;
  readonly key: string;
  readonly fingerprint: string;
}

/** The stored response of a key, for a repeat of its request; 422 for a different request. */
function replayed(stored: StoredResponse, request: IdempotentRequest): Outcome {
  if (stored.fingerprint !== request.fingerprint) {
    throw new HttpError(422, `Idempotency-Key "${request.key}" was already used for a different request`);
  }
  return { status: stored.status, body: JSON.parse(stored.body) as unknown, headers: { 'idempotent-replayed': 'true' } };
}

/** Marks the key in flight, or answers 409 while a request with it is still running; the slot to free. */
function claimKey(running: Set<string>, request: IdempotentRequest): string {
  const slot = `${request.accountId}\u0000${request.key}`;
  if (running.has(slot)) throw conflict(`a request with Idempotency-Key "${request.key}" is still in progress`);
  running.add(slot);
  return slot;
}

/** Another replica stored a response for the key while this unit ran: the unit is undone, that response replayed. */
class AnsweredElsewhere extends Error {
  constructor(readonly response: StoredResponse) {
    super('the Idempotency-Key was answered by another request first');
  }
}

/**
 * `runIdempotent` for a unit-of-work handler: the same replay, 422 and 409 rules, with the response
 * stored through the unit's idempotency port, in the unit's transaction. The in-flight set only covers
 * this process; when another replica stored a response for the key first, this unit rolls back and
 * that response is answered, so the key still stands for one write.
 */
async function runIdempotentUnit(
  ports: StoragePorts,
  running: Set<string>,
  request: IdempotentRequest,
  handle: (tx: TransactionPorts) => Promise<Outcome>,
): Promise<Outcome> {
  const now = Date.now();
  const stored = await ports.idempotency.lookup(request.accountId, request.key, now);
  if (stored) return replayed(stored, request);
  const slot = claimKey(running, request);
  try {
    return await ports.transaction(async (tx) => {
      const outcome = await handle(tx);
      if (outcome.status < 300) {
        const response = { fingerprint: request.fingerprint, status: outcome.status, body: bodyText(outcome.body) };
        const remembered = await tx.idempotency.remember(request.accountId, request.key, response, now);
        if (!remembered.stored) throw new AnsweredElsewhere(remembered.response);
      }
      return outcome;
    });
  } catch (error) {
    if (error instanceof AnsweredElsewhere) return replayed(error.response, request);
    throw error;
  } finally {
    running.delete(slot);
  }
}
