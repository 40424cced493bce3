/**
 * `GET /healthz`, without authentication: whether this replica can serve, for load balancers,
 * orchestrators and uptime probes. 200 when its database answers, 503 (with the reason) when it
 * does not, so a probe takes the replica out of rotation instead of sending it traffic that fails.
 * It names no account, check or configuration, since anyone who can reach the port may call it.
 */
import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import type { EngineHealth } from '../store/engine-health.js';
import type { StoragePorts } from '../store/ports.js';
import type { RouteContext } from './index.js';

export const HEALTH_PATH = '/healthz';

/** What the probe asks: the engine's name and whether its database answers now. */
export interface DatabaseHealth {
  readonly engine: 'sqlite' | 'postgres';
  check(): Promise<EngineHealth>;
}

/**
 * The storage ports' own answer: on SQLite a `SELECT 1` on the store's connection at each probe (a
 * local file answers at once); on PostgreSQL a `SELECT 1` through the pool with a short timeout,
 * reused for a second, so probes from several load balancers cost the database one statement a second
 * at most, its reason naming the database as `host:port/database`, never the password.
 */
export function portsDatabaseHealth(ports: Pick<StoragePorts, 'engine' | 'health'>): DatabaseHealth {
  return { engine: ports.engine, check: () => ports.health() };
}

export function register(app: Hono<AppEnv>, ctx: RouteContext): void {
  registerHealth(app, portsDatabaseHealth(ctx.repositories.ports));
}

/** `GET /healthz` over `database` (a test may pass one of its own). */
export function registerHealth(app: Hono<AppEnv>, database: DatabaseHealth): void {
  app.get(HEALTH_PATH, async (c) => {
    const health = await database.check();
    const body = health.ok
      ? { status: 'UP', database: { status: 'UP', engine: database.engine } }
      : {
          status: 'DOWN',
          database: {
            status: 'DOWN',
            engine: database.engine,
            reason: health.error ?? 'the database does not answer',
            ...(health.since === undefined ? {} : { since: health.since }),
          },
        };
    c.header('cache-control', 'no-store');
    return c.json(body, health.ok ? 200 : 503);
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
        properties: {
          status: { const: status },
          engine: { type: 'string', enum: ['sqlite', 'postgres'] },
          ...(status === 'DOWN'
            ? {
                reason: { type: 'string', description: 'Why the database does not answer, naming it as host:port/database (never a password)' },
                since: { type: 'string', format: 'date-time', description: 'When the current run of failed checks began (PostgreSQL)' },
              }
            : {}),
        },
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
