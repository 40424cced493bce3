/**
 * Reads of incidents that their routes page through or join on checks: paging by insertion sequence
 * (a row created or deleted meanwhile never makes a later page skip or repeat one), and the checks
 * whose `triggerIncident.serviceId` names a service.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';

export interface CheckRef {
  readonly id: string;
  readonly name: string;
}

export interface SequencedRow {
  readonly seq: number;
  /** The stored JSON. */
  readonly doc: string;
}

export class ServiceQueries {
  readonly #checksOfService: Statement;
  readonly #incidentsBefore: Statement;

  constructor(db: SqliteDatabase) {
    this.#checksOfService = db.prepare("SELECT id, json_extract(doc, '$.name') AS name FROM checks WHERE account_id = ? AND service_id = ? ORDER BY seq");
    this.#incidentsBefore = db.prepare('SELECT seq, state AS doc FROM incidents WHERE account_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?');
  }

  /** The checks of the account that open incidents on the service, oldest first. */
  checksOfService(accountId: string, serviceId: string): CheckRef[] {
    return this.#checksOfService.all(accountId, serviceId) as CheckRef[];
  }

  /** Up to `limit` incidents stored before sequence `beforeSeq`, newest first. */
  incidentsBefore(accountId: string, beforeSeq: number, limit: number): SequencedRow[] {
    return this.#incidentsBefore.all(accountId, beforeSeq, limit) as SequencedRow[];
  }
}

/** The id this database gave itself when it was created (step 25). */
export function serviceIdOf(db: SqliteDatabase): string {
  return (db.prepare('SELECT id FROM service_identity').get() as { id: string }).id;
}
