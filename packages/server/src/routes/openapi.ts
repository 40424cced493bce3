/**
 * `GET /openapi.json`: the contract as OpenAPI 3, generated from @vigil/schema, plus the heartbeat
 * ping routes (./pings.ts), the health probe (./health.ts), the runner agents' routes (agents/routes.ts) and, once known, the service's public URL as its server (served without
 * auth).
 */
import { buildOpenApiDocument } from '@vigil/schema';
import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';
import { agentOpenApiPaths } from '../agents/routes.js';
import { healthOpenApiPaths } from './health.js';
import { stateOpenApiPaths } from './state.js';
import { pingOpenApiPaths } from './pings.js';

export function register(app: Hono<AppEnv>, ctx: RouteContext): void {
  let document: Record<string, unknown> | undefined;
  app.get('/openapi.json', (c) => {
    if (document === undefined) {
      const serverUrl = ctx.publicUrl();
      const built = buildOpenApiDocument(serverUrl === undefined ? {} : { serverUrl });
      document = { ...built, paths: { ...(built.paths as object), ...pingOpenApiPaths(), ...healthOpenApiPaths(), ...stateOpenApiPaths(), ...agentOpenApiPaths() } };
    }
    return c.json(document);
  });
}
