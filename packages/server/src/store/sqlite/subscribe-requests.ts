/**
 * The subscription form's port (subscriber-ports.ts) in SQLite: the key that signs subscription links
 * (`service_secrets`), the form's subscriptions looked up and changed in `status_page_subscriptions`,
 * and the accepted submissions the rate limits count (`subscribe_requests`, keys hashed by the caller).
 * A submission is counted and recorded in one transaction, which holds SQLite's write lock.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import { text } from '../port-rules.js';
import type { StatusPageSubscriptionDocument } from '../status-page-ports.js';
import { admitted, checkAddressLookup, checkSubmission, checkSubscriptionKey, DAY_MS, HOUR_MS, type FormSubmission, type StatusPageSubscribers } from '../subscriber-ports.js';
import { committed, type BatchedSqlite } from './batched.js';

class SubscriberStatements {
  readonly storeSecret: Statement;
  readonly secret: Statement;
  readonly byAddress: Statement;
  readonly byId: Statement;
  readonly verify: Statement;
  readonly remove: Statement;
  readonly countAddress: Statement;
  readonly countClient: Statement;
  readonly countPage: Statement;
  readonly record: Statement;
  readonly prune: Statement;

  constructor(db: SqliteDatabase) {
    this.storeSecret = db.prepare('INSERT OR IGNORE INTO service_secrets (name, value) VALUES (?, ?)');
    this.secret = db.prepare('SELECT value FROM service_secrets WHERE name = ?').pluck();
    this.byAddress = db.prepare(
      "SELECT doc FROM status_page_subscriptions WHERE account_id = ? AND status_page_id = ? AND lower(json_extract(doc, '$.address')) = lower(?) ORDER BY seq LIMIT 1",
    ).pluck();
    this.byId = db.prepare('SELECT doc FROM status_page_subscriptions WHERE account_id = ? AND status_page_id = ? AND id = ?').pluck();
    this.verify = db.prepare(
      "UPDATE status_page_subscriptions SET doc = json_set(doc, '$.status', 'VERIFIED', '$.updated_at', ?) WHERE account_id = ? AND status_page_id = ? AND id = ?",
    );
    this.remove = db.prepare('DELETE FROM status_page_subscriptions WHERE account_id = ? AND status_page_id = ? AND id = ?');
    this.countAddress = db.prepare('SELECT COUNT(*) FROM subscribe_requests WHERE address_key = ? AND at_ms > ? AND mailed = 1').pluck();
    this.countClient = db.prepare('SELECT COUNT(*) FROM subscribe_requests WHERE client_key = ? AND at_ms > ?').pluck();
    this.countPage = db.prepare('SELECT COUNT(*) FROM subscribe_requests WHERE page_key = ? AND at_ms > ? AND mailed = 1').pluck();
    this.record = db.prepare('INSERT INTO subscribe_requests (at_ms, page_key, address_key, client_key, mailed) VALUES (?, ?, ?, ?, ?)');
    this.prune = db.prepare('DELETE FROM subscribe_requests WHERE at_ms <= ?');
  }
}

const parsed = (doc: string | undefined) => (doc === undefined ? undefined : (JSON.parse(doc) as StatusPageSubscriptionDocument));

export class SqliteStatusPageSubscribers implements StatusPageSubscribers {
  readonly #store: BatchedSqlite;
  #statements: SubscriberStatements | undefined;

  constructor(store: BatchedSqlite) {
    this.#store = store;
  }

  /** Prepared at the first call: a unit's ports are built while its savepoint is open. */
  #sql(): SubscriberStatements {
    return (this.#statements ??= new SubscriberStatements(this.#store.db));
  }

  async secret(name: string, generate: () => Uint8Array): Promise<Buffer> {
    text('secret name', name, 255);
    return committed(this.#store, () => {
      this.#sql().storeSecret.run(name, Buffer.from(generate()));
      return this.#sql().secret.get(name) as Buffer;
    });
  }

  async admit(submission: FormSubmission): Promise<boolean> {
    checkSubmission(submission);
    const { nowMs } = submission;
    return committed(this.#store, () => {
      const sql = this.#sql();
      sql.prune.run(nowMs - DAY_MS);
      const counts = {
        client: sql.countClient.get(submission.clientKey, nowMs - HOUR_MS) as number,
        address: sql.countAddress.get(submission.addressKey, nowMs - DAY_MS) as number,
        page: sql.countPage.get(submission.pageKey, nowMs - HOUR_MS) as number,
      };
      const decision = admitted(counts, submission.limits);
      if (decision.record) sql.record.run(nowMs, submission.pageKey, submission.addressKey, submission.clientKey, decision.mail ? 1 : 0);
      return decision.mail;
    });
  }

  async byAddress(accountId: string, statusPageId: string, address: string): Promise<StatusPageSubscriptionDocument | undefined> {
    checkAddressLookup(accountId, statusPageId, address);
    return parsed(this.#sql().byAddress.get(accountId, statusPageId, address) as string | undefined);
  }

  async byId(accountId: string, statusPageId: string, id: string): Promise<StatusPageSubscriptionDocument | undefined> {
    checkSubscriptionKey(accountId, statusPageId, id);
    return parsed(this.#sql().byId.get(accountId, statusPageId, id) as string | undefined);
  }

  async markVerified(accountId: string, statusPageId: string, id: string, nowIso: string): Promise<boolean> {
    checkSubscriptionKey(accountId, statusPageId, id);
    text('nowIso', nowIso, 64);
    return committed(this.#store, () => this.#sql().verify.run(nowIso, accountId, statusPageId, id).changes > 0);
  }

  async remove(accountId: string, statusPageId: string, id: string): Promise<boolean> {
    checkSubscriptionKey(accountId, statusPageId, id);
    return committed(this.#store, () => this.#sql().remove.run(accountId, statusPageId, id).changes > 0);
  }
}

