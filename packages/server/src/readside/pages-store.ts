/**
 * The shapes of status pages and their subscriptions as the service keeps them. Status pages are
 * written by `/v1/status-pages` and by `--seed`; subscriptions have no write endpoint in the
 * contract: they come from `--seed` and from the public page's form (public-pages/subscribe-routes.ts,
 * which also verifies and removes them). Everything reads and writes them through the storage ports
 * (store/status-page-ports.ts, incident-ports.ts).
 */
import type { Subscription } from '@vigil/schema';
import type { AccountProfile } from '../store/account-profile-ports.js';

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
