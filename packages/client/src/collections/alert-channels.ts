import type { EndpointBody, EndpointQuery } from '@vigil/schema';
import type { CreateOptions, EndpointCaller } from '../caller.js';

/** Alert channels; `config` is typed per channel `type`. */
export function alertChannelsApi(caller: EndpointCaller) {
  return {
    list: (query: EndpointQuery<'alertChannels.list'> = {}) => caller.call('alertChannels.list', { query }),
    listAll: () => caller.listAll('alertChannels.list'),
    get: (id: number) => caller.call('alertChannels.get', { params: { id } }),
    create: (body: EndpointBody<'alertChannels.create'>, options: CreateOptions = {}) =>
      caller.call('alertChannels.create', { body, idempotencyKey: options.idempotencyKey }),
    update: (id: number, body: EndpointBody<'alertChannels.update'>) => caller.call('alertChannels.update', { params: { id }, body }),
    delete: (id: number) => caller.call('alertChannels.delete', { params: { id } }),
  };
}

export type AlertChannelsApi = ReturnType<typeof alertChannelsApi>;
