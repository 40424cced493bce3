/**
 * What the web dashboard reads that no other port answers, as a storage port (part of ports.ts, with
 * an engine per database and the contract suite contract/dashboard-reads.test.ts): a whole page of
 * checks at once (their statuses and hourly totals, one statement for the page whatever its size,
 * instead of a look-up per check), the incidents it lists, and which resources the project states
 * kept on the service hold. Every read is of one account.
 */
import type { CheckStatus } from '@vigil/schema';
import type { IncidentDocument } from './incident-ports.js';
import { positive, StoreInputError, text } from './port-rules.js';

/** One check's FINAL results of one hour, summed over its locations. */
export interface HourlyTotals {
  readonly checkId: string;
  readonly startMs: number;
  readonly rtSum: number;
  readonly rtCount: number;
  readonly results: number;
  readonly failures: number;
}

/** A resource held in a project state kept on this service. */
export interface StateResource {
  readonly project: string;
  /** The resource's address in its project (`kind:logicalId`). */
  readonly address: string;
  /** Its remote id as text, null when the state records none. */
  readonly remoteId: string | null;
}

export interface DashboardReads {
  /** The statuses of those of the given checks that have run, by check id. */
  statusesOf(accountId: string, checkIds: readonly string[]): Promise<Map<string, CheckStatus>>;
  /** The given checks' hourly totals of hours starting in `[fromMs, toMs)`, each check's oldest first. */
  hourlyOf(accountId: string, checkIds: readonly string[], fromMs: number, toMs: number): Promise<HourlyTotals[]>;
  /**
   * A page of the account's incidents, newest first, and how many there are; `resolved` narrows to
   * the resolved (true) or the open (false) ones.
   */
  incidentPage(accountId: string, resolved: boolean | undefined, paging: { readonly limit: number; readonly offset: number }): Promise<{ items: IncidentDocument[]; total: number }>;
  /** The newest `limit` incidents that name a status-page service. */
  incidentsOfService(accountId: string, serviceId: string, limit: number): Promise<IncidentDocument[]>;
  /** The resources whose state records them as of `kind`, in every project state of the account. */
  stateResourcesOfKind(accountId: string, kind: string): Promise<StateResource[]>;
}

/** Checks at most per call: a page of the dashboard lists 50. */
export const DASHBOARD_CHECKS_MAX = 1000;

export function checkPageOfChecks(accountId: string, checkIds: readonly string[]): void {
  text('accountId', accountId);
  if (!Array.isArray(checkIds) || checkIds.length > DASHBOARD_CHECKS_MAX) throw new StoreInputError(`checkIds must be a list of at most ${DASHBOARD_CHECKS_MAX} ids`);
  for (const id of checkIds) text('check id', id, 255);
}

export function checkHourRange(fromMs: number, toMs: number): void {
  if (!Number.isSafeInteger(fromMs) || !Number.isSafeInteger(toMs) || fromMs < 0 || toMs < fromMs) {
    throw new StoreInputError(`an hour range is two whole milliseconds from 1970 on, the first not after the second, got ${fromMs} and ${toMs}`);
  }
}

export function checkIncidentPaging(accountId: string, paging: { readonly limit: number; readonly offset: number }): void {
  text('accountId', accountId);
  positive('limit', paging.limit);
  if (!Number.isSafeInteger(paging.offset) || paging.offset < 0) throw new StoreInputError(`offset must be a whole number of 0 or more, got ${paging.offset}`);
}
