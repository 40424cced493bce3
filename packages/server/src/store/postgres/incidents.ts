/**
 * The incidents port (incident-ports.ts) in PostgreSQL (migrations.ts, step 18): each incident one
 * document as SQLite keeps it, with its status copied beside it (`last_status`) so which incident of a
 * check is open is answered without parsing documents. Step 18's trigger moves the status pages'
 * revision in the writing transaction, since public pages show incidents.
 */
import { sql, type Kysely } from 'kysely';
import {
  checkCheckKey,
  checkIncident,
  checkIncidentKey,
  checkPageBefore,
  type IncidentDocument,
  type Incidents,
  type SequencedIncident,
} from '../incident-ports.js';
import { text } from '../port-rules.js';
import type { PostgresSchema } from './database.js';

/** On the pool, or on a unit of work's transaction. */
export class PostgresIncidents implements Incidents {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  /**
   * `work` in one transaction: a unit's own (a failure aborts the unit anyway), or one of its own on
   * the pool.
   */
  #together<T>(work: (db: Kysely<PostgresSchema>) => Promise<T>): Promise<T> {
    return this.#db.isTransaction ? work(this.#db) : this.#db.transaction().execute(work);
  }

  async insert(accountId: string, incident: IncidentDocument): Promise<void> {
    checkIncident(accountId, incident);
    await sql`
      INSERT INTO incidents (account_id, id, state, last_status)
      VALUES (${accountId}, ${incident.id}, ${JSON.stringify(incident)}, ${incident.lastUpdateStatus})`.execute(this.#db);
  }

  async get(accountId: string, id: string): Promise<IncidentDocument | undefined> {
    checkIncidentKey(accountId, id);
    const { rows } = await sql<{ state: string }>`SELECT state FROM incidents WHERE account_id = ${accountId} AND id = ${id}`.execute(this.#db);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].state) as IncidentDocument);
  }

  async pageBefore(accountId: string, beforeSeq: number, limit: number): Promise<SequencedIncident[]> {
    checkPageBefore(accountId, beforeSeq, limit);
    const { rows } = await sql<{ seq: string; state: string }>`
      SELECT seq, state FROM incidents WHERE account_id = ${accountId} AND seq < ${beforeSeq} ORDER BY seq DESC LIMIT ${limit}`.execute(this.#db);
    return rows.map((row) => ({ seq: Number(row.seq), incident: JSON.parse(row.state) as IncidentDocument }));
  }

  async openOrUpdatedSince(accountId: string, sinceIso: string): Promise<IncidentDocument[]> {
    text('accountId', accountId);
    text('sinceIso', sinceIso, 64);
    // `updated_at` compared as the text SQLite compares (ISO 8601 of one format sorts as it reads), in the C collation.
    const { rows } = await sql<{ state: string }>`
      SELECT state FROM incidents WHERE account_id = ${accountId}
        AND (last_status <> 'RESOLVED' OR (state::jsonb ->> 'updated_at') COLLATE "C" >= ${sinceIso})
      ORDER BY seq DESC`.execute(this.#db);
    return rows.map((row) => JSON.parse(row.state) as IncidentDocument);
  }

  async replace(accountId: string, incident: IncidentDocument): Promise<boolean> {
    checkIncident(accountId, incident);
    const result = await sql`
      UPDATE incidents SET state = ${JSON.stringify(incident)}, last_status = ${incident.lastUpdateStatus}
      WHERE account_id = ${accountId} AND id = ${incident.id}`.execute(this.#db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    checkIncidentKey(accountId, id);
    const result = await sql`DELETE FROM incidents WHERE account_id = ${accountId} AND id = ${id}`.execute(this.#db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  async openOfCheck(accountId: string, checkId: string): Promise<IncidentDocument | undefined> {
    checkCheckKey(accountId, checkId);
    const { rows } = await sql<{ state: string }>`
      SELECT incidents.state FROM check_incidents
      JOIN incidents ON incidents.account_id = check_incidents.account_id AND incidents.id = check_incidents.incident_id
      WHERE check_incidents.account_id = ${accountId} AND check_incidents.check_id = ${checkId} AND incidents.last_status <> 'RESOLVED'`.execute(this.#db);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].state) as IncidentDocument);
  }

  async openForCheck(accountId: string, checkId: string, incident: IncidentDocument): Promise<boolean> {
    checkCheckKey(accountId, checkId);
    checkIncident(accountId, incident);
    // Openers of one check take turns until their transactions end: a row lock cannot be taken on a
    // row that is not there yet, and each statement after the lock reads what the one before
    // committed (READ COMMITTED), so the second sees the first's incident open.
    return this.#together(async (db) => {
      await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`check-incident ${JSON.stringify([accountId, checkId])}`}, 0))`.execute(db);
      if (await new PostgresIncidents(db).openOfCheck(accountId, checkId)) return false;
      await sql`
        INSERT INTO check_incidents (account_id, check_id, incident_id) VALUES (${accountId}, ${checkId}, ${incident.id})
        ON CONFLICT (account_id, check_id) DO UPDATE SET incident_id = excluded.incident_id`.execute(db);
      await new PostgresIncidents(db).insert(accountId, incident);
      return true;
    });
  }

  async resolveForCheck(accountId: string, checkId: string, resolved?: IncidentDocument): Promise<void> {
    checkCheckKey(accountId, checkId);
    if (resolved !== undefined) checkIncident(accountId, resolved);
    await this.#together(async (db) => {
      await sql`DELETE FROM check_incidents WHERE account_id = ${accountId} AND check_id = ${checkId}`.execute(db);
      if (resolved !== undefined) await new PostgresIncidents(db).replace(accountId, resolved);
    });
  }
}
