/**
 * The public subscription form's SQL: the key that signs subscription links (`service_secrets`), the
 * form's subscriptions looked up and changed in `status_page_subscriptions`, and the accepted
 * submissions the rate limits count (`subscribe_requests`, keys already hashed by the caller).
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';

export interface SubmissionKeys {
  readonly page: string;
  readonly address: string;
  readonly client: string;
}

export class SubscriberTable {
  readonly #db: SqliteDatabase;
  readonly #byAddress: Statement;
  readonly #byId: Statement;
  readonly #verify: Statement;
  readonly #remove: Statement;
  readonly #countAddress: Statement;
  readonly #countClient: Statement;
  readonly #countPage: Statement;
  readonly #record: Statement;
  readonly #prune: Statement;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#byAddress = db.prepare(
      "SELECT doc FROM status_page_subscriptions WHERE account_id = ? AND status_page_id = ? AND lower(json_extract(doc, '$.address')) = lower(?) ORDER BY seq LIMIT 1",
    );
    this.#byId = db.prepare('SELECT doc FROM status_page_subscriptions WHERE account_id = ? AND status_page_id = ? AND id = ?');
    this.#verify = db.prepare(
      "UPDATE status_page_subscriptions SET doc = json_set(doc, '$.status', 'VERIFIED', '$.updated_at', ?) WHERE account_id = ? AND status_page_id = ? AND id = ?",
    );
    this.#remove = db.prepare('DELETE FROM status_page_subscriptions WHERE account_id = ? AND status_page_id = ? AND id = ?');
    this.#countAddress = db.prepare('SELECT COUNT(*) AS n FROM subscribe_requests WHERE address_key = ? AND at_ms > ? AND mailed = 1');
    this.#countClient = db.prepare('SELECT COUNT(*) AS n FROM subscribe_requests WHERE client_key = ? AND at_ms > ?');
    this.#countPage = db.prepare('SELECT COUNT(*) AS n FROM subscribe_requests WHERE page_key = ? AND at_ms > ? AND mailed = 1');
    this.#record = db.prepare('INSERT INTO subscribe_requests (at_ms, page_key, address_key, client_key, mailed) VALUES (?, ?, ?, ?, ?)');
    this.#prune = db.prepare('DELETE FROM subscribe_requests WHERE at_ms <= ?');
  }

  /**
   * The secret named `name`, made from `generate()` when the database has none yet. Two replicas
   * starting at once both insert; the first row wins and both read it back.
   */
  secret(name: string, generate: () => Buffer): Buffer {
    this.#db.prepare('INSERT OR IGNORE INTO service_secrets (name, value) VALUES (?, ?)').run(name, generate());
    return (this.#db.prepare('SELECT value FROM service_secrets WHERE name = ?').get(name) as { value: Buffer }).value;
  }

  /** The stored JSON of the page's subscription of `address` (compared without case), oldest first. */
  byAddress(accountId: string, statusPageId: string, address: string): string | undefined {
    return (this.#byAddress.get(accountId, statusPageId, address) as { doc: string } | undefined)?.doc;
  }

  byId(accountId: string, statusPageId: string, id: string): string | undefined {
    return (this.#byId.get(accountId, statusPageId, id) as { doc: string } | undefined)?.doc;
  }

  markVerified(accountId: string, statusPageId: string, id: string, nowIso: string): boolean {
    return this.#verify.run(nowIso, accountId, statusPageId, id).changes > 0;
  }

  remove(accountId: string, statusPageId: string, id: string): boolean {
    return this.#remove.run(accountId, statusPageId, id).changes > 0;
  }

  /**
   * Runs `decide` in one transaction with what it reads and writes, so concurrent submissions
   * cannot all pass one limit.
   */
  inTransaction<A extends unknown[], T>(decide: (...args: A) => T): (...args: A) => T {
    return this.#db.transaction(decide) as unknown as (...args: A) => T;
  }

  /** Deletes submissions recorded at or before `beforeMs`. */
  pruneSubmissions(beforeMs: number): void {
    this.#prune.run(beforeMs);
  }

  /** The client's submissions since `sinceMs`, mailed or not. */
  clientSubmissions(clientKey: string, sinceMs: number): number {
    return (this.#countClient.get(clientKey, sinceMs) as { n: number }).n;
  }

  mailedToAddress(addressKey: string, sinceMs: number): number {
    return (this.#countAddress.get(addressKey, sinceMs) as { n: number }).n;
  }

  mailedForPage(pageKey: string, sinceMs: number): number {
    return (this.#countPage.get(pageKey, sinceMs) as { n: number }).n;
  }

  recordSubmission(atMs: number, keys: SubmissionKeys, mailed: boolean): void {
    this.#record.run(atMs, keys.page, keys.address, keys.client, mailed ? 1 : 0);
  }
}
