import type { EndpointBody, EndpointQuery } from '@vigil/schema';
import { autoAssignQuery, type CreateOptions, type EndpointCaller, type WriteOptions } from '../caller.js';

/** Check groups: created and updated through v2, read and deleted through v1. */
export function checkGroupsApi(caller: EndpointCaller) {
  return {
    list: (query: EndpointQuery<'checkGroups.list'> = {}) => caller.call('checkGroups.list', { query }),
    listAll: () => caller.listAll('checkGroups.list'),
    get: (id: number) => caller.call('checkGroups.get', { params: { id } }),
    create: (body: EndpointBody<'checkGroups.create'>, options: CreateOptions & WriteOptions = {}) =>
      caller.call('checkGroups.create', { body, query: autoAssignQuery(options), idempotencyKey: options.idempotencyKey }),
    /** Merge update (`PUT /v2/check-groups/{id}`); `name` is required. */
    update: (id: number, body: EndpointBody<'checkGroups.update'>, options: WriteOptions = {}) =>
      caller.call('checkGroups.update', { params: { id }, body, query: autoAssignQuery(options) }),
    /** Fails with `ConflictError` while the group still holds checks. */
    delete: (id: number) => caller.call('checkGroups.delete', { params: { id } }),
  };
}

export type CheckGroupsApi = ReturnType<typeof checkGroupsApi>;
