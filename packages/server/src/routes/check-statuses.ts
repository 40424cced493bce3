/**
 * Check statuses (real API): the state of each check's latest FINAL result, kept by the scheduler
 * (readside/statuses.ts). A check that has never run has no status: the list leaves it out and
 * the single read answers 404.
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const statuses = ctx.repositories.statuses;

  ctx.route(ENDPOINTS['checkStatuses.list'], ({ account }) => statuses.list(account.id));

  ctx.route(ENDPOINTS['checkStatuses.get'], ({ account, params }) => {
    const status = statuses.get(account.id, params.checkId);
    if (!status) throw notFound('Check status', params.checkId);
    return status;
  });
}
