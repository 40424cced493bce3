import { HEARTBEAT_LIMIT_MAX, type EndpointQuery } from '@vigil/schema';
import type { EndpointCaller } from '../caller.js';

type EventsFilter = Omit<EndpointQuery<'heartbeats.listEvents'>, 'page' | 'limit'>;

/** Events received by a heartbeat check (default window: the last 24 hours). */
export function heartbeatsApi(caller: EndpointCaller) {
  return {
    listEvents: (checkId: string, query: EndpointQuery<'heartbeats.listEvents'> = {}) =>
      caller.call('heartbeats.listEvents', { params: { checkId }, query }),
    /** Every event record, in pages of 10: the service caps this endpoint's `limit` at 10. */
    listAllEvents: (checkId: string, filter: EventsFilter = {}) =>
      caller.listAll('heartbeats.listEvents', { params: { checkId }, query: filter }, { pageSize: HEARTBEAT_LIMIT_MAX }),
  };
}

export type HeartbeatsApi = ReturnType<typeof heartbeatsApi>;
