/**
 * Heartbeat pings: `GET|POST /ping/{token}` records a success, `GET|POST /ping/{token}/fail` a
 * failure (what the monitored job calls, with curl in a crontab: no API key, the token is the
 * credential). What a ping means for the check's results and alerts: heartbeats/.
 *
 * - Unknown token: 404, and the caller's address is charged, so guessing tokens is slow.
 * - Rate limits (429 with `Retry-After`): 60 pings per minute per token — a job that pings more
 *   often than every second is a loop gone wrong, not a heartbeat — and 30 unknown tokens per minute
 *   per address.
 * - `?source=NAME` labels the event (default `HTTP GET` / `HTTP POST`); the request body is ignored.
 */
import type { Context, Hono } from 'hono';
import { recordPing } from '../heartbeats/pings.js';
import { lookupsOf } from '../heartbeats/tokens.js';
import { HttpError } from '../http/errors.js';
import { requestHeader } from '../http/headers.js';
import { AuthFailureLimiter } from '../http/auth-failures.js';
import { RateLimiter } from '../http/rate-limit.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export const PING_PATH_PREFIX = '/ping/';

/** Pings carry no API key: the app lets these paths through its authentication. */
export function isPingPath(path: string): boolean {
  return path.startsWith(PING_PATH_PREFIX);
}

/** The ping routes in `GET /openapi.json` (./openapi.ts): not contract endpoints, as they take no API key and answer text. */
export function pingOpenApiPaths(): Record<string, Record<string, unknown>> {
  const operation = (failed: boolean, method: 'GET' | 'POST') => ({
    operationId: `heartbeats.ping${failed ? 'Fail' : ''}${method === 'GET' ? 'Get' : 'Post'}`,
    summary: failed ? 'Report a failure of the job a heartbeat monitor watches' : 'Report a success of the job a heartbeat monitor watches',
    tags: ['heartbeats'],
    security: [],
    parameters: [
      { name: 'token', in: 'path', required: true, schema: { type: 'string' }, description: "The monitor's heartbeat.pingToken (its pingUrl ends with it)" },
      { name: 'source', in: 'query', required: false, schema: { type: 'string', maxLength: 100 }, description: `Labels the event (default "HTTP ${method}")` },
    ],
    ...(method === 'POST' ? { description: 'The request body is ignored.' } : {}),
    responses: {
      200: { description: 'Recorded', content: { 'text/plain': { schema: { type: 'string', const: 'OK\n' } } } },
      404: { description: 'No heartbeat monitor has this ping token', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } },
      429: { description: `More than ${PER_TOKEN.requests} pings per minute for the token, or too many unknown tokens from the address; see Retry-After`, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } },
    },
  });
  return {
    [`${PING_PATH_PREFIX}{token}`]: { get: operation(false, 'GET'), post: operation(false, 'POST') },
    [`${PING_PATH_PREFIX}{token}/fail`]: { get: operation(true, 'GET'), post: operation(true, 'POST') },
  };
}

const PER_TOKEN = { requests: 60, windowSeconds: 60 };
const UNKNOWN_PER_ADDRESS = { failures: 30, windowSeconds: 60 };

function refuse(seconds: number, what: string): HttpError {
  return new HttpError(429, `Too many ${what}; retry in ${seconds} s`, { headers: { 'retry-after': String(seconds) } });
}

export function register(app: Hono<AppEnv>, ctx: RouteContext): void {
  const { store } = ctx;
  lookupsOf(store);
  const perToken = new RateLimiter(PER_TOKEN);
  const unknownPerAddress = new AuthFailureLimiter(UNKNOWN_PER_ADDRESS);

  const ping = (failed: boolean) => async (c: Context<AppEnv>) => {
    const token = c.req.param('token') ?? '';
    const now = Date.now();
    // Requests through `app.request()` (tests) have no socket; they share one address.
    const address = c.env?.incoming?.socket?.remoteAddress ?? 'in-process';
    const blocked = unknownPerAddress.blockedFor(address, now);
    if (blocked !== undefined) throw refuse(blocked, 'pings with unknown tokens from this address');
    const allowed = perToken.take(token, 'default', now);
    if (!allowed.allowed) throw refuse(allowed.resetSeconds, 'pings for this heartbeat');
    const source = c.req.query('source') ?? `HTTP ${c.req.method}`;
    const { result, committed } = store.writeBatched(() =>
      recordPing(store, { token, failed, source, userAgent: requestHeader(c, 'user-agent') ?? '', atMs: now }),
    );
    if (!result) {
      unknownPerAddress.fail(address, now);
      // The token is not echoed: it is the credential, and this answer may land in a job's log.
      throw new HttpError(404, 'No heartbeat monitor has this ping token');
    }
    await committed;
    return c.text('OK\n', 200);
  };

  for (const method of ['GET', 'POST'] as const) {
    app.on(method, `${PING_PATH_PREFIX}:token`, ping(false));
    app.on(method, `${PING_PATH_PREFIX}:token/fail`, ping(true));
  }
}
