/** Heartbeat events: `GET /v1/checks/heartbeats/{checkId}/events`. */
import { z } from 'zod';
import { DateTimeString } from './helpers.js';
import { HeartbeatPageQuery } from './paging.js';
import { HeartbeatEventState } from './values.js';

/** Query; the server fills the window (`startTime` = now − 24 h, `endTime` = now). */
export const HeartbeatEventsQuery = HeartbeatPageQuery.extend({
  startTime: DateTimeString.optional(),
  endTime: DateTimeString.optional(),
});
export type HeartbeatEventsQuery = z.infer<typeof HeartbeatEventsQuery>;

export const HeartbeatEvent = z.object({
  id: z.string(),
  state: HeartbeatEventState,
  timestamp: z.string(),
  source: z.string(),
  userAgent: z.string(),
});
export type HeartbeatEvent = z.infer<typeof HeartbeatEvent>;

const PeriodStats = z.object({
  successRatio: z.object({ previousPeriod: z.number(), currentPeriod: z.number() }),
  totalEntitiesCurrentPeriod: z.number(),
});

export const HeartbeatEventRecord = z.object({
  events: z.array(HeartbeatEvent),
  stats: z.object({ last24Hours: PeriodStats, last7Days: PeriodStats }),
});
export type HeartbeatEventRecord = z.infer<typeof HeartbeatEventRecord>;
