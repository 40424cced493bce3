/**
 * Dashboards as a storage port (part of ports.ts, with an engine per database and the contract suite
 * contract/dashboards.test.ts): what the `/v1/dashboards` routes need in a unit of work.
 *
 * A dashboard has a numeric `id`, counted per account like a group's, and a `dashboardId` (a UUID)
 * that names it across the whole service. Its `customUrl` and `customDomain` also name it across the
 * service, since its page is reached by that name alone: they are kept beside the document in lower
 * case (DNS names have no case), and the database's unique index refuses a second holder, also one
 * that a transaction committed while this one ran, so two saves of one name never both land.
 */
import { positive, shown, StoreInputError, text } from './port-rules.js';
import { servedName } from './status-page-ports.js';

/** A dashboard as the API stores it. */
export type DashboardDocument = Record<string, unknown> & { readonly id: number; readonly dashboardId: string };

/** The document fields whose values name a dashboard across the whole service. */
export type DashboardName = 'customUrl' | 'customDomain';
export const DASHBOARD_NAMES: readonly DashboardName[] = ['customUrl', 'customDomain'];

/** A save refused because another dashboard (of any account) holds one of its names. */
export class DashboardNameTaken extends Error {
  override readonly name = 'DashboardNameTaken';
  constructor(
    readonly field: DashboardName,
    readonly value: string,
  ) {
    super(`${field} ${JSON.stringify(value)} is already held by another dashboard`);
  }
}

export interface Dashboards {
  /**
   * Counts the account's next id, lets `build` make the document around it and stores it; rejects with
   * DashboardNameTaken when another dashboard holds its customUrl or customDomain.
   */
  insert(accountId: string, build: (id: number) => DashboardDocument): Promise<DashboardDocument>;
  /** The account's dashboard with this `dashboardId`, or undefined. */
  get(accountId: string, dashboardId: string): Promise<DashboardDocument | undefined>;
  /** The account's dashboard whose customUrl or customDomain is `value` (compared in lower case). */
  named(accountId: string, name: DashboardName, value: string): Promise<DashboardDocument | undefined>;
  /** Across the whole service: the `dashboardId` of the dashboard whose name is `value` (lower case). */
  holder(name: DashboardName, value: string): Promise<string | undefined>;
  /** One page of the account's dashboards, oldest first, with how many it has. */
  page(accountId: string, paging: { readonly limit: number; readonly page: number }): Promise<{ items: DashboardDocument[]; total: number }>;
  /**
   * Stores `doc` in place of the account's dashboard of its numeric id; false when there is none.
   * Rejects with DashboardNameTaken as `insert` does.
   */
  replace(accountId: string, doc: DashboardDocument): Promise<boolean>;
  /** Deletes the account's dashboard with this `dashboardId`; false when there was none. */
  remove(accountId: string, dashboardId: string): Promise<boolean>;
}

/** How a name is kept (lower case), null when the dashboard has none. */
export const dashboardNameKey = servedName;

/** Refuses a dashboard the engines could not key. */
export function checkDashboard(accountId: string, doc: DashboardDocument): void {
  text('accountId', accountId);
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new StoreInputError('a dashboard must be an object');
  positive('dashboard id', doc.id);
  text('dashboardId', doc.dashboardId, 255);
}

export function checkDashboardKey(accountId: string, dashboardId: string): void {
  text('accountId', accountId);
  text('dashboardId', dashboardId, 255);
}

export function checkDashboardName(name: DashboardName, value: string): void {
  if (!DASHBOARD_NAMES.includes(name)) throw new StoreInputError(`a dashboard is named by its customUrl or customDomain, got ${shown(name)}`);
  text(name, value);
}

export function checkDashboardPaging(accountId: string, paging: { readonly limit: number; readonly page: number }): void {
  text('accountId', accountId);
  positive('limit', paging.limit);
  positive('page', paging.page);
}
