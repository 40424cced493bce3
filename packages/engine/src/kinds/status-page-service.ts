import { StatusPageServiceCreate } from '@vigil/schema';
import { ObjectBuilder, literal } from '../import/code.js';
import { defineAdapter } from './define.js';
import type { MappedResource, RemoteObject } from './types.js';

export const statusPageServiceAdapter = defineAdapter({
  kind: 'status-page-service',
  schemaFor: () => StatusPageServiceCreate,
  endpoints: {
    list: 'statusPageServices.list',
    create: 'statusPageServices.create',
    update: 'statusPageServices.update',
    remove: 'statusPageServices.delete',
  },
  importing: {
    order: 20,
    placement: { file: 'shared', stem: 'status-page-services' },
    slugFallback: 'status-page-service',
    variableSuffix: 'Service',
    fromIdClass: 'StatusPageService',
    map: mapStatusPageService,
  },
});

function mapStatusPageService(remote: RemoteObject): MappedResource {
  return { construct: 'StatusPageService', props: new ObjectBuilder().set('name', literal(String(remote.name))).build(), extraKeys: [] };
}
