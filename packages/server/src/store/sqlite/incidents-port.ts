/**
 * The incidents port (incident-ports.ts) on the tables the read side has always kept them in
 * (`incidents`, one JSON document each, and `check_incidents`), so an incident written through the
 * port is what the synchronous readers (the public pages, the dashboard) see, and the other way round.
 * Every write moves the status pages' revision by step 38's triggers.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
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
import { committed, type BatchedSqlite } from './batched.js';

/** The statements, prepared once per connection's port. */
class IncidentStatements {
  readonly insert: Statement;
  readonly get: Statement;
  readonly before: Statement;
  readonly openOrSince: Statement;
  readonly replace: Statement;
  readonly remove: Statement;
  readonly openOfCheck: Statement;
  readonly claimForCheck: Statement;
  readonly forgetCheck: Statement;

  constructor(db: SqliteDatabase) {
    this.insert = db.prepare('INSERT INTO incidents (account_id, id, state) VALUES (?, ?, ?)');
    this.get = db.prepare('SELECT state FROM incidents WHERE account_id = ? AND id = ?').pluck();
    this.before = db.prepare('SELECT seq, state FROM incidents WHERE account_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?');
    this.openOrSince = db
      .prepare(
        `SELECT state FROM incidents WHERE account_id = ?
           AND (json_extract(state, '$.lastUpdateStatus') <> 'RESOLVED' OR json_extract(state, '$.updated_at') >= ?)
         ORDER BY seq DESC`,
      )
      .pluck();
    this.replace = db.prepare('UPDATE incidents SET state = ? WHERE account_id = ? AND id = ?');
    this.remove = db.prepare('DELETE FROM incidents WHERE account_id = ? AND id = ?');
    this.openOfCheck = db
      .prepare(
        `SELECT incidents.state FROM check_incidents JOIN incidents ON incidents.account_id = check_incidents.account_id AND incidents.id = check_incidents.incident_id
         WHERE check_incidents.account_id = ? AND check_incidents.check_id = ? AND json_extract(incidents.state, '$.lastUpdateStatus') <> 'RESOLVED'`,
      )
      .pluck();
    // One statement that writes first: it holds the write lock before it reads whether the check's
    // incident is still open, so two openers on one file never both see none.
    this.claimForCheck = db.prepare(
      `INSERT INTO check_incidents (account_id, check_id, incident_id) VALUES (?, ?, ?)
       ON CONFLICT (account_id, check_id) DO UPDATE SET incident_id = excluded.incident_id
       WHERE NOT EXISTS (SELECT 1 FROM incidents WHERE incidents.account_id = check_incidents.account_id AND incidents.id = check_incidents.incident_id
                         AND json_extract(incidents.state, '$.lastUpdateStatus') <> 'RESOLVED')`,
    );
    this.forgetCheck = db.prepare('DELETE FROM check_incidents WHERE account_id = ? AND check_id = ?');
  }
}

export class SqliteIncidents implements Incidents {
  readonly #store: BatchedSqlite;
  #prepared: IncidentStatements | undefined;

  constructor(store: BatchedSqlite) {
    this.#store = store;
  }

  /**
   * Prepared at the first call rather than at construction: a unit's ports are built while its
   * savepoint is open, and reading `db` each call is what refuses a unit's port used after the unit.
   */
  #statements(): IncidentStatements {
    const db = this.#store.db;
    return (this.#prepared ??= new IncidentStatements(db));
  }

  async insert(accountId: string, incident: IncidentDocument): Promise<void> {
    checkIncident(accountId, incident);
    const state = JSON.stringify(incident);
    await committed(this.#store, () => this.#statements().insert.run(accountId, incident.id, state));
  }

  async get(accountId: string, id: string): Promise<IncidentDocument | undefined> {
    checkIncidentKey(accountId, id);
    const state = this.#statements().get.get(accountId, id) as string | undefined;
    return state === undefined ? undefined : (JSON.parse(state) as IncidentDocument);
  }

  async pageBefore(accountId: string, beforeSeq: number, limit: number): Promise<SequencedIncident[]> {
    checkPageBefore(accountId, beforeSeq, limit);
    const rows = this.#statements().before.all(accountId, beforeSeq, limit) as Array<{ seq: number; state: string }>;
    return rows.map((row) => ({ seq: row.seq, incident: JSON.parse(row.state) as IncidentDocument }));
  }

  async openOrUpdatedSince(accountId: string, sinceIso: string): Promise<IncidentDocument[]> {
    text('accountId', accountId);
    text('sinceIso', sinceIso, 64);
    return (this.#statements().openOrSince.all(accountId, sinceIso) as string[]).map((state) => JSON.parse(state) as IncidentDocument);
  }

  async replace(accountId: string, incident: IncidentDocument): Promise<boolean> {
    checkIncident(accountId, incident);
    const state = JSON.stringify(incident);
    return committed(this.#store, () => this.#statements().replace.run(state, accountId, incident.id).changes > 0);
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    checkIncidentKey(accountId, id);
    return committed(this.#store, () => this.#statements().remove.run(accountId, id).changes > 0);
  }

  async openOfCheck(accountId: string, checkId: string): Promise<IncidentDocument | undefined> {
    checkCheckKey(accountId, checkId);
    const state = this.#statements().openOfCheck.get(accountId, checkId) as string | undefined;
    return state === undefined ? undefined : (JSON.parse(state) as IncidentDocument);
  }

  async openForCheck(accountId: string, checkId: string, incident: IncidentDocument): Promise<boolean> {
    checkCheckKey(accountId, checkId);
    checkIncident(accountId, incident);
    const state = JSON.stringify(incident);
    return committed(this.#store, () => {
      const statements = this.#statements();
      if (statements.claimForCheck.run(accountId, checkId, incident.id).changes === 0) return false;
      statements.insert.run(accountId, incident.id, state);
      return true;
    });
  }

  async resolveForCheck(accountId: string, checkId: string, resolved?: IncidentDocument): Promise<void> {
    checkCheckKey(accountId, checkId);
    if (resolved !== undefined) checkIncident(accountId, resolved);
    const state = resolved === undefined ? undefined : JSON.stringify(resolved);
    await committed(this.#store, () => {
      const statements = this.#statements();
      statements.forgetCheck.run(accountId, checkId);
      if (resolved !== undefined) statements.replace.run(state, accountId, resolved.id);
    });
  }
}
