/**
 * Heartbeat pings: `GET|POST /ping/{token}` records a success, `GET|POST /ping/{token}/fail` a
 * failure (what the monitored job calls, with curl in a crontab: no API key, the token is the
 * credential). What a ping means for the check's results and alerts: heartbeats/.
 *
 * - Unknown token: 404, and the caller's address and the token are charged, so guessing tokens is
 *   slow and a job pinging a deleted monitor backs off.
 * - Rate limits (429 with `Retry-After`): 60 pings per minute per known token — a job that pings
 *   more often than every second is a loop gone wrong, not a heartbeat — and 30 unknown tokens per
 *   minute per address, and per token. A known token is never refused for unknown ones.
 * - `?source=NAME` labels the event (default `HTTP GET` / `HTTP POST`); the request body is ignored.
 */
import type { Context, Hono } from 'hono';
import { recordPing } from '../heartbeats/pings.js';
import { HttpError } from '../http/errors.js';
import { requestHeader } from '../http/headers.js';
import { clientAddress, CredentialFailures } from '../http/auth-failures.js';
import { SharedRateLimiter } from '../http/rate-limit.js';
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
      429: { description: `More than ${PER_TOKEN.requests} pings per minute for the token, or (for an unknown token) too many unknown tokens from the address or of this token; see Retry-After`, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } },
    },
  });
  return {
    [`${PING_PATH_PREFIX}{token}`]: { get: operation(false, 'GET'), post: operation(false, 'POST') },
    [`${PING_PATH_PREFIX}{token}/fail`]: { get: operation(true, 'GET'), post: operation(true, 'POST') },
  };
}

const PER_TOKEN = { requests: 60, windowSeconds: 60 };
/** Unknown tokens answered 404 per client address, and per token, before 429. */
const UNKNOWN_TOKENS = { failures: 30, windowSeconds: 60 };

function refuse(seconds: number, what: string): HttpError {
  return new HttpError(429, `Too many ${what}; retry in ${seconds} s`, { headers: { 'retry-after': String(seconds) } });
}

export function register(app: Hono<AppEnv>, ctx: RouteContext): void {
  const { ports } = ctx.repositories;
  // Counted in the database, so a job pinging every replica behind a load balancer gets one limit.
  const perToken = new SharedRateLimiter(ports.rateLimits, PER_TOKEN);
  const unknownTokens = new CredentialFailures(UNKNOWN_TOKENS);

  const ping = (failed: boolean) => async (c: Context<AppEnv>) => {
    const token = c.req.param('token') ?? '';
    const now = Date.now();
    // The token is looked up before any count of unknown tokens is read, so a job whose token is
    // good is never refused for what other callers from its address (often the same host) got wrong.
    if (!(await ports.heartbeatPings.monitorOfToken(token))) {
      const address = clientAddress(c);
      const refusal = unknownTokens.refusal(address, token, now);
      if (refusal) throw refuse(refusal.seconds, refusal.by === 'address' ? 'pings with unknown tokens from this address' : 'pings with this unknown token');
      unknownTokens.fail(address, token, now);
      // The token is not echoed: it is the credential, and this answer may land in a job's log.
      throw new HttpError(404, 'No heartbeat monitor has this ping token');
    }
    // Only known tokens reach this table, so its size follows the number of heartbeat monitors.
    const allowed = await perToken.take(token, 'ping', now);
    if (!allowed.allowed) throw refuse(allowed.resetSeconds, 'pings for this heartbeat');
    const source = c.req.query('source') ?? `HTTP ${c.req.method}`;
    // The monitor is looked up again, in the unit that records the ping: it may have changed or gone
    // while the limit was taken.
    const recorded = await ports.transaction((tx) => recordPing(tx, { token, failed, source, userAgent: requestHeader(c, 'user-agent') ?? '', atMs: now }));
    if (!recorded) throw new HttpError(404, 'No heartbeat monitor has this ping token');
    return c.text('OK\n', 200);
  };

  for (const method of ['GET', 'POST'] as const) {
    app.on(method, `${PING_PATH_PREFIX}:token`, ping(false));
    app.on(method, `${PING_PATH_PREFIX}:token/fail`, ping(true));
  }
}
