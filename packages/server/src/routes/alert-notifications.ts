/**
 * `GET /v1/alert-notifications` (real API): the account's notifications, with their delivery state.
 * Window defaults as the real service documents them (24 hours); like check results, a longer
 * explicit window is served and only an empty or inverted one (`to` <= `from`) is a 400.
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { NotificationLog } from '../alerting/notifications.js';
import { badRequest } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import type { RouteContext } from './index.js';

const DAY_S = 24 * 60 * 60;

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const log = new NotificationLog(ctx.repositories.ports.outbox);

  ctx.route(ENDPOINTS['alertNotifications.list'], async ({ account, query }) => {
    if (query.from !== undefined && query.to !== undefined && query.to <= query.from) {
      throw badRequest('"to" must be greater than "from"', { source: 'query', keys: ['to'] });
    }
    const nowS = Date.now() / 1000;
    const toS = query.to ?? (query.from !== undefined ? query.from + DAY_S : nowS + 1);
    // A default window reaching before 1970 starts there: no notification is older, and the port takes no negative moments.
    const fromS = query.from ?? Math.max(0, toS - DAY_S);
    return log.list(
      account.id,
      { fromMs: fromS * 1000, toMs: toS * 1000, alertChannelId: query.alertChannelId, hasFailures: query.hasFailures },
      { page: query.page, limit: query.limit },
    );
  });
}
