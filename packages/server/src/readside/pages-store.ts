/**
 * Storage of status pages and their subscriptions, incidents and account profiles. Status pages are
 * written by `/v1/status-pages` and by `--seed`;
 * subscriptions have no write endpoint in the contract: they come from `--seed` and from the public
 * page's form (public-pages/subscribe-routes.ts, which also verifies and removes them). The
 * statements are the engine's (store/sqlite/status-pages.ts); this store keeps the documents' shapes
 * for `--seed`'s synchronous writes. Everything else reads and writes them through the storage
 * ports (store/status-page-ports.ts, incident-ports.ts).
 */
import type { Subscription } from '@vigil/schema';
import type { AccountProfile } from '../store/account-profile-ports.js';
import type { SqliteDatabase } from '../store/index.js';
import { servedName } from '../store/status-page-ports.js';
import { PagesTable } from '../store/sqlite/status-pages.js';
import type { IncidentState } from './incidents.js';

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

export type SubscriptionDoc = Subscription;

export type { AccountProfile };

export class PagesStore {
  readonly #table: PagesTable;

  constructor(db: SqliteDatabase) {
    this.#table = new PagesTable(db);
  }

  saveStatusPage(accountId: string, page: StatusPageDoc): void {
    this.#table.putPage(accountId, page.id, JSON.stringify(page), servedName(page.url), servedName(page.customDomain));
  }

  statusPage(accountId: string, id: string): StatusPageDoc | undefined {
    const doc = this.#table.page(accountId, id);
    return doc === undefined ? undefined : (JSON.parse(doc) as StatusPageDoc);
  }

  /** Adds a subscription (an id already stored is left alone); returns whether it was new. */
  addSubscription(accountId: string, statusPageId: string, subscription: SubscriptionDoc): boolean {
    return this.#table.addSubscription(accountId, statusPageId, subscription.id, JSON.stringify(subscription));
  }

  /** The account's status pages that show the service on one of their cards. */
  statusPagesShowing(accountId: string, serviceId: string): StatusPageDoc[] {
    return this.#table.pagesShowing(accountId, serviceId).map((row) => JSON.parse(row.doc) as StatusPageDoc);
  }

  insertIncident(accountId: string, incident: IncidentState): void {
    this.#table.insertIncident(accountId, incident.id, JSON.stringify(incident));
  }

  deleteIncident(accountId: string, id: string): boolean {
    return this.#table.deleteIncident(accountId, id);
  }

  /** `--seed`'s write, in its synchronous transaction; readers go through the account-profiles port. */
  saveProfile(accountId: string, profile: AccountProfile): void {
    this.#table.putProfile(accountId, JSON.stringify(profile));
  }
}
