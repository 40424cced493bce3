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
import type { Statement } from 'better-sqlite3';
import { readSideOf } from '../readside/context.js';
import type { PagesStore, SubscriptionDoc } from '../readside/pages-store.js';
import type { Store } from '../store/index.js';

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
  readonly #secret: Buffer;
  readonly #byAddress: Statement;
  readonly #byId: Statement;
  readonly #verify: Statement;
  readonly #remove: Statement;
  readonly #countAddress: Statement;
  readonly #countClient: Statement;
  readonly #countPage: Statement;
  readonly #record: Statement;
  readonly #prune: Statement;
  readonly #decide: (request: SubscribeRequest) => boolean;

  constructor(store: Store) {
    const { db } = store;
    // Two replicas starting at once both insert; the first row wins and both read it back.
    db.prepare('INSERT OR IGNORE INTO service_secrets (name, value) VALUES (?, ?)').run(SECRET_NAME, randomBytes(32));
    this.#secret = (db.prepare('SELECT value FROM service_secrets WHERE name = ?').get(SECRET_NAME) as { value: Buffer }).value;
    this.#pages = readSideOf(store).pages;
    this.#byAddress = db.prepare(
      "SELECT doc FROM status_page_subscriptions WHERE account_id = ? AND status_page_id = ? AND lower(json_extract(doc, '$.address')) = lower(?) ORDER BY seq LIMIT 1",
    );
    this.#byId = db.prepare('SELECT doc FROM status_page_subscriptions WHERE account_id = ? AND status_page_id = ? AND id = ?');
    this.#verify = db.prepare(
      "UPDATE status_page_subscriptions SET doc = json_set(doc, '$.status', 'VERIFIED', '$.updated_at', ?) WHERE account_id = ? AND status_page_id = ? AND id = ?",
    );
    this.#remove = db.prepare('DELETE FROM status_page_subscriptions WHERE account_id = ? AND status_page_id = ? AND id = ?');
    this.#countAddress = db.prepare('SELECT COUNT(*) AS n FROM subscribe_requests WHERE address_key = ? AND at_ms > ? AND mailed = 1');
    this.#countClient = db.prepare('SELECT COUNT(*) AS n FROM subscribe_requests WHERE client_key = ? AND at_ms > ?');
    this.#countPage = db.prepare('SELECT COUNT(*) AS n FROM subscribe_requests WHERE page_key = ? AND at_ms > ? AND mailed = 1');
    this.#record = db.prepare('INSERT INTO subscribe_requests (at_ms, page_key, address_key, client_key, mailed) VALUES (?, ?, ?, ?, ?)');
    this.#prune = db.prepare('DELETE FROM subscribe_requests WHERE at_ms <= ?');
    // Count and record in one transaction, so concurrent submissions cannot all pass one limit.
    this.#decide = db.transaction((request: SubscribeRequest) => {
      const { nowMs, limits } = request;
      this.#prune.run(nowMs - DAY_MS);
      const keys = { page: this.#key('page', request.pageKey), address: this.#key('address', request.address.toLowerCase()), client: this.#key('client', request.client) };
      const count = (statement: Statement, key: string, sinceMs: number) => (statement.get(key, sinceMs) as { n: number }).n;
      // A client past its limit is not recorded again: its count already refuses it for the hour, and a
      // flood from one address must not grow the table.
      if (count(this.#countClient, keys.client, nowMs - HOUR_MS) >= limits.perClientPerHour) return false;
      const mail =
        count(this.#countAddress, keys.address, nowMs - DAY_MS) < limits.perAddressPerDay &&
        count(this.#countPage, keys.page, nowMs - HOUR_MS) < limits.perPagePerHour;
      this.#record.run(nowMs, keys.page, keys.address, keys.client, mail ? 1 : 0);
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
    const row = this.#byAddress.get(accountId, statusPageId, address) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as SubscriptionDoc) : undefined;
  }

  byId(accountId: string, statusPageId: string, id: string): SubscriptionDoc | undefined {
    const row = this.#byId.get(accountId, statusPageId, id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as SubscriptionDoc) : undefined;
  }

  addPending(accountId: string, statusPageId: string, subscription: SubscriptionDoc): void {
    this.#pages.addSubscription(accountId, statusPageId, subscription);
  }

  markVerified(accountId: string, statusPageId: string, id: string, nowIso: string): boolean {
    return this.#verify.run(nowIso, accountId, statusPageId, id).changes > 0;
  }

  remove(accountId: string, statusPageId: string, id: string): boolean {
    return this.#remove.run(accountId, statusPageId, id).changes > 0;
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

const stores = new WeakMap<Store, SubscriptionStore>();

/** The database's subscription store, made on first use. */
export function subscriptionStoreOf(store: Store): SubscriptionStore {
  let found = stores.get(store);
  if (!found) {
    found = new SubscriptionStore(store);
    stores.set(store, found);
  }
  return found;
}
