/**
 * `GET /v1/checks/heartbeats/{checkId}/events`: one record with a heartbeat check's pings in the
 * window (default the last 24 hours) and its success statistics. Rules: readside/heartbeats.ts.
 * A read over the storage ports (the heartbeat-pings port's `ofCheck`).
 *
 * Paging applies to the events inside the record (`limit` ≤ 10, `page`), so the paging headers count
 * events: `total` is the number of events in the window.
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { badRequest } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import { heartbeatRecord, pingsRead, type HeartbeatEvent } from '../readside/heartbeats.js';
import { heartbeatWindow, inWindow } from '../readside/windows.js';
import type { RouteContext } from './index.js';
import { checkOfType } from './typed-checks.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  ctx.routeUnit(ENDPOINTS['heartbeats.listEvents'], async ({ tx, account, params, query }) => {
    await checkOfType(tx, account.id, params.checkId, 'HEARTBEAT', 'Heartbeat check');
    const now = Date.now();
    const window = heartbeatWindow({
      startTime: query.startTime === undefined ? undefined : Date.parse(query.startTime),
      endTime: query.endTime === undefined ? undefined : Date.parse(query.endTime),
      now,
    });
    if (window.to <= window.from) {
      throw badRequest('"endTime" must be later than "startTime"', { source: 'query', keys: ['endTime'] });
    }
    const events: HeartbeatEvent[] = [];
    for (const range of pingsRead(window, now)) {
      for (const ping of await tx.heartbeatPings.ofCheck(account.id, params.checkId, range.from, range.to)) events.push(JSON.parse(ping.doc) as HeartbeatEvent);
    }
    const inRange = events.filter((event) => inWindow(Date.parse(event.timestamp), window)).length;
    const record = heartbeatRecord(events, { window, limit: query.limit, page: query.page, now });
    return { items: [record], total: inRange };
  });
}
