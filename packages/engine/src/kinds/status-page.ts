import { StatusPageCreate } from '@vigil/schema';
import { ObjectBuilder, fromValue, literal, type Code } from '../import/code.js';
import { baselineOf, differs, remoteView } from '../import/context.js';
import { defineAdapter } from './define.js';
import type { MapContext, MapInput, MappedResource, Payload, RemoteObject } from './types.js';

/** The props written after name, url and cards, in the construct's order. */
const OPTIONAL_PROPS = ['customDomain', 'description', 'logo', 'logoDark', 'redirectTo', 'favicon', 'defaultTheme', 'themeColors'] as const;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

interface CardView {
  name: string;
  services: Array<{ id: string }>;
}

/**
 * The service answers cards with their ids, timestamps and services in full; the code knows a card
 * by its place in the list and a service by its id alone. So cards compare as an ordered list of
 * `{ name, services: [{ id }] }`, and a service renamed elsewhere changes no page.
 */
function prepareStatusPage(remote: RemoteObject): RemoteObject {
  if (!Array.isArray(remote.cards)) return remote;
  const cards = (remote.cards as Array<Record<string, unknown>>).map((card) => ({
    name: card.name,
    services: Array.isArray(card.services) ? (card.services as Array<Record<string, unknown>>).map((service) => ({ id: service.id })) : [],
  }));
  return { ...remote, cards };
}

export const statusPageAdapter = defineAdapter({
  kind: 'status-page',
  schemaFor: () => StatusPageCreate,
  endpoints: {
    list: 'statusPages.list',
    create: 'statusPages.create',
    update: 'statusPages.update',
    remove: 'statusPages.delete',
  },
  remoteId: { field: 'id', param: 'statusPageId' },
  // The url is unique across the service, so an interrupted create is recovered by it rather than
  // by a name several pages may share.
  nameOf: (payload: Payload) => text(payload.url),
  prepareRemote: prepareStatusPage,
  importing: {
    // After the services its cards refer to.
    order: 75,
    placement: { file: 'shared', stem: 'status-pages' },
    slugFallback: 'status-page',
    displayName: (remote) => text(remote.name) || text(remote.url),
    map: mapStatusPage,
  },
});

function cardCode(card: CardView, context: MapContext): Code {
  const props = new ObjectBuilder().set('name', literal(card.name));
  if (card.services.length > 0) props.set('services', { type: 'array', items: card.services.map((service) => context.ref('status-page-service', service.id)) });
  return props.build();
}

function mapStatusPage(remote: RemoteObject, { adapter, context }: MapInput): MappedResource {
  const view = remoteView(adapter, remote);
  const baseline = baselineOf(adapter, { name: 'x', url: 'x', cards: [] });
  const cards = (Array.isArray(view.cards) ? view.cards : []) as CardView[];
  const props = new ObjectBuilder()
    .set('name', literal(text(view.name)))
    .set('url', literal(text(view.url)))
    .set('cards', { type: 'array', items: cards.map((card) => cardCode(card, context)) });
  for (const key of OPTIONAL_PROPS) if (differs(view[key], baseline[key])) props.set(key, fromValue(view[key]));
  return { construct: 'StatusPage', props: props.build(), extraKeys: [] };
}
