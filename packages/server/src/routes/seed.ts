/**
 * Route-module adapter for `--seed`: loads `ctx.seed` (if any) into the store when the app is built,
 * before it serves a request. See readside/seed.ts for the format.
 */
import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';
import { loadSeed } from '../readside/seed.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  if (ctx.seed === undefined) return;
  loadSeed(ctx.repositories, ctx.seed, { knownAccountIds: ctx.accounts.all().map((account) => account.id) });
}
