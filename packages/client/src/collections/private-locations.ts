import type { EndpointBody, EndpointQuery } from '@vigil/schema';
import type { CreateOptions, EndpointCaller } from '../caller.js';

export function privateLocationsApi(caller: EndpointCaller) {
  return {
    list: (query: EndpointQuery<'privateLocations.list'> = {}) => caller.call('privateLocations.list', { query }),
    listAll: () => caller.listAll('privateLocations.list'),
    get: (id: string) => caller.call('privateLocations.get', { params: { id } }),
    create: (body: EndpointBody<'privateLocations.create'>, options: CreateOptions = {}) =>
      caller.call('privateLocations.create', { body, idempotencyKey: options.idempotencyKey }),
    update: (id: string, body: EndpointBody<'privateLocations.update'>) => caller.call('privateLocations.update', { params: { id }, body }),
    delete: (id: string) => caller.call('privateLocations.delete', { params: { id } }),
  };
}

export type PrivateLocationsApi = ReturnType<typeof privateLocationsApi>;
