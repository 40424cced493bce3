import type { EndpointBody, EndpointQuery } from '@vigil/schema';
import type { CreateOptions, EndpointCaller } from '../caller.js';

/** Status pages themselves (by their `statusPageId`), and their services, incidents, incident updates and subscriptions. */
export function statusPagesApi(caller: EndpointCaller) {
  return {
    /** Oldest first; pass the page's `nextId` back to get the next one. */
    list: (query: EndpointQuery<'statusPages.list'> = {}) => caller.call('statusPages.list', { query }),
    listAll: () => caller.listAll('statusPages.list'),
    get: (statusPageId: string) => caller.call('statusPages.get', { params: { statusPageId } }),
    create: (body: EndpointBody<'statusPages.create'>, options: CreateOptions = {}) =>
      caller.call('statusPages.create', { body, idempotencyKey: options.idempotencyKey }),
    /** `name`, `url` and `cards` are required; the other fields left out keep their values. */
    update: (statusPageId: string, body: EndpointBody<'statusPages.update'>) => caller.call('statusPages.update', { params: { statusPageId }, body }),
    delete: (statusPageId: string) => caller.call('statusPages.delete', { params: { statusPageId } }),
    services: {
      list: (query: EndpointQuery<'statusPageServices.list'> = {}) => caller.call('statusPageServices.list', { query }),
      listAll: () => caller.listAll('statusPageServices.list'),
      get: (id: string) => caller.call('statusPageServices.get', { params: { id } }),
      create: (body: EndpointBody<'statusPageServices.create'>, options: CreateOptions = {}) =>
        caller.call('statusPageServices.create', { body, idempotencyKey: options.idempotencyKey }),
      update: (id: string, body: EndpointBody<'statusPageServices.update'>) =>
        caller.call('statusPageServices.update', { params: { id }, body }),
      delete: (id: string) => caller.call('statusPageServices.delete', { params: { id } }),
    },
    incidents: {
      /** The latest incidents first; pass the page's `nextId` back to get the next one. */
      list: (query: EndpointQuery<'incidents.list'> = {}) => caller.call('incidents.list', { query }),
      get: (incidentId: string) => caller.call('incidents.get', { params: { incidentId } }),
      create: (body: EndpointBody<'incidents.create'>, options: CreateOptions = {}) =>
        caller.call('incidents.create', { body, idempotencyKey: options.idempotencyKey }),
      update: (incidentId: string, body: EndpointBody<'incidents.update'>) => caller.call('incidents.update', { params: { incidentId }, body }),
      /** Changes only the fields sent (like `update`). */
      patch: (incidentId: string, body: EndpointBody<'incidents.patch'>) => caller.call('incidents.patch', { params: { incidentId }, body }),
      delete: (incidentId: string) => caller.call('incidents.delete', { params: { incidentId } }),
    },
    incidentUpdates: {
      /** Posts a status update; the incident's `lastUpdateStatus` follows it. */
      create: (incidentId: string, body: EndpointBody<'incidentUpdates.create'>, options: CreateOptions = {}) =>
        caller.call('incidentUpdates.create', { params: { incidentId }, body, idempotencyKey: options.idempotencyKey }),
    },
    subscriptions: {
      list: (statusPageId: string, query: EndpointQuery<'subscriptions.list'> = {}) =>
        caller.call('subscriptions.list', { params: { statusPageId }, query }),
      listAll: (statusPageId: string) => caller.listAll('subscriptions.list', { params: { statusPageId } }),
    },
  };
}

export type StatusPagesApi = ReturnType<typeof statusPagesApi>;
