/**
 * Rules of status pages (`/v1/status-pages`). The service stores a page and serves it through the
 * API; public-pages/ renders it for visitors. Pages live in the read side's `status_pages` table
 * beside the pages `--seed` writes, so subscriptions and incident notices work the same for both.
 *
 * - `url` and `customDomain` each name one page across the whole service, not per account, since a
 *   page is reached by that name alone: a value another page holds, another tenant's included, is a
 *   conflict. Both are stored in lower case (the schema lower-cases them).
 * - A card shows services of the page's account, each at most once; another tenant's service id
 *   reads as missing.
 * - A card keeps its id across updates when the body names it by id or, without one, by its name, so
 *   a page applied again from code does not get new card ids each time.
 */
import type { StatusPageCardInput, StatusPageCreate, StatusPageUpdate } from '@vigil/schema';
import type { PagesStore, StatusPageCardDoc, StatusPageDoc, StatusPageNameColumn } from '../readside/pages-store.js';
import { uuidV7 } from '../store/sqlite/collection.js';
import type { Store } from '../store/index.js';
import { mergeUpdate } from './documents.js';
import { conflict, invalid, notFound } from './errors.js';

const NAME_COLUMNS: ReadonlyArray<readonly ['url' | 'customDomain', StatusPageNameColumn]> = [
  ['url', 'url'],
  ['customDomain', 'custom_domain'],
];

/** Fields a page read back always has, for pages stored without them (from `--seed`). */
const PRESENT_DEFAULTS = {
  description: null,
  url: '',
  customDomain: null,
  themeColors: null,
  logo: null,
  logoDark: null,
  redirectTo: null,
  favicon: null,
  defaultTheme: 'AUTO',
  isPrivate: false,
} as const;

export interface StatusPageDeps {
  readonly store: Store;
  readonly pages: PagesStore;
}

export function getStatusPage({ pages }: StatusPageDeps, accountId: string, id: string): StatusPageDoc {
  const page = pages.statusPage(accountId, id);
  if (!page) throw notFound('Status page', id);
  return page;
}

export function createStatusPage(deps: StatusPageDeps, accountId: string, body: StatusPageCreate, now = new Date()): StatusPageDoc {
  assertServicesExist(deps.store, accountId, body.cards);
  refuseTaken(deps.pages, body, undefined);
  const at = now.toISOString();
  const page: StatusPageDoc = { ...body, id: uuidV7(now.getTime()), accountId, cards: matchCards(body.cards, [], at), created_at: at, updated_at: null };
  deps.pages.saveStatusPage(accountId, page);
  return page;
}

/** PUT: `name`, `url` and `cards` replace the stored ones; the other fields sent replace theirs, the rest stay. */
export function updateStatusPage(deps: StatusPageDeps, accountId: string, id: string, body: StatusPageUpdate, now = new Date()): StatusPageDoc {
  const stored = getStatusPage(deps, accountId, id);
  assertServicesExist(deps.store, accountId, body.cards);
  const at = now.toISOString();
  const merged = mergeUpdate(stored, body) as StatusPageDoc;
  merged.cards = matchCards(body.cards, stored.cards ?? [], at);
  merged.updated_at = at;
  refuseTaken(deps.pages, merged, { accountId, id });
  deps.pages.saveStatusPage(accountId, merged);
  return merged;
}

/** Deletes the page and its subscriptions. */
export function deleteStatusPage(deps: StatusPageDeps, accountId: string, id: string): void {
  getStatusPage(deps, accountId, id);
  deps.pages.deleteStatusPage(accountId, id);
}

/** The page as the API answers: every field present, each card's services in full (one deleted since is left out). */
export function presentStatusPage({ store }: StatusPageDeps, accountId: string, page: StatusPageDoc): Record<string, unknown> {
  const cards = (page.cards ?? []).map((card) => ({
    id: card.id ?? '',
    name: card.name,
    services: card.services.flatMap((ref) => {
      const service = store.services.get(accountId, ref.id);
      return service ? [{ id: String(service.id), name: service['name'], accountId, created_at: service['created_at'], updated_at: service['updated_at'] ?? null }] : [];
    }),
    created_at: card.created_at ?? page['created_at'] ?? '',
    updated_at: card.updated_at ?? null,
  }));
  return { ...PRESENT_DEFAULTS, ...page, accountId, cards };
}

/** Refuses a service id the account does not have, and a service a card lists twice, naming the field. */
function assertServicesExist(store: Store, accountId: string, cards: readonly StatusPageCardInput[]): void {
  cards.forEach((card, cardIndex) => {
    const seen = new Set<string>();
    card.services.forEach((ref, index) => {
      const field = `cards[${cardIndex}].services[${index}].id`;
      const keys = [`cards.${cardIndex}.services.${index}.id`];
      if (!store.services.get(accountId, ref.id)) throw invalid(`"${field}" references status-page service ${ref.id}, which does not exist`, keys);
      if (seen.has(ref.id)) throw invalid(`"${field}" lists status-page service ${ref.id} a second time on card "${card.name}"`, keys);
      seen.add(ref.id);
    });
  });
}

/** The stored cards for `cards`: each keeps the id and creation time of the stored card it names by id, else by name. */
function matchCards(cards: readonly StatusPageCardInput[], stored: readonly StatusPageCardDoc[], at: string): StatusPageCardDoc[] {
  const unclaimed = [...stored];
  return cards.map((card, index) => {
    let match: StatusPageCardDoc | undefined;
    if (card.id !== undefined) {
      match = unclaimed.find((each) => each.id === card.id);
      if (!match) throw invalid(`"cards[${index}].id" ${card.id} is not a card of this status page; leave it out to add a card`, [`cards.${index}.id`]);
    } else {
      match = unclaimed.find((each) => each.id !== undefined && each.name === card.name);
    }
    if (match) unclaimed.splice(unclaimed.indexOf(match), 1);
    const services = card.services.map((ref) => ({ id: ref.id }));
    if (!match) return { id: uuidV7(), name: card.name, services, created_at: at, updated_at: null };
    const same = match.name === card.name && JSON.stringify(match.services) === JSON.stringify(services);
    return { id: match.id!, name: card.name, services, created_at: match.created_at ?? at, updated_at: same ? (match.updated_at ?? null) : at };
  });
}

/** A conflict when another page of the service (`self` excepted) holds the page's url or customDomain. */
function refuseTaken(pages: PagesStore, page: Record<string, unknown>, self: { accountId: string; id: string } | undefined): void {
  for (const [field, column] of NAME_COLUMNS) {
    const value = page[field];
    if (typeof value !== 'string' || value === '') continue;
    const holder = pages.statusPageHolding(column, value.toLowerCase());
    if (holder !== undefined && !(self !== undefined && holder.accountId === self.accountId && holder.id === self.id)) {
      throw conflict(`${field} ${JSON.stringify(value)} is already taken by another status page`);
    }
  }
}
