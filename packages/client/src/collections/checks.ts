import type { EndpointBody, EndpointQuery } from '@vigil/schema';
import { autoAssignQuery, type CreateOptions, type EndpointCaller, type WriteOptions } from '../caller.js';

type ListFilter = Omit<EndpointQuery<'checks.list'>, 'page' | 'limit'>;

/** Checks: the typed create and update of each check type, generic (`/v1/checks`) ones, list, read and delete. */
export function checksApi(caller: EndpointCaller) {
  return {
    /** One page (`limit` 1..100, `page` from 1), optionally filtered by `tag` / `checkType`. */
    list: (query: EndpointQuery<'checks.list'> = {}) => caller.call('checks.list', { query }),
    /** Every check, in pages of 100. */
    listAll: (filter: ListFilter = {}) => caller.listAll('checks.list', { query: filter }),
    get: (id: string) => caller.call('checks.get', { params: { id } }),
    createApi: (body: EndpointBody<'checks.createApi'>, options: CreateOptions & WriteOptions = {}) =>
      caller.call('checks.createApi', { body, query: autoAssignQuery(options), idempotencyKey: options.idempotencyKey }),
    createMultiStep: (body: EndpointBody<'checks.createMultiStep'>, options: CreateOptions & WriteOptions = {}) =>
      caller.call('checks.createMultiStep', { body, query: autoAssignQuery(options), idempotencyKey: options.idempotencyKey }),
    createDns: (body: EndpointBody<'checks.createDns'>, options: CreateOptions & WriteOptions = {}) =>
      caller.call('checks.createDns', { body, query: autoAssignQuery(options), idempotencyKey: options.idempotencyKey }),
    createTcp: (body: EndpointBody<'checks.createTcp'>, options: CreateOptions & WriteOptions = {}) =>
      caller.call('checks.createTcp', { body, query: autoAssignQuery(options), idempotencyKey: options.idempotencyKey }),
    createUrl: (body: EndpointBody<'checks.createUrl'>, options: CreateOptions & WriteOptions = {}) =>
      caller.call('checks.createUrl', { body, query: autoAssignQuery(options), idempotencyKey: options.idempotencyKey }),
    createSsl: (body: EndpointBody<'checks.createSsl'>, options: CreateOptions & WriteOptions = {}) =>
      caller.call('checks.createSsl', { body, query: autoAssignQuery(options), idempotencyKey: options.idempotencyKey }),
    createIcmp: (body: EndpointBody<'checks.createIcmp'>, options: CreateOptions & WriteOptions = {}) =>
      caller.call('checks.createIcmp', { body, query: autoAssignQuery(options), idempotencyKey: options.idempotencyKey }),
    createTraceroute: (body: EndpointBody<'checks.createTraceroute'>, options: CreateOptions & WriteOptions = {}) =>
      caller.call('checks.createTraceroute', { body, query: autoAssignQuery(options), idempotencyKey: options.idempotencyKey }),
    createGrpc: (body: EndpointBody<'checks.createGrpc'>, options: CreateOptions & WriteOptions = {}) =>
      caller.call('checks.createGrpc', { body, query: autoAssignQuery(options), idempotencyKey: options.idempotencyKey }),
    createHeartbeat: (body: EndpointBody<'checks.createHeartbeat'>, options: CreateOptions & WriteOptions = {}) =>
      caller.call('checks.createHeartbeat', { body, query: autoAssignQuery(options), idempotencyKey: options.idempotencyKey }),
    createBrowser: (body: EndpointBody<'checks.createBrowser'>, options: CreateOptions & WriteOptions = {}) =>
      caller.call('checks.createBrowser', { body, query: autoAssignQuery(options), idempotencyKey: options.idempotencyKey }),
    createPlaywright: (body: EndpointBody<'checks.createPlaywright'>, options: CreateOptions & WriteOptions = {}) =>
      caller.call('checks.createPlaywright', { body, query: autoAssignQuery(options), idempotencyKey: options.idempotencyKey }),
    /** The generic create: any `checkType`; answers only `{id, checkType}`. */
    create: (body: EndpointBody<'checks.create'>, options: CreateOptions & WriteOptions = {}) =>
      caller.call('checks.create', { body, query: autoAssignQuery(options), idempotencyKey: options.idempotencyKey }),
    /** Merge update: omitted fields stay as they are. */
    updateApi: (id: string, body: EndpointBody<'checks.updateApi'>, options: WriteOptions = {}) =>
      caller.call('checks.updateApi', { params: { id }, body, query: autoAssignQuery(options) }),
    updateMultiStep: (id: string, body: EndpointBody<'checks.updateMultiStep'>, options: WriteOptions = {}) =>
      caller.call('checks.updateMultiStep', { params: { id }, body, query: autoAssignQuery(options) }),
    updateDns: (id: string, body: EndpointBody<'checks.updateDns'>, options: WriteOptions = {}) =>
      caller.call('checks.updateDns', { params: { id }, body, query: autoAssignQuery(options) }),
    updateTcp: (id: string, body: EndpointBody<'checks.updateTcp'>, options: WriteOptions = {}) =>
      caller.call('checks.updateTcp', { params: { id }, body, query: autoAssignQuery(options) }),
    updateUrl: (id: string, body: EndpointBody<'checks.updateUrl'>, options: WriteOptions = {}) =>
      caller.call('checks.updateUrl', { params: { id }, body, query: autoAssignQuery(options) }),
    updateSsl: (id: string, body: EndpointBody<'checks.updateSsl'>, options: WriteOptions = {}) =>
      caller.call('checks.updateSsl', { params: { id }, body, query: autoAssignQuery(options) }),
    updateIcmp: (id: string, body: EndpointBody<'checks.updateIcmp'>, options: WriteOptions = {}) =>
      caller.call('checks.updateIcmp', { params: { id }, body, query: autoAssignQuery(options) }),
    updateTraceroute: (id: string, body: EndpointBody<'checks.updateTraceroute'>, options: WriteOptions = {}) =>
      caller.call('checks.updateTraceroute', { params: { id }, body, query: autoAssignQuery(options) }),
    updateGrpc: (id: string, body: EndpointBody<'checks.updateGrpc'>, options: WriteOptions = {}) =>
      caller.call('checks.updateGrpc', { params: { id }, body, query: autoAssignQuery(options) }),
    updateHeartbeat: (id: string, body: EndpointBody<'checks.updateHeartbeat'>, options: WriteOptions = {}) =>
      caller.call('checks.updateHeartbeat', { params: { id }, body, query: autoAssignQuery(options) }),
    updateBrowser: (id: string, body: EndpointBody<'checks.updateBrowser'>, options: WriteOptions = {}) =>
      caller.call('checks.updateBrowser', { params: { id }, body, query: autoAssignQuery(options) }),
    updatePlaywright: (id: string, body: EndpointBody<'checks.updatePlaywright'>, options: WriteOptions = {}) =>
      caller.call('checks.updatePlaywright', { params: { id }, body, query: autoAssignQuery(options) }),
    update: (id: string, body: EndpointBody<'checks.update'>, options: WriteOptions = {}) =>
      caller.call('checks.update', { params: { id }, body, query: autoAssignQuery(options) }),
    delete: (id: string) => caller.call('checks.delete', { params: { id } }),
  };
}

export type ChecksApi = ReturnType<typeof checksApi>;
