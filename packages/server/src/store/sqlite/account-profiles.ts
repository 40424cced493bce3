/**
 * The account-profiles port (account-profile-ports.ts) on `account_profiles` (a step of
 * migrations/readside.ts), where `--seed` has always saved them.
 */
import type { Statement } from 'better-sqlite3';
import { checkProfile, type AccountProfile, type AccountProfiles } from '../account-profile-ports.js';
import type { SqliteDatabase } from '../database.js';
import { text } from '../port-rules.js';
import { committed, type BatchedSqlite } from './batched.js';

class ProfileStatements {
  readonly get: Statement;
  readonly save: Statement;

  constructor(db: SqliteDatabase) {
    this.get = db.prepare('SELECT doc FROM account_profiles WHERE account_id = ?').pluck();
    this.save = db.prepare('INSERT INTO account_profiles (account_id, doc) VALUES (?, ?) ON CONFLICT (account_id) DO UPDATE SET doc = excluded.doc');
  }
}

export class SqliteAccountProfiles implements AccountProfiles {
  readonly #store: BatchedSqlite;
  #prepared: ProfileStatements | undefined;

  constructor(store: BatchedSqlite) {
    this.#store = store;
  }

  /** Prepared at the first call, for the reason the other ports' engines give. */
  #statements(): ProfileStatements {
    const db = this.#store.db;
    return (this.#prepared ??= new ProfileStatements(db));
  }

  async get(accountId: string): Promise<AccountProfile | undefined> {
    text('accountId', accountId);
    const doc = this.#statements().get.get(accountId) as string | undefined;
    return doc === undefined ? undefined : (JSON.parse(doc) as AccountProfile);
  }

  async save(accountId: string, profile: AccountProfile): Promise<void> {
    checkProfile(accountId, profile);
    const doc = JSON.stringify(profile);
    await committed(this.#store, () => this.#statements().save.run(accountId, doc));
  }
}
