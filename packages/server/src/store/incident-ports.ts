/**
 * Status-page incidents as a storage port (part of ports.ts, with an engine per database and the
 * contract suite contract/incidents.test.ts): what the `/v1/incidents` routes need — create, get, the
 * list's newest-first cursor, replace, delete — and what a check's `triggerIncident` needs — the one
 * incident a check has open, opened unless one is, and forgotten when the check resolves it.
 *
 * An incident is stored as one document, its updates inside it, as SQLite always kept it: every read
 * returns the whole incident and the number of updates is bounded, so splitting them out would only
 * add a join. Every write moves the status pages' revision (StatusPages.revision), since public pages
 * show incidents.
 */
import type { IncidentSeverity, IncidentStatus, IncidentStatusUpdate } from '@vigil/schema';
import { positive, shown, StoreInputError, text } from './port-rules.js';

/** An incident as stored: the wire shape with the services by id and its updates inside. */
export interface IncidentDocument {
  id: string;
  name: string;
  severity: IncidentSeverity;
  serviceIds: string[];
  lastUpdateStatus: IncidentStatus;
  incidentUpdates: IncidentStatusUpdate[];
  created_at: string;
  updated_at: string;
}

/** An incident with its place in the account's order of creation, which a list's cursor names. */
export interface SequencedIncident {
  readonly seq: number;
  readonly incident: IncidentDocument;
}

export interface Incidents {
  /** Stores a new incident; rejects with StoreInputError when its id is stored already. */
  insert(accountId: string, incident: IncidentDocument): Promise<void>;
  /** The incident as stored, or undefined. */
  get(accountId: string, id: string): Promise<IncidentDocument | undefined>;
  /** Up to `limit` of the account's incidents created before the one at `beforeSeq`, newest first. */
  pageBefore(accountId: string, beforeSeq: number, limit: number): Promise<SequencedIncident[]>;
  /**
   * The account's incidents still open, and those changed (`updated_at`) at or after `sinceIso`,
   * newest first: what a public status page shows. Incidents are few (a person or one failure episode
   * opens each), so engines may read the account's rows rather than index them.
   */
  openOrUpdatedSince(accountId: string, sinceIso: string): Promise<IncidentDocument[]>;
  /** Replaces the stored incident of its id, keeping its place; false when there is none. */
  replace(accountId: string, incident: IncidentDocument): Promise<boolean>;
  /** Deletes the incident; false when there was none. */
  remove(accountId: string, id: string): Promise<boolean>;
  /**
   * The incident the check opened that is still open: neither RESOLVED (by the check or through the
   * API) nor deleted. Undefined otherwise.
   */
  openOfCheck(accountId: string, checkId: string): Promise<IncidentDocument | undefined>;
  /**
   * Stores `incident` as the check's open incident unless the check has one open (openOfCheck): of
   * callers opening one for a check at once, one stores it. Resolves to whether this call stored it.
   */
  openForCheck(accountId: string, checkId: string, incident: IncidentDocument): Promise<boolean>;
  /**
   * The check no longer has an incident open; `resolved`, when given, replaces the incident it had
   * (its RESOLVED state) in the same statement's transaction.
   */
  resolveForCheck(accountId: string, checkId: string, resolved?: IncidentDocument): Promise<void>;
}

/** Refuses an incident the engines could not key or query. */
export function checkIncident(accountId: string, incident: IncidentDocument): void {
  text('accountId', accountId);
  if (incident === null || typeof incident !== 'object' || Array.isArray(incident)) throw new StoreInputError('an incident must be an object');
  text('incidentId', incident.id, 255);
  if (typeof incident.lastUpdateStatus !== 'string' || (incident.lastUpdateStatus as string) === '') {
    throw new StoreInputError(`an incident's lastUpdateStatus must be a status, got ${shown(incident.lastUpdateStatus)}`);
  }
  if (!Array.isArray(incident.incidentUpdates)) throw new StoreInputError("an incident's incidentUpdates must be a list");
}

/** Refuses a cursor or a page size the engines could not page by. */
export function checkPageBefore(accountId: string, beforeSeq: number, limit: number): void {
  text('accountId', accountId);
  positive('beforeSeq', beforeSeq);
  positive('limit', limit);
}

/** Refuses a check's key the engines could not look up. */
export function checkCheckKey(accountId: string, checkId: string): void {
  text('accountId', accountId);
  text('checkId', checkId, 255);
}

/** Refuses an incident id the engines could not look up. */
export function checkIncidentKey(accountId: string, id: string): void {
  text('accountId', accountId);
  text('incidentId', id, 255);
}
