/**
 * Most kinds differ only in their schema and endpoints; `defineAdapter` builds the calls from those,
 * so each kind's file states just what is particular to it.
 */
import type { ResourceKind } from '@vigil/constructs';
import type { EndpointId } from '@vigil/schema';
import type { z } from 'zod';
import type { RemoteId } from '../state/types.js';
import type { ImportSpec, KindAdapter, Payload, RemoteObject, ServiceCalls } from './types.js';

export interface AdapterDefinition {
  readonly kind: ResourceKind;
  /** See {@link KindAdapter.isCheck}; default false. */
  readonly isCheck?: boolean;
  readonly importing: ImportSpec;
  readonly schemaFor: (payload: Payload) => z.ZodObject;
  readonly endpoints: {
    readonly list: EndpointId;
    readonly create: EndpointId;
    readonly update: EndpointId;
    readonly remove: EndpointId;
  };
  /** Extra query for the list call (checks are filtered by type). */
  readonly listQuery?: Readonly<Record<string, unknown>>;
  /** Check and group writes subscribe to every alert channel unless told not to. */
  readonly sendsAutoAssignAlerts?: boolean;
  readonly setFields?: readonly string[];
  readonly replaceOn?: readonly string[];
  readonly prepareRemote?: (remote: RemoteObject) => RemoteObject;
  /**
   * Where the id the kind's paths take is: the remote object's field and the path parameter's name.
   * Default `id` for both; a dashboard is addressed by its `dashboardId`, not its numeric `id`.
   */
  readonly remoteId?: { readonly field: string; readonly param: string };
  /** See {@link KindAdapter.nameOf}; default the payload's `name`. */
  readonly nameOf?: (payload: Payload) => string;
}

function asRemote(value: unknown, what: string): RemoteObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`the service answered ${what} with ${JSON.stringify(value)}, not an object; this is a bug in the service or in vigil`);
  }
  return value as RemoteObject;
}

export function defineAdapter(definition: AdapterDefinition): KindAdapter {
  const { endpoints, kind } = definition;
  const { field: idField, param: idParam } = definition.remoteId ?? { field: 'id', param: 'id' };
  const writeQuery = definition.sendsAutoAssignAlerts ? { autoAssignAlerts: false } : undefined;
  return {
    kind,
    isCheck: definition.isCheck ?? false,
    importing: definition.importing,
    schemaFor: definition.schemaFor,
    setFields: definition.setFields ?? [],
    replaceOn: definition.replaceOn ?? [],
    ...(definition.prepareRemote ? { prepareRemote: definition.prepareRemote } : {}),
    remoteIdOf(remote: RemoteObject): RemoteId {
      const id = remote[idField];
      if (typeof id !== 'string' && typeof id !== 'number') throw new Error(`a ${kind} from the service has no ${idField}; this is a bug in the service`);
      return id;
    },
    nameOf: definition.nameOf ?? ((payload: Payload): string => (typeof payload.name === 'string' ? payload.name : '')),
    async *list(api: ServiceCalls): AsyncIterable<RemoteObject> {
      for await (const item of api.listAll(endpoints.list, definition.listQuery ? { query: definition.listQuery } : {})) {
        yield asRemote(item, `a ${kind} list`);
      }
    },
    async create(api, payload, options) {
      const created = await api.call(endpoints.create, { body: payload, idempotencyKey: options.idempotencyKey, ...(writeQuery ? { query: writeQuery } : {}) });
      return asRemote(created, `the create of a ${kind}`);
    },
    async update(api, remoteId, payload) {
      const updated = await api.call(endpoints.update, { params: { [idParam]: remoteId }, body: payload, ...(writeQuery ? { query: writeQuery } : {}) });
      return asRemote(updated, `the update of a ${kind}`);
    },
    async remove(api, remoteId) {
      await api.call(endpoints.remove, { params: { [idParam]: remoteId } });
    },
  };
}
