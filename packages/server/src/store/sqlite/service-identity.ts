/**
 * The service-identity port (service-identity-ports.ts) on `service_identity`, whose one row the
 * migration that made it stored (migrations/services.ts), and `check_group_triggers`
 * (migrations/readside.ts), whose public ids the per-account counters count.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import { checkServiceId, checkTrigger, checkTriggerKey, type GroupTriggerDocument, type ServiceIdentity } from '../service-identity-ports.js';
import { committed, type BatchedSqlite } from './batched.js';
import { idCounter, type NextId } from './id-counters.js';

class IdentityStatements {
  readonly serviceId: Statement;
  readonly storeServiceId: Statement;
  readonly trigger: Statement;
  readonly insertTrigger: Statement;
  readonly nextId: NextId;

  constructor(db: SqliteDatabase) {
    this.serviceId = db.prepare('SELECT id FROM service_identity LIMIT 1').pluck();
    this.storeServiceId = db.prepare('INSERT INTO service_identity (id) SELECT ? WHERE NOT EXISTS (SELECT 1 FROM service_identity)');
    this.trigger = db.prepare('SELECT doc FROM check_group_triggers WHERE account_id = ? AND group_id = ?').pluck();
    this.insertTrigger = db.prepare('INSERT INTO check_group_triggers (account_id, group_id, doc) VALUES (?, ?, ?)');
    this.nextId = idCounter(db);
  }
}

export class SqliteServiceIdentity implements ServiceIdentity {
  readonly #store: BatchedSqlite;
  #prepared: IdentityStatements | undefined;

  constructor(store: BatchedSqlite) {
    this.#store = store;
  }

  /** Prepared at the first call, for the reason the other ports' engines give. */
  #statements(): IdentityStatements {
    const db = this.#store.db;
    return (this.#prepared ??= new IdentityStatements(db));
  }

  async serviceId(made: string): Promise<string> {
    checkServiceId(made);
    const stored = this.#statements().serviceId.get() as string | undefined;
    if (stored !== undefined) return stored;
    // Every database made by the migrations has its row; one that lost it gets `made`, once.
    return committed(this.#store, () => {
      const statements = this.#statements();
      statements.storeServiceId.run(made);
      return statements.serviceId.get() as string;
    });
  }

  async groupTrigger(accountId: string, groupId: number, build: (id: number) => GroupTriggerDocument): Promise<GroupTriggerDocument> {
    checkTriggerKey(accountId, groupId);
    const stored = this.#statements().trigger.get(accountId, groupId) as string | undefined;
    if (stored !== undefined) return JSON.parse(stored) as GroupTriggerDocument;
    // Looked up again in the writing transaction: another connection may have made it since.
    return committed(this.#store, () => {
      const statements = this.#statements();
      const made = statements.trigger.get(accountId, groupId) as string | undefined;
      if (made !== undefined) return JSON.parse(made) as GroupTriggerDocument;
      const doc = build(statements.nextId('check_group_triggers', accountId));
      checkTrigger(groupId, doc);
      statements.insertTrigger.run(accountId, groupId, JSON.stringify(doc));
      return doc;
    });
  }
}
