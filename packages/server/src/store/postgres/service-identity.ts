/**
 * The service-identity port (service-identity-ports.ts) in PostgreSQL (migrations.ts, step 23): the
 * one row of `service_identity`, and `check_group_triggers`, whose public ids are counted in
 * `document_id_counters` under the kind `check_group_triggers`, as SQLite counts them per account.
 */
import { sql, type Kysely } from 'kysely';
import { checkServiceId, checkTrigger, checkTriggerKey, type GroupTriggerDocument, type ServiceIdentity } from '../service-identity-ports.js';
import type { PostgresSchema } from './database.js';
import { withinTransaction } from './documents.js';

/** On the pool, or on a unit of work's transaction. */
export class PostgresServiceIdentity implements ServiceIdentity {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async serviceId(made: string): Promise<string> {
    checkServiceId(made);
    const stored = await sql<{ id: string }>`SELECT id FROM service_identity`.execute(this.#db);
    if (stored.rows[0] !== undefined) return stored.rows[0].id;
    // The table holds at most one row (its key is the constant `singleton`): of replicas storing at once, one wins.
    await sql`INSERT INTO service_identity (singleton, id) VALUES (TRUE, ${made}) ON CONFLICT (singleton) DO NOTHING`.execute(this.#db);
    const { rows } = await sql<{ id: string }>`SELECT id FROM service_identity`.execute(this.#db);
    return rows[0]!.id;
  }

  async groupTrigger(accountId: string, groupId: number, build: (id: number) => GroupTriggerDocument): Promise<GroupTriggerDocument> {
    checkTriggerKey(accountId, groupId);
    const stored = await this.#stored(this.#db, accountId, groupId);
    if (stored !== undefined) return stored;
    return withinTransaction(this.#db, async (tx) => {
      // The account's counter row is the lock: replicas making a trigger of the account take turns on
      // it, and the one after the maker finds the trigger the maker committed (each statement of a
      // READ COMMITTED transaction sees what committed before it), so no id is counted for nothing.
      await sql`
        INSERT INTO document_id_counters (kind, account_id, last_id) VALUES ('check_group_triggers', ${accountId}, 0)
        ON CONFLICT (kind, account_id) DO NOTHING`.execute(tx);
      await sql`SELECT last_id FROM document_id_counters WHERE kind = 'check_group_triggers' AND account_id = ${accountId} FOR UPDATE`.execute(tx);
      const made = await this.#stored(tx, accountId, groupId);
      if (made !== undefined) return made;
      const { rows } = await sql<{ last_id: number }>`
        UPDATE document_id_counters SET last_id = last_id + 1
        WHERE kind = 'check_group_triggers' AND account_id = ${accountId} RETURNING last_id`.execute(tx);
      const doc = build(Number(rows[0]!.last_id));
      checkTrigger(groupId, doc);
      await sql`INSERT INTO check_group_triggers (account_id, group_id, doc) VALUES (${accountId}, ${groupId}, ${JSON.stringify(doc)})`.execute(tx);
      return doc;
    });
  }

  async #stored(db: Kysely<PostgresSchema>, accountId: string, groupId: number): Promise<GroupTriggerDocument | undefined> {
    const { rows } = await sql<{ doc: string }>`SELECT doc FROM check_group_triggers WHERE account_id = ${accountId} AND group_id = ${groupId}`.execute(db);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].doc) as GroupTriggerDocument);
  }
}
