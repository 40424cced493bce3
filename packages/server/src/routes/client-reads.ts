/**
 * Reads of the real service that other clients make (the Checkly CLI's `checks list|get|stats`),
 * grouped so `ROUTE_MODULES` lists them once.
 */
import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import * as batchAnalytics from './batch-analytics.js';
import * as checkResultPages from './check-result-pages.js';
import type { RouteContext } from './index.js';
import * as runtimes from './runtimes.js';

export function register(app: Hono<AppEnv>, ctx: RouteContext): void {
  for (const module of [runtimes, checkResultPages, batchAnalytics]) module.register(app, ctx);
}
