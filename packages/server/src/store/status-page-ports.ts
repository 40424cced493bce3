/**
 * Status pages as a storage port (part of ports.ts, with an engine per database and the contract suite
 * contract/status-pages.test.ts): what a unit of work needs of them, which today is the question a
 * status-page service's delete asks — which of the account's pages show the service on a card.
 *
 * A page is stored as the text of its document (key order survives, as for the documents port), with
 * its names served across the whole service (url and custom domain, lower case) kept beside it, since
 * no two pages may hold one, and the services its cards show.
 */
import { shown, StoreInputError, text } from './port-rules.js';

/** A status page's document as the API stores it: its id and name, its cards with the services they show. */
export type StatusPageDocument = Record<string, unknown> & { readonly id: string; readonly name: string };

/** A page that shows a service, as a refusal to delete the service names it. */
export interface StatusPageShowing {
  readonly id: string;
  readonly name: string;
}

export interface StatusPages {
  /** Stores the page (its id's page is replaced, keeping its place in the account's order). */
  save(accountId: string, page: StatusPageDocument): Promise<void>;
  /** The page's document as stored, or undefined. */
  get(accountId: string, id: string): Promise<StatusPageDocument | undefined>;
  /** Deletes the page (with its subscriptions, where the engine keeps them); false when there was none. */
  remove(accountId: string, id: string): Promise<boolean>;
  /** The account's pages with a card showing the service, oldest first. */
  showingService(accountId: string, serviceId: string): Promise<StatusPageShowing[]>;
}

/** Refuses a page the engines could not key: an id and a name are what every page has. */
export function checkStatusPage(accountId: string, page: StatusPageDocument): void {
  text('accountId', accountId);
  if (page === null || typeof page !== 'object' || Array.isArray(page)) throw new StoreInputError('a status page must be an object');
  text('statusPageId', page.id, 255);
  if (typeof page.name !== 'string') throw new StoreInputError(`a status page's name must be a string, got ${shown(page.name)}`);
  const cards = page['cards'];
  if (cards !== undefined && !(Array.isArray(cards) && cards.every((card) => Array.isArray((card as { services?: unknown } | null)?.services)))) {
    throw new StoreInputError("a status page's cards must be a list of cards, each with a list of services");
  }
}

/** How a page's url or custom domain is kept (lower case), null when it has none: these are served by name. */
export function servedName(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value.toLowerCase() : null;
}

/** The ids of the services the page's cards show, each once, in the order shown. */
export function servicesShown(page: StatusPageDocument): string[] {
  const ids = new Set<string>();
  for (const card of (page['cards'] as Array<{ services: Array<{ id?: unknown }> }> | undefined) ?? []) {
    for (const service of card.services) if (typeof service?.id === 'string') ids.add(service.id);
  }
  return [...ids];
}
