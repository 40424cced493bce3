/**
 * Storage of status pages and their subscriptions, incidents, account profiles and the deprecated
 * check-group triggers. Status pages are written by `/v1/status-pages` and by `--seed`;
 * subscriptions have no write endpoint in the contract: they come from `--seed` and from the public
 * page's form (public-pages/subscription-store.ts, which also verifies and removes them).
 */
import { randomBytes } from 'node:crypto';
import type { CheckGroupTrigger, Subscription } from '@vigil/schema';
import type { Statement } from 'better-sqlite3';
import { PAGE_LIMIT, type SqliteDatabase } from '../store/index.js';
import { idCounter, type NextId } from '../store/sqlite/id-counters.js';
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

/** Where a page's name is kept, for `statusPageHolding`. */
export type StatusPageNameColumn = 'url' | 'custom_domain';

export type SubscriptionDoc = Subscription;

/** What an account reads back from `/v1/accounts` besides its id. */
export interface AccountProfile {
  name?: string;
  runtimeId?: string;
  settings?: Record<string, unknown>;
  alertSettings?: Record<string, unknown>;
}

export type TriggerDoc = CheckGroupTrigger;

export class PagesStore {
  readonly #upsertPage: Statement;
  readonly #page: Statement;
  readonly #insertSubscription: Statement;
  readonly #subscriptionsOf: Statement;
  readonly #countSubscriptionsOf: Statement;
  readonly #pagesOf: Statement;
  readonly #pagesAfter: Statement;
  readonly #holding: Record<StatusPageNameColumn, Statement>;
  readonly #deletePage: Statement;
  readonly #deleteSubscriptionsOf: Statement;
  readonly #verifiedOf: Statement;
  readonly #insertIncident: Statement;
  readonly #incident: Statement;
  readonly #updateIncident: Statement;
  readonly #deleteIncident: Statement;
  readonly #incidentsOpenOrSince: Statement;
  readonly #upsertProfile: Statement;
  readonly #profile: Statement;
  readonly #trigger: Statement;
  readonly #insertTrigger: Statement;
  readonly #nextId: NextId;
  #revision = 0;

