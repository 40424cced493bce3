/**
 * Status pages as a storage port (part of ports.ts, with an engine per database and the contract suite
 * contract/status-pages.test.ts): what the `/v1/status-pages` routes and a status-page service's
 * delete need of them in a unit of work — the pages, the list's cursor, which page of the whole service
 * holds a name, which pages show a service, and a revision the rendered public pages are keyed by.
 *
 * A page is stored as the text of its document (key order survives, as for the documents port), with
 * its names served across the whole service (url and custom domain, lower case) kept beside it, since
 * no two pages may hold one, and the services its cards show.
 */
import { positive, shown, StoreInputError, text } from './port-rules.js';

/** A status page's document as the API stores it: its id and name, its cards with the services they show. */
export type StatusPageDocument = Record<string, unknown> & { readonly id: string; readonly name: string };

/** The document fields whose values name a page across the whole service. */
export type StatusPageName = 'url' | 'customDomain';

/** A page with its place in the account's order of creation, which a list's cursor names. */
export interface SequencedStatusPage {
  readonly seq: number;
  readonly page: StatusPageDocument;
}

/** A subscription to a page's e-mail (its id and the rest of its document). */
export type StatusPageSubscriptionDocument = Record<string, unknown> & { readonly id: string };

/**
 * A save refused because another page (of any account) holds the page's url or custom domain, also
 * when that page was saved by a transaction that committed while this one ran: the database's
 * unique index decides, so two creates of one name at once never both land.
 */
export class StatusPageNameTaken extends Error {
  override readonly name = 'StatusPageNameTaken';
  constructor(
    readonly field: StatusPageName,
    readonly value: string,
  ) {
    super(`${field} ${JSON.stringify(value)} is already held by another status page`);
  }
}

/** A page that shows a service, as a refusal to delete the service names it. */
export interface StatusPageShowing {
  readonly id: string;
  readonly name: string;
}

export interface StatusPages {
  /**
   * Stores the page (its id's page is replaced, keeping its place in the account's order). Rejects
   * with StatusPageNameTaken when another page holds its url or custom domain.
   */
  save(accountId: string, page: StatusPageDocument): Promise<void>;
  /** The page's document as stored, or undefined. */
  get(accountId: string, id: string): Promise<StatusPageDocument | undefined>;
  /** Up to `limit` of the account's pages created after the one at `afterSeq` (0: from the first), oldest first. */
  pageAfter(accountId: string, afterSeq: number, limit: number): Promise<SequencedStatusPage[]>;
  /** The page of the whole service (any account) whose url or custom domain is `value` (compared in lower case). */
  holding(name: StatusPageName, value: string): Promise<{ accountId: string; id: string } | undefined>;
  /** Deletes the page with its subscriptions; false when there was none. */
  remove(accountId: string, id: string): Promise<boolean>;
  /** The account's pages with a card showing the service, oldest first. */
  showingService(accountId: string, serviceId: string): Promise<StatusPageShowing[]>;
  /**
   * A number every committed save or remove of a page, by any replica, changes: what a rendered
   * public page is kept under, so it is rendered again after a write.
   */
  revision(): Promise<number>;
  /** Adds a subscription to the page's e-mail (an id already stored is left alone); whether it was new. */
  addSubscription(accountId: string, statusPageId: string, subscription: StatusPageSubscriptionDocument): Promise<boolean>;
  /** The page's subscriptions, in order of creation. */
  subscriptionsOf(accountId: string, statusPageId: string): Promise<StatusPageSubscriptionDocument[]>;
  /**
   * One page (from 1) of the page's subscriptions in order of creation, and how many it has: the
   * API's list, which reads only the subscriptions it answers with however many the page has.
   */
  subscriptionPage(accountId: string, statusPageId: string, paging: SubscriptionPaging): Promise<{ items: StatusPageSubscriptionDocument[]; total: number }>;
}

/** Which page of a list, numbered from 1, of how many items. */
export interface SubscriptionPaging {
  readonly page: number;
  readonly limit: number;
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

/** Refuses a name look-up the engines could not answer. */
export function checkNameLookup(name: StatusPageName, value: string): void {
  if (name !== 'url' && name !== 'customDomain') throw new StoreInputError(`a status page is named by its url or customDomain, got ${shown(name)}`);
  text(name, value, 255);
}

/** Refuses a cursor or a page size the engines could not page by. */
export function checkPageAfter(accountId: string, afterSeq: number, limit: number): void {
  text('accountId', accountId);
  if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) throw new StoreInputError(`afterSeq must be a whole number of at least 0, got ${shown(afterSeq)}`);
  positive('limit', limit);
}

/** Refuses a subscription the engines could not key. */
export function checkSubscription(accountId: string, statusPageId: string, subscription: StatusPageSubscriptionDocument): void {
  text('accountId', accountId);
  text('statusPageId', statusPageId, 255);
  if (subscription === null || typeof subscription !== 'object' || Array.isArray(subscription)) throw new StoreInputError('a subscription must be an object');
  text('subscriptionId', subscription.id, 255);
}

/** Refuses a page of subscriptions the engines could not read. */
export function checkSubscriptionPage(accountId: string, statusPageId: string, paging: SubscriptionPaging): void {
  text('accountId', accountId);
  text('statusPageId', statusPageId, 255);
  positive('page', paging.page);
  positive('limit', paging.limit);
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
