/** `GET /v1/runtimes` and `/v1/runtimes/{id}`: the runtime ids Vigil knows (@vigil/schema `RUNTIMES`). */
import { ENDPOINTS, RUNTIMES } from '@vigil/schema';
import type { Hono } from 'hono';
import { notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  ctx.route(ENDPOINTS['runtimes.list'], () => [...RUNTIMES]);
  ctx.route(ENDPOINTS['runtimes.get'], ({ params }) => {
    const runtime = RUNTIMES.find((candidate) => candidate.name === params.id);
    if (!runtime) throw notFound('Runtime', params.id);
    return runtime;
  });
}
