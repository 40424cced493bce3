import type { EndpointQuery } from '@vigil/schema';
import type { EndpointCaller } from '../caller.js';

type NotificationsFilter = Omit<EndpointQuery<'alertNotifications.list'>, 'page' | 'limit'>;

/** Alert notifications: what the service sent (or is sending) to alert channels, with delivery state. */
export function alertNotificationsApi(caller: EndpointCaller) {
  return {
    /** One page (default window: the last 24 hours). */
    list: (query: EndpointQuery<'alertNotifications.list'> = {}) => caller.call('alertNotifications.list', { query }),
    listAll: (filter: NotificationsFilter = {}) => caller.listAll('alertNotifications.list', { query: filter }),
  };
}

export type AlertNotificationsApi = ReturnType<typeof alertNotificationsApi>;
