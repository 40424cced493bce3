/**
 * What the public subscription form stores besides the subscriptions themselves (which live in
 * `status_page_subscriptions` with those of `--seed`):
 *
 * - `service_secrets`: the key that signs the links of subscription e-mails, generated once per
 *   database. It is nobody's API key and derived from none, so a leaked or rotated key says nothing
 *   about a link, and replicas on one database sign alike.
 * - `subscribe_requests`: one row per accepted form submission for a day, to count the rate limits
 *   in the database (replicas share them, a restart does not reset them). Addresses and client
 *   addresses are kept only as keyed hashes: the counts need equality, not the values.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { PagesStore, SubscriptionDoc } from '../readside/pages-store.js';
import type { Store } from '../store/index.js';
import { SubscriberTable } from '../store/sqlite/subscribe-requests.js';

const SECRET_NAME = 'subscription-links';
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** How many verification e-mails the form may cause. */
export interface SubscribeLimits {
  /** Per address (whatever page, compared without case) per 24 hours. */
  readonly perAddressPerDay: number;
  /** Form submissions per client address per hour, mailed or not. */
  readonly perClientPerHour: number;
  /** Per status page per hour, all addresses and clients together. */
  readonly perPagePerHour: number;
}

/** How the public form sends mail; its presence means the service delivers subscriber e-mail. */
export interface SubscriptionMailOptions {
  readonly limits?: Partial<SubscribeLimits> | undefined;
}

export const DEFAULT_SUBSCRIBE_LIMITS: SubscribeLimits = { perAddressPerDay: 3, perClientPerHour: 10, perPagePerHour: 100 };

export class SubscriptionStore {
  readonly #pages: PagesStore;
  readonly #table: SubscriberTable;
  readonly #secret: Buffer;
  readonly #decide: (request: SubscribeRequest) => boolean;

  constructor(store: Store, pages: PagesStore) {
    this.#table = new SubscriberTable(store.db);
    this.#secret = this.#table.secret(SECRET_NAME, () => randomBytes(32));
    this.#pages = pages;
    const table = this.#table;
    this.#decide = table.inTransaction((request: SubscribeRequest) => {
      const { nowMs, limits } = request;
      table.pruneSubmissions(nowMs - DAY_MS);
      const keys = { page: this.#key('page', request.pageKey), address: this.#key('address', request.address.toLowerCase()), client: this.#key('client', request.client) };
      // A client past its limit is not recorded again: its count already refuses it for the hour, and a
      // flood from one address must not grow the table.
      if (table.clientSubmissions(keys.client, nowMs - HOUR_MS) >= limits.perClientPerHour) return false;
      const mail = table.mailedToAddress(keys.address, nowMs - DAY_MS) < limits.perAddressPerDay && table.mailedForPage(keys.page, nowMs - HOUR_MS) < limits.perPagePerHour;
      table.recordSubmission(nowMs, keys, mail);
      return mail;
    });
  }

  /** The key that signs subscription links. */
  get secret(): Buffer {
    return this.#secret;
  }

  #key(kind: string, value: string): string {
    return createHmac('sha256', this.#secret).update(`${kind}\u0000${value}`).digest('base64url');
  }

  /** Records a form submission and says whether it may send a verification e-mail (false: a limit is reached). */
  admit(request: SubscribeRequest): boolean {
    return this.#decide(request);
  }

  /** The page's subscription of `address` (compared without case), if any. */
  byAddress(accountId: string, statusPageId: string, address: string): SubscriptionDoc | undefined {
    const doc = this.#table.byAddress(accountId, statusPageId, address);
    return doc === undefined ? undefined : (JSON.parse(doc) as SubscriptionDoc);
  }

  byId(accountId: string, statusPageId: string, id: string): SubscriptionDoc | undefined {
    const doc = this.#table.byId(accountId, statusPageId, id);
    return doc === undefined ? undefined : (JSON.parse(doc) as SubscriptionDoc);
  }

  addPending(accountId: string, statusPageId: string, subscription: SubscriptionDoc): void {
    this.#pages.addSubscription(accountId, statusPageId, subscription);
  }

  markVerified(accountId: string, statusPageId: string, id: string, nowIso: string): boolean {
    return this.#table.markVerified(accountId, statusPageId, id, nowIso);
  }

  remove(accountId: string, statusPageId: string, id: string): boolean {
    return this.#table.remove(accountId, statusPageId, id);
  }
}

export interface SubscribeRequest {
  /** The status page, as `accountId/statusPageId`. */
  readonly pageKey: string;
  readonly address: string;
  /** The client's network address. */
  readonly client: string;
  readonly nowMs: number;
  readonly limits: SubscribeLimits;
}
