/**
 * Rules of status pages (`/v1/status-pages`). The service stores a page and serves it through the
 * API; public-pages/ renders it for visitors. Each call runs in the route's unit of work, over the
 * status-page port (the same `status_pages` table as the pages `--seed` writes, so subscriptions and
 * incident notices work the same for both) and the documents port for the cards' services.
 *
 * - `url` and `customDomain` each name one page across the whole service, not per account, since a
 *   page is reached by that name alone: a value another page holds, another tenant's included, is a
 *   conflict, also when that page was created by a request running at the same time (the port's
 *   StatusPageNameTaken, from the database's unique index). Both are stored in lower case (the
 *   schema lower-cases them).
 * - A card shows services of the page's account, each at most once; another tenant's service id
 *   reads as missing.
 * - A card keeps its id across updates when the body names it by id or, without one, by its name, so
 *   a page applied again from code does not get new card ids each time.
 */
import type { StatusPageCardInput, StatusPageCreate, StatusPageUpdate } from '@vigil/schema';
import type { TransactionPorts } from '../store/ports.js';
import { StatusPageNameTaken, type StatusPageDocument, type StatusPageName } from '../store/status-page-ports.js';
import { uuidV7 } from '../store/sqlite/collection.js';
import { mergeUpdate } from './documents.js';
import { conflict, invalid, notFound } from './errors.js';

/**
 * A status page as the service keeps it: written by `/v1/status-pages` (these rules) and by `--seed`,
 * stored through the status-page port, rendered by public-pages/.
 */
export interface StatusPageDoc {
  id: string;
  name: string;
  /** The subdomain the page is served at (lower case); unique across the service. Seeded pages have none. */
  url?: string;
  /** A domain of the user's (lower case) that serves the page; unique across the service. */
  customDomain?: string | null;
  /** The page's cards (real API shape): the services it shows, by id. */
  cards?: StatusPageCardDoc[];
  /** The rest of the page as the API stores it (theme, logo, timestamps). */
  [field: string]: unknown;
}

export interface StatusPageCardDoc {
  /** Absent on pages from --seed. */
  id?: string;
  name: string;
  services: Array<{ id: string }>;
  created_at?: string;
  updated_at?: string | null;
}

const NAMES: readonly StatusPageName[] = ['url', 'customDomain'];

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

/** What the rules read and write: the unit's ports (a GET's are the replica's own). */
export type StatusPagePorts = Pick<TransactionPorts, 'documents' | 'statusPages'>;

/** Ids the ports accept for a page or a service; any other names none (the ports would refuse it as a bug). */
const isStoredId = (id: unknown): id is string => typeof id === 'string' && id.length > 0 && id.length <= 255;

export async function getStatusPage(ports: StatusPagePorts, accountId: string, id: string): Promise<StatusPageDoc> {
  const page = isStoredId(id) ? await ports.statusPages.get(accountId, id) : undefined;
  if (!page) throw notFound('Status page', id);
  return page as StatusPageDoc;
}

export async function createStatusPage(ports: StatusPagePorts, accountId: string, body: StatusPageCreate, now = new Date()): Promise<StatusPageDoc> {
  await assertServicesExist(ports, accountId, body.cards);
  await refuseTaken(ports, body, undefined);
  const at = now.toISOString();
  const page: StatusPageDoc = { ...body, id: uuidV7(now.getTime()), accountId, cards: matchCards(body.cards, [], at), created_at: at, updated_at: null };
  await save(ports, accountId, page);
  return page;
}

/** PUT: `name`, `url` and `cards` replace the stored ones; the other fields sent replace theirs, the rest stay. */
export async function updateStatusPage(ports: StatusPagePorts, accountId: string, id: string, body: StatusPageUpdate, now = new Date()): Promise<StatusPageDoc> {
  const stored = await getStatusPage(ports, accountId, id);
  await assertServicesExist(ports, accountId, body.cards);
  const at = now.toISOString();
  const merged = mergeUpdate(stored, body) as StatusPageDoc;
  merged.cards = matchCards(body.cards, stored.cards ?? [], at);
  merged.updated_at = at;
  await refuseTaken(ports, merged, { accountId, id });
  await save(ports, accountId, merged);
  return merged;
}

/** Deletes the page and its subscriptions. */
export async function deleteStatusPage(ports: StatusPagePorts, accountId: string, id: string): Promise<void> {
  await getStatusPage(ports, accountId, id);
  await ports.statusPages.remove(accountId, id);
}

/** The page as the API answers: every field present, each card's services in full (one deleted since is left out). */
export async function presentStatusPage(ports: StatusPagePorts, accountId: string, page: StatusPageDoc): Promise<Record<string, unknown>> {
  const cards = [];
  for (const card of page.cards ?? []) {
    const services = [];
    for (const ref of card.services) {
      const service = await serviceOf(ports, accountId, ref.id);
      if (service) services.push({ id: String(service.id), name: service['name'], accountId, created_at: service['created_at'], updated_at: service['updated_at'] ?? null });
    }
    cards.push({ id: card.id ?? '', name: card.name, services, created_at: card.created_at ?? page['created_at'] ?? '', updated_at: card.updated_at ?? null });
  }
  return { ...PRESENT_DEFAULTS, ...page, accountId, cards };
}

function serviceOf(ports: StatusPagePorts, accountId: string, id: unknown) {
  return isStoredId(id) ? ports.documents.get('services', accountId, id) : Promise.resolve(undefined);
}

/** Refuses a service id the account does not have, and a service a card lists twice, naming the field. */
async function assertServicesExist(ports: StatusPagePorts, accountId: string, cards: readonly StatusPageCardInput[]): Promise<void> {
  for (const [cardIndex, card] of cards.entries()) {
    const seen = new Set<string>();
    for (const [index, ref] of card.services.entries()) {
      const field = `cards[${cardIndex}].services[${index}].id`;
      const keys = [`cards.${cardIndex}.services.${index}.id`];
      if (!(await serviceOf(ports, accountId, ref.id))) throw invalid(`"${field}" references status-page service ${ref.id}, which does not exist`, keys);
      if (seen.has(ref.id)) throw invalid(`"${field}" lists status-page service ${ref.id} a second time on card "${card.name}"`, keys);
      seen.add(ref.id);
    }
  }
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

/** The conflict the API answers when another page of the service holds the page's url or customDomain. */
function taken(field: StatusPageName, value: unknown) {
  return conflict(`${field} ${JSON.stringify(value)} is already taken by another status page`);
}

/** A conflict when another page of the service (`self` excepted) holds the page's url or customDomain. */
async function refuseTaken(ports: StatusPagePorts, page: Record<string, unknown>, self: { accountId: string; id: string } | undefined): Promise<void> {
  for (const field of NAMES) {
    const value = page[field];
    if (typeof value !== 'string' || value === '') continue;
    // Longer than any stored name can be (the schema bounds them), so no page holds it.
    if (value.length > 255) continue;
    const holder = await ports.statusPages.holding(field, value);
    if (holder !== undefined && !(self !== undefined && holder.accountId === self.accountId && holder.id === self.id)) throw taken(field, value);
  }
}

/** Saves the page; a name another request took since `refuseTaken` looked is the same conflict. */
async function save(ports: StatusPagePorts, accountId: string, page: StatusPageDoc): Promise<void> {
  try {
    await ports.statusPages.save(accountId, page as StatusPageDocument);
  } catch (error) {
    if (error instanceof StatusPageNameTaken) throw taken(error.field, page[error.field]);
    throw error;
  }
}
