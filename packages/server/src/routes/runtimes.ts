/**
 * `GET /v1/runtimes`: the runtime ids Vigil knows (@vigil/schema `RUNTIMES`). No `/v1/runtimes/{id}`:
 * runtimes are not tenant data, and every id-taking path is held to the tenancy rules (test/hardening).
 */
import { ENDPOINTS, RUNTIMES } from '@vigil/schema';
import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  ctx.route(ENDPOINTS['runtimes.list'], () => [...RUNTIMES]);
}