  constructor(db: SqliteDatabase) {
    this.#upsertPage = db.prepare(
      `INSERT INTO status_pages (account_id, id, doc, url, custom_domain) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (account_id, id) DO UPDATE SET doc = excluded.doc, url = excluded.url, custom_domain = excluded.custom_domain`,
    );
    this.#pagesAfter = db.prepare('SELECT rowid AS seq, doc FROM status_pages WHERE account_id = ? AND rowid > ? ORDER BY rowid LIMIT ?');
    this.#holding = {
      url: db.prepare('SELECT account_id AS accountId, id FROM status_pages WHERE url = ?'),
      custom_domain: db.prepare('SELECT account_id AS accountId, id FROM status_pages WHERE custom_domain = ?'),
    };
    this.#deletePage = db.prepare('DELETE FROM status_pages WHERE account_id = ? AND id = ?');
    this.#deleteSubscriptionsOf = db.prepare('DELETE FROM status_page_subscriptions WHERE account_id = ? AND status_page_id = ?');
    this.#page = db.prepare('SELECT doc FROM status_pages WHERE account_id = ? AND id = ?');
    this.#insertSubscription = db.prepare(
      'INSERT OR IGNORE INTO status_page_subscriptions (account_id, status_page_id, id, doc) VALUES (?, ?, ?, ?)',
    );
    this.#subscriptionsOf = db.prepare(
      `SELECT doc FROM status_page_subscriptions WHERE account_id = ? AND status_page_id = ? ORDER BY seq ${PAGE_LIMIT}`,
    );
    this.#countSubscriptionsOf = db.prepare(
      'SELECT COUNT(*) AS total FROM status_page_subscriptions WHERE account_id = ? AND status_page_id = ?',
    );
    this.#pagesOf = db.prepare('SELECT doc FROM status_pages WHERE account_id = ? ORDER BY rowid');
    this.#verifiedOf = db.prepare(
      "SELECT doc FROM status_page_subscriptions WHERE account_id = ? AND status_page_id = ? AND json_extract(doc, '$.status') = 'VERIFIED' ORDER BY seq",
    );
    this.#insertIncident = db.prepare('INSERT INTO incidents (account_id, id, state) VALUES (?, ?, ?)');
    this.#incident = db.prepare('SELECT state FROM incidents WHERE account_id = ? AND id = ?');
    this.#updateIncident = db.prepare('UPDATE incidents SET state = ? WHERE account_id = ? AND id = ?');
    this.#deleteIncident = db.prepare('DELETE FROM incidents WHERE account_id = ? AND id = ?');
    this.#incidentsOpenOrSince = db.prepare(
      `SELECT state FROM incidents WHERE account_id = ?
         AND (json_extract(state, '$.lastUpdateStatus') <> 'RESOLVED' OR json_extract(state, '$.updated_at') >= ?)
       ORDER BY seq DESC`,
    );
    this.#upsertProfile = db.prepare(
      'INSERT INTO account_profiles (account_id, doc) VALUES (?, ?) ON CONFLICT (account_id) DO UPDATE SET doc = excluded.doc',
    );
    this.#profile = db.prepare('SELECT doc FROM account_profiles WHERE account_id = ?');
    this.#trigger = db.prepare('SELECT doc FROM check_group_triggers WHERE account_id = ? AND group_id = ?');
    this.#insertTrigger = db.prepare('INSERT INTO check_group_triggers (account_id, group_id, doc) VALUES (?, ?, ?)');
    this.#nextId = idCounter(db);
  }

  /**
   * Counts the writes to status pages and incidents, what a public page shows of them: a rendered
   * page kept with an older revision is stale (public-pages/page-cache.ts).
   */
  get revision(): number {
    return this.#revision;
  }

  saveStatusPage(accountId: string, page: StatusPageDoc): void {
    this.#revision++;
    const name = (value: unknown) => (typeof value === 'string' && value !== '' ? value.toLowerCase() : null);
    this.#upsertPage.run(accountId, page.id, JSON.stringify(page), name(page.url), name(page.customDomain));
  }

  /** Up to `limit` of the account's pages stored after row `after`, oldest first, with their row numbers (a cursor). */
  statusPagesAfter(accountId: string, after: number, limit: number): Array<{ seq: number; page: StatusPageDoc }> {
    return (this.#pagesAfter.all(accountId, after, limit) as Array<{ seq: number; doc: string }>).map((row) => ({ seq: row.seq, page: JSON.parse(row.doc) as StatusPageDoc }));
  }

  /** The page of the whole service (any account) whose url or custom domain is `value` (lower case). */
  statusPageHolding(column: StatusPageNameColumn, value: string): { accountId: string; id: string } | undefined {
    return this.#holding[column].get(value) as { accountId: string; id: string } | undefined;
  }

  /** Deletes a page and its subscriptions, which belong to no other page. */
  deleteStatusPage(accountId: string, id: string): void {
    this.#revision++;
    this.#deleteSubscriptionsOf.run(accountId, id);
    this.#deletePage.run(accountId, id);
  }

  statusPage(accountId: string, id: string): StatusPageDoc | undefined {
    const row = this.#page.get(accountId, id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as StatusPageDoc) : undefined;
  }

  /** Adds a subscription (an id already stored is left alone); returns whether it was new. */
  addSubscription(accountId: string, statusPageId: string, subscription: SubscriptionDoc): boolean {
    return this.#insertSubscription.run(accountId, statusPageId, subscription.id, JSON.stringify(subscription)).changes > 0;
  }

  /** One page of a status page's subscriptions, in order of creation. */
  subscriptionsOf(accountId: string, statusPageId: string, paging: { page: number; limit: number }): { items: SubscriptionDoc[]; total: number } {
    const { total } = this.#countSubscriptionsOf.get(accountId, statusPageId) as { total: number };
    const offset = (paging.page - 1) * paging.limit;
    const rows = offset >= total ? [] : (this.#subscriptionsOf.all(accountId, statusPageId, paging.limit, offset) as Array<{ doc: string }>);
    return { items: rows.map((row) => JSON.parse(row.doc) as SubscriptionDoc), total };
  }

  /** The account's status pages that show the service on one of their cards. */
  statusPagesShowing(accountId: string, serviceId: string): StatusPageDoc[] {
    return (this.#pagesOf.all(accountId) as Array<{ doc: string }>)
      .map((row) => JSON.parse(row.doc) as StatusPageDoc)
      .filter((page) => (page.cards ?? []).some((card) => card.services.some((service) => service.id === serviceId)));
  }

  /** A status page's VERIFIED subscriptions, in order of creation (a PENDING one never gets mail). */
  verifiedSubscriptionsOf(accountId: string, statusPageId: string): SubscriptionDoc[] {
    return (this.#verifiedOf.all(accountId, statusPageId) as Array<{ doc: string }>).map((row) => JSON.parse(row.doc) as SubscriptionDoc);
  }

  insertIncident(accountId: string, incident: IncidentState): void {
    this.#revision++;
    this.#insertIncident.run(accountId, incident.id, JSON.stringify(incident));
  }

  incident(accountId: string, id: string): IncidentState | undefined {
    const row = this.#incident.get(accountId, id) as { state: string } | undefined;
    return row ? (JSON.parse(row.state) as IncidentState) : undefined;
  }

  replaceIncident(accountId: string, incident: IncidentState): void {
    this.#revision++;
    this.#updateIncident.run(JSON.stringify(incident), accountId, incident.id);
  }

  /**
   * The account's incidents still open, and those changed at or after `sinceIso`, newest first: what
   * a public status page shows. Incidents are few (a person or one failure episode opens each), so
   * the account's rows are read and filtered here rather than indexed.
   */
  incidentsOpenOrUpdatedSince(accountId: string, sinceIso: string): IncidentState[] {
    return (this.#incidentsOpenOrSince.all(accountId, sinceIso) as Array<{ state: string }>).map((row) => JSON.parse(row.state) as IncidentState);
  }

  deleteIncident(accountId: string, id: string): boolean {
    this.#revision++;
    return this.#deleteIncident.run(accountId, id).changes > 0;
  }

  saveProfile(accountId: string, profile: AccountProfile): void {
    this.#upsertProfile.run(accountId, JSON.stringify(profile));
  }

  profile(accountId: string): AccountProfile | undefined {
    const row = this.#profile.get(accountId) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as AccountProfile) : undefined;
  }

  /**
   * The group's trigger, created on first read. The contract only has the GET of this deprecated
   * endpoint, so the trigger a real account would have made in the UI is made here, once, and is
   * stable from then on.
   */
  triggerOf(accountId: string, groupId: number, now: Date): TriggerDoc {
    const row = this.#trigger.get(accountId, groupId) as { doc: string } | undefined;
    if (row) return JSON.parse(row.doc) as TriggerDoc;
    // The public id is counted per account; the row's own id stays internal.
    const trigger: TriggerDoc = {
      id: this.#nextId('check_group_triggers', accountId),
      token: randomBytes(16).toString('hex'),
      groupId,
      created_at: now.toISOString(),
      called_at: null,
      updated_at: null,
    };
    this.#insertTrigger.run(accountId, groupId, JSON.stringify(trigger));
    return trigger;
  }
}
