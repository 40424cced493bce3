/**
 * `GET /v1/checks/heartbeats/{checkId}/events`: one record with a heartbeat check's pings in the
 * window (default the last 24 hours) and its success statistics. Rules: readside/heartbeats.ts.
 *
 * Paging applies to the events inside the record (`limit` ≤ 10, `page`), so the paging headers count
 * events: `total` is the number of events in the window.
 */
import { ENDPOINTS } from '@vigil/schema';
import type { Hono } from 'hono';
import { badRequest, notFound } from '../http/errors.js';
import type { AppEnv } from '../http/types.js';
import { heartbeatRecord } from '../readside/heartbeats.js';
import { heartbeatWindow, inWindow } from '../readside/windows.js';
import type { RouteContext } from './index.js';

export function register(_app: Hono<AppEnv>, ctx: RouteContext): void {
  const { results } = ctx.repositories.readSide;

  ctx.route(ENDPOINTS['heartbeats.listEvents'], ({ account, params, query }) => {
    const check = ctx.store.checks.get(account.id, params.checkId);
    if (!check || check['checkType'] !== 'HEARTBEAT') throw notFound('Heartbeat check', params.checkId);
    const now = Date.now();
    const window = heartbeatWindow({
      startTime: query.startTime === undefined ? undefined : Date.parse(query.startTime),
      endTime: query.endTime === undefined ? undefined : Date.parse(query.endTime),
      now,
    });
    if (window.to <= window.from) {
      throw badRequest('"endTime" must be later than "startTime"', { source: 'query', keys: ['endTime'] });
    }
    const events = results.heartbeatEventsOf(account.id, params.checkId);
    const inRange = events.filter((event) => inWindow(Date.parse(event.timestamp), window)).length;
    const record = heartbeatRecord(events, { window, limit: query.limit, page: query.page, now });
    return { items: [record], total: inRange };
  });
}
