import { ENDPOINTS, type EndpointId, type EndpointResponse, type Endpoints } from '@vigil/schema';
import { callEndpointData, listAllOf, type CallInput, type ItemOf } from './endpoint.js';
import type { PageOptions } from './paging.js';
import type { Transport } from './transport.js';

/** Options of a call that writes a check or a group. */
export interface WriteOptions {
  /**
   * Subscribe the check to every alert channel of the account. The service defaults to true; vigil
   * defaults to false, because a managed check's subscriptions are what its code says, nothing more.
   */
  autoAssignAlerts?: boolean | undefined;
}

/** Options of a create. */
export interface CreateOptions {
  /**
   * The `Idempotency-Key` to send. Generate it with `newIdempotencyKey()` and journal it before the
   * call: repeating the create with the same key after a crash returns the original resource instead
   * of a duplicate. A fresh key is generated when absent.
   */
  idempotencyKey?: string | undefined;
}

/** Calls endpoints of `ENDPOINTS` by id; every collection module is a thin, typed layer over this. */
export class EndpointCaller {
  constructor(readonly transport: Transport) {}

  call<Id extends EndpointId>(id: Id, input: CallInput<Endpoints[Id]> = {}): Promise<EndpointResponse<Id>> {
    return callEndpointData(this.transport, id, ENDPOINTS[id], input) as Promise<EndpointResponse<Id>>;
  }

  listAll<Id extends EndpointId>(
    id: Id,
    input: Omit<CallInput<Endpoints[Id]>, 'body' | 'idempotencyKey'> = {},
    options: PageOptions = {},
  ): AsyncGenerator<ItemOf<Endpoints[Id]>, void, undefined> {
    return listAllOf(this.transport, id, ENDPOINTS[id], input, options);
  }
}

/** `autoAssignAlerts=false` unless the caller asks otherwise. */
export function autoAssignQuery(options: WriteOptions | undefined): { autoAssignAlerts: boolean } {
  return { autoAssignAlerts: options?.autoAssignAlerts ?? false };
}
