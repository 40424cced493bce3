import type { EndpointBody, EndpointQuery } from '@vigil/schema';
import type { CreateOptions, EndpointCaller } from '../caller.js';

/** Dashboards, addressed by their `dashboardId` (not their numeric `id`). */
export function dashboardsApi(caller: EndpointCaller) {
  return {
    list: (query: EndpointQuery<'dashboards.list'> = {}) => caller.call('dashboards.list', { query }),
    listAll: () => caller.listAll('dashboards.list'),
    /** With `query.type`, `dashboardId` is the dashboard's `customUrl` or `customDomain` instead. */
    get: (dashboardId: string, query: EndpointQuery<'dashboards.get'> = {}) => caller.call('dashboards.get', { params: { dashboardId }, query }),
    create: (body: EndpointBody<'dashboards.create'>, options: CreateOptions = {}) =>
      caller.call('dashboards.create', { body, idempotencyKey: options.idempotencyKey }),
    update: (dashboardId: string, body: EndpointBody<'dashboards.update'>) => caller.call('dashboards.update', { params: { dashboardId }, body }),
    delete: (dashboardId: string) => caller.call('dashboards.delete', { params: { dashboardId } }),
  };
}

export type DashboardsApi = ReturnType<typeof dashboardsApi>;
