/**
 * The subscription form's port (subscriber-ports.ts) in PostgreSQL (migrations.ts, step 22, and the
 * subscriptions of step 15). A submission is counted and recorded under a lock on its table, so the
 * submissions of every replica pass the limits one at a time; the form is rare enough to queue.
 */
import { sql, type Kysely } from 'kysely';
import { text } from '../port-rules.js';
import type { StatusPageSubscriptionDocument } from '../status-page-ports.js';
import { admitted, checkAddressLookup, checkSubmission, checkSubscriptionKey, DAY_MS, HOUR_MS, type FormSubmission, type StatusPageSubscribers } from '../subscriber-ports.js';
import type { PostgresSchema } from './database.js';

/** On the pool, or on a unit of work's transaction. */
export class PostgresStatusPageSubscribers implements StatusPageSubscribers {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  /** `work` in one transaction: a unit's own, or one of its own on the pool. */
  #together<T>(work: (db: Kysely<PostgresSchema>) => Promise<T>): Promise<T> {
    return this.#db.isTransaction ? work(this.#db) : this.#db.transaction().execute(work);
  }

  async secret(name: string, generate: () => Uint8Array): Promise<Buffer> {
    text('secret name', name, 255);
    await sql`INSERT INTO service_secrets (name, value) VALUES (${name}, ${Buffer.from(generate())}) ON CONFLICT DO NOTHING`.execute(this.#db);
    const { rows } = await sql<{ value: Buffer }>`SELECT value FROM service_secrets WHERE name = ${name}`.execute(this.#db);
    return rows[0]!.value;
  }

  async admit(submission: FormSubmission): Promise<boolean> {
    checkSubmission(submission);
    const { nowMs } = submission;
    return this.#together(async (db) => {
      // Readers are not held back; another submission waits for this one's commit before it counts.
      await sql`LOCK TABLE subscribe_requests IN SHARE ROW EXCLUSIVE MODE`.execute(db);
      await sql`DELETE FROM subscribe_requests WHERE at_ms <= ${nowMs - DAY_MS}`.execute(db);
      const { rows } = await sql<{ client: string; address: string; page: string }>`
        SELECT
          (SELECT count(*) FROM subscribe_requests WHERE client_key = ${submission.clientKey} AND at_ms > ${nowMs - HOUR_MS}) AS client,
          (SELECT count(*) FROM subscribe_requests WHERE address_key = ${submission.addressKey} AND at_ms > ${nowMs - DAY_MS} AND mailed) AS address,
          (SELECT count(*) FROM subscribe_requests WHERE page_key = ${submission.pageKey} AND at_ms > ${nowMs - HOUR_MS} AND mailed) AS page`.execute(db);
      const counts = { client: Number(rows[0]?.client ?? 0), address: Number(rows[0]?.address ?? 0), page: Number(rows[0]?.page ?? 0) };
      const decision = admitted(counts, submission.limits);
      if (decision.record) {
        await sql`
          INSERT INTO subscribe_requests (at_ms, page_key, address_key, client_key, mailed)
          VALUES (${nowMs}, ${submission.pageKey}, ${submission.addressKey}, ${submission.clientKey}, ${decision.mail})`.execute(db);
      }
      return decision.mail;
    });
  }

  async byAddress(accountId: string, statusPageId: string, address: string): Promise<StatusPageSubscriptionDocument | undefined> {
    checkAddressLookup(accountId, statusPageId, address);
    const { rows } = await sql<{ doc: string }>`
      SELECT doc FROM status_page_subscriptions
      WHERE account_id = ${accountId} AND status_page_id = ${statusPageId} AND lower(doc::jsonb ->> 'address') = lower(${address})
      ORDER BY seq LIMIT 1`.execute(this.#db);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].doc) as StatusPageSubscriptionDocument);
  }

  async byId(accountId: string, statusPageId: string, id: string): Promise<StatusPageSubscriptionDocument | undefined> {
    checkSubscriptionKey(accountId, statusPageId, id);
    const { rows } = await sql<{ doc: string }>`
      SELECT doc FROM status_page_subscriptions WHERE account_id = ${accountId} AND status_page_id = ${statusPageId} AND id = ${id}`.execute(this.#db);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].doc) as StatusPageSubscriptionDocument);
  }

  async markVerified(accountId: string, statusPageId: string, id: string, nowIso: string): Promise<boolean> {
    checkSubscriptionKey(accountId, statusPageId, id);
    text('nowIso', nowIso, 64);
    return this.#together(async (db) => {
      // Rewritten here rather than with jsonb, which would reorder the document's keys.
      const { rows } = await sql<{ doc: string }>`
        SELECT doc FROM status_page_subscriptions WHERE account_id = ${accountId} AND status_page_id = ${statusPageId} AND id = ${id} FOR UPDATE`.execute(db);
      if (rows[0] === undefined) return false;
      const doc = JSON.parse(rows[0].doc) as Record<string, unknown>;
      doc['status'] = 'VERIFIED';
      doc['updated_at'] = nowIso;
      await sql`
        UPDATE status_page_subscriptions SET doc = ${JSON.stringify(doc)}
        WHERE account_id = ${accountId} AND status_page_id = ${statusPageId} AND id = ${id}`.execute(db);
      return true;
    });
  }

  async remove(accountId: string, statusPageId: string, id: string): Promise<boolean> {
    checkSubscriptionKey(accountId, statusPageId, id);
    const result = await sql`
      DELETE FROM status_page_subscriptions WHERE account_id = ${accountId} AND status_page_id = ${statusPageId} AND id = ${id}`.execute(this.#db);
    return Number(result.numAffectedRows ?? 0) > 0;
  }
}
