import { MaintenanceWindowCreate } from '@vigil/schema';
import { ObjectBuilder, fromValue, literal } from '../import/code.js';
import { baselineOf, differs, remoteView } from '../import/context.js';
import { defineAdapter } from './define.js';
import type { MapInput, MappedResource, RemoteObject } from './types.js';

export const maintenanceWindowAdapter = defineAdapter({
  kind: 'maintenance-window',
  schemaFor: () => MaintenanceWindowCreate,
  endpoints: {
    list: 'maintenanceWindows.list',
    create: 'maintenanceWindows.create',
    update: 'maintenanceWindows.update',
    remove: 'maintenanceWindows.delete',
  },
  setFields: ['tags'],
  importing: { order: 30, placement: { file: 'shared', stem: 'maintenance-windows' }, slugFallback: 'maintenance-window', map: mapMaintenanceWindow },
});

function mapMaintenanceWindow(remote: RemoteObject, { adapter }: MapInput): MappedResource {
  const view = remoteView(adapter, remote);
  const baseline = baselineOf(adapter, { name: 'x', startsAt: view.startsAt, endsAt: view.endsAt, repeatUnit: view.repeatUnit });
  const props = new ObjectBuilder().set('name', literal(String(view.name)));
  if (differs(view.tags, baseline.tags)) props.set('tags', fromValue(view.tags));
  for (const key of ['startsAt', 'endsAt', 'repeatUnit'] as const) props.set(key, fromValue(view[key]));
  for (const key of ['repeatInterval', 'repeatEndsAt', 'timezone', 'pauseAllChecks', 'silenceAllAlerts'] as const) if (differs(view[key], baseline[key])) props.set(key, fromValue(view[key]));
  return { construct: 'MaintenanceWindow', props: props.build(), extraKeys: [] };
}
