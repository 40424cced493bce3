/**
 * The deprecated `GET /v1/triggers/check-groups/{groupId}`: the group's trigger, made on first read
 * and stable afterwards, the same on every replica (store/service-identity-ports.ts). The contract
 * only has this GET, so the trigger a real account would have made in the UI is made here. Another
 * tenant's group is 404.
 */
import { randomBytes } from 'node:crypto';
import { ENDPOINTS, type CheckGroupTrigger } from '@vigil/schema';
import type { Hono } from 'hono';
import { notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  ctx.routeUnit(ENDPOINTS['triggers.getCheckGroup'], async ({ tx, account, params }) => {
    if (!(await tx.documents.get('check_groups', account.id, params.groupId))) throw notFound('Check group', params.groupId);
    const now = new Date();
    // The public id is counted per account by the port, which makes the document around it.
    const trigger = await tx.serviceIdentity.groupTrigger(account.id, params.groupId, (id) => ({
      id,
      token: randomBytes(16).toString('hex'),
      groupId: params.groupId,
      created_at: now.toISOString(),
      called_at: null,
      updated_at: null,
    }));
    return trigger as unknown as CheckGroupTrigger;
  });
}
