/**
 * Check statuses (real API): the state of each check's latest FINAL result, which recording a run
 * keeps (the check-statuses port). A check that has never run has no status: the list leaves it out
 * and the single read answers 404.
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  ctx.routeUnit(ENDPOINTS['checkStatuses.list'], ({ tx, account }) => tx.checkStatuses.list(account.id));

  ctx.routeUnit(ENDPOINTS['checkStatuses.get'], async ({ tx, account, params }) => {
    const status = await tx.checkStatuses.find(account.id, params.checkId);
    if (!status) throw notFound('Check status', params.checkId);
    return status;
  });
}
