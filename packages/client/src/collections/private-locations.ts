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
    /** A new agent key of the location; its `rawKey` is shown in this answer only. */
    createKey: (id: string) => caller.call('privateLocations.createKey', { params: { id } }),
    listKeys: (id: string) => caller.call('privateLocations.listKeys', { params: { id } }),
    /** Revokes the key: agents presenting it are refused from now on. */
    deleteKey: (id: string, keyId: string) => caller.call('privateLocations.deleteKey', { params: { id, keyId } }),
  };
}

export type PrivateLocationsApi = ReturnType<typeof privateLocationsApi>;
