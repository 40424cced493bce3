/**
 * `GET /healthz`, without authentication: whether this replica can serve, for load balancers,
 * orchestrators and uptime probes. 200 when its database answers, 503 (with the reason) when it
 * does not, so a probe takes the replica out of rotation instead of sending it traffic that fails.
 * It names no account, check or configuration, since anyone who can reach the port may call it.
 */
import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export const HEALTH_PATH = '/healthz';

export function register(app: Hono<AppEnv>, ctx: RouteContext): void {
  app.get(HEALTH_PATH, (c) => {
    const database = ctx.store.health();
    const body = database.up
      ? { status: 'UP', database: { status: 'UP', engine: database.engine } }
      : { status: 'DOWN', database: { status: 'DOWN', engine: database.engine, reason: database.reason } };
    c.header('cache-control', 'no-store');
    return c.json(body, database.up ? 200 : 503);
  });
}

/** The probe in `GET /openapi.json`, beside the API it does not belong to (it takes no key). */
export function healthOpenApiPaths(): Record<string, Record<string, unknown>> {
  const health = (status: 'UP' | 'DOWN') => ({
    type: 'object',
    required: ['status', 'database'],
    properties: {
      status: { const: status },
      database: {
        type: 'object',
        required: ['status', 'engine'],
        properties: { status: { const: status }, engine: { type: 'string' }, ...(status === 'DOWN' ? { reason: { type: 'string' } } : {}) },
      },
    },
  });
  return {
    [HEALTH_PATH]: {
      get: {
        operationId: 'service.health',
        summary: 'Whether this replica of the service can serve (its database answers)',
        tags: ['service'],
        security: [],
        responses: {
          200: { description: 'Serving', content: { 'application/json': { schema: health('UP') } } },
          503: { description: 'Not serving; the reason is the database’s', content: { 'application/json': { schema: health('DOWN') } } },
        },
      },
    },
  };
}
