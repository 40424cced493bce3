import { PrivateLocationCreate } from '@vigil/schema';
import { ObjectBuilder, fromValue, literal } from '../import/code.js';
import { baselineOf, differs, remoteView } from '../import/context.js';
import { defineAdapter } from './define.js';
import type { MapInput, MappedResource, RemoteObject } from './types.js';

export const privateLocationAdapter = defineAdapter({
  kind: 'private-location',
  isCheck: false,
  schemaFor: () => PrivateLocationCreate,
  endpoints: {
    list: 'privateLocations.list',
    create: 'privateLocations.create',
    update: 'privateLocations.update',
    remove: 'privateLocations.delete',
  },
  // The service's update takes no slug: a new slug is a new location.
  replaceOn: ['slugName'],
  importing: {
    order: 15,
    placement: { file: 'shared', stem: 'private-locations' },
    slugFallback: 'private-location',
    variableSuffix: 'Location',
    fromIdClass: 'PrivateLocation',
    map: mapPrivateLocation,
  },
});

function mapPrivateLocation(remote: RemoteObject, { adapter }: MapInput): MappedResource {
  const view = remoteView(adapter, remote);
  const baseline = baselineOf(adapter, { name: 'x', slugName: String(view.slugName) });
  const props = new ObjectBuilder().set('name', literal(String(view.name))).set('slugName', literal(String(view.slugName)));
  for (const key of ['icon', 'proxyUrl'] as const) if (differs(view[key], baseline[key])) props.set(key, fromValue(view[key]));
  return { construct: 'PrivateLocation', props: props.build(), extraKeys: [] };
}
