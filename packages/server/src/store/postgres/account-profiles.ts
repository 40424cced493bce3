/** The account-profiles port (account-profile-ports.ts) in PostgreSQL (migrations.ts, step 19). */
import { sql, type Kysely } from 'kysely';
import { checkProfile, type AccountProfile, type AccountProfiles } from '../account-profile-ports.js';
import { text } from '../port-rules.js';
import type { PostgresSchema } from './database.js';

/** On the pool, or on a unit of work's transaction. */
export class PostgresAccountProfiles implements AccountProfiles {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async get(accountId: string): Promise<AccountProfile | undefined> {
    text('accountId', accountId);
    const { rows } = await sql<{ doc: string }>`SELECT doc FROM account_profiles WHERE account_id = ${accountId}`.execute(this.#db);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].doc) as AccountProfile);
  }

  async save(accountId: string, profile: AccountProfile): Promise<void> {
    checkProfile(accountId, profile);
    await sql`
      INSERT INTO account_profiles (account_id, doc) VALUES (${accountId}, ${JSON.stringify(profile)})
      ON CONFLICT (account_id) DO UPDATE SET doc = excluded.doc`.execute(this.#db);
  }
}
