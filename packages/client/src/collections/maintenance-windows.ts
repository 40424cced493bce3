import type { EndpointBody, EndpointQuery } from '@vigil/schema';
import type { CreateOptions, EndpointCaller } from '../caller.js';

export function maintenanceWindowsApi(caller: EndpointCaller) {
  return {
    list: (query: EndpointQuery<'maintenanceWindows.list'> = {}) => caller.call('maintenanceWindows.list', { query }),
    listAll: () => caller.listAll('maintenanceWindows.list'),
    get: (id: number) => caller.call('maintenanceWindows.get', { params: { id } }),
    create: (body: EndpointBody<'maintenanceWindows.create'>, options: CreateOptions = {}) =>
      caller.call('maintenanceWindows.create', { body, idempotencyKey: options.idempotencyKey }),
    update: (id: number, body: EndpointBody<'maintenanceWindows.update'>) =>
      caller.call('maintenanceWindows.update', { params: { id }, body }),
    delete: (id: number) => caller.call('maintenanceWindows.delete', { params: { id } }),
  };
}

export type MaintenanceWindowsApi = ReturnType<typeof maintenanceWindowsApi>;
