import { DashboardCreate } from '@vigil/schema';
import { ObjectBuilder, fromValue, literal } from '../import/code.js';
import { baselineOf, differs, remoteView } from '../import/context.js';
import { defineAdapter } from './define.js';
import type { MapInput, MappedResource, Payload, RemoteObject } from './types.js';

/** The props written after the names and header, in the construct's order. */
const OPTIONAL_PROPS = [
  'description', 'tags', 'useTagsAndOperator', 'logo', 'favicon', 'link', 'width', 'refreshRate', 'paginate', 'paginationRate',
  'checksPerPage', 'sortByStatus', 'hideTags', 'enableIncidents', 'expandChecks', 'showHeader', 'showCheckRunLinks',
  'showGroupNames', 'isPrivate', 'showP95', 'showP99',
] as const;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export const dashboardAdapter = defineAdapter({
  kind: 'dashboard',
  schemaFor: () => DashboardCreate,
  endpoints: {
    list: 'dashboards.list',
    create: 'dashboards.create',
    update: 'dashboards.update',
    remove: 'dashboards.delete',
  },
  remoteId: { field: 'dashboardId', param: 'dashboardId' },
  // The service's names for a dashboard are unique, so an interrupted create is recovered by them
  // rather than by a header several dashboards may share.
  nameOf: (payload: Payload) => text(payload.customUrl) || text(payload.customDomain),
  setFields: ['tags'],
  importing: {
    order: 70,
    placement: { file: 'shared', stem: 'dashboards' },
    slugFallback: 'dashboard',
    displayName: (remote) => text(remote.header) || text(remote.customUrl) || text(remote.customDomain),
    map: mapDashboard,
  },
});

function mapDashboard(remote: RemoteObject, { adapter }: MapInput): MappedResource {
  const view = remoteView(adapter, remote);
  const baseline = baselineOf(adapter, { header: '' });
  const props = new ObjectBuilder();
  for (const key of ['customUrl', 'customDomain', 'header'] as const) if (text(view[key]) !== '') props.set(key, literal(text(view[key])));
  for (const key of OPTIONAL_PROPS) if (differs(view[key], baseline[key])) props.set(key, fromValue(view[key]));
  if (text(view.customCSS) !== '') props.set('customCSS', fromValue({ content: view.customCSS }));
  return { construct: 'Dashboard', props: props.build(), extraKeys: [] };
}
