/** `GET /openapi.json`: the contract as OpenAPI 3, generated from @vigil/schema (served without auth). */
import { buildOpenApiDocument } from '@vigil/schema';
import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export function register(app: Hono<AppEnv>, _ctx: RouteContext): void {
  let document: unknown;
  app.get('/openapi.json', (c) => {
    document ??= buildOpenApiDocument();
    return c.json(document as object);
  });
}
