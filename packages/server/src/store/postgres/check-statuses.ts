/**
 * The CheckStatuses port on PostgreSQL (migrations.ts, step 16), as store/sqlite/statuses.ts keeps
 * the rows: the status document as served, its state in a column of its own. A write locks its
 * check's row (or, for a check's first status, loses the insert to a replica that wrote first and
 * reads again), so replicas recording the same check one after the other fold every result.
 */
import type { CheckStatus } from '@vigil/schema';
import { sql, type Kysely } from 'kysely';
import { checkStateOf, checkStatusWrite, nextCheckStatus } from '../check-status-rules.js';
import { text } from '../port-rules.js';
import type { CheckStatuses, FinalResultFacts } from '../ports.js';
import type { PostgresSchema } from './database.js';
import { withinTransaction } from './documents.js';

/** On the pool, or on a unit of work's transaction. */
export class PostgresCheckStatuses implements CheckStatuses {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async record(accountId: string, result: FinalResultFacts): Promise<CheckStatus> {
    checkStatusWrite(accountId, result);
    const checkId = result.checkId;
    return withinTransaction(this.#db, async (tx) => {
      for (;;) {
        const { rows } = await sql<{ doc: string }>`SELECT doc FROM check_statuses WHERE account_id = ${accountId} AND check_id = ${checkId} FOR UPDATE`.execute(tx);
        const previous = rows[0] === undefined ? undefined : (JSON.parse(rows[0].doc) as CheckStatus);
        const status = nextCheckStatus(previous, result, new Date().toISOString());
        const doc = JSON.stringify(status);
        if (previous !== undefined) {
          await sql`UPDATE check_statuses SET doc = ${doc}, state = ${checkStateOf(status)}, written_xid = pg_current_xact_id() WHERE account_id = ${accountId} AND check_id = ${checkId}`.execute(tx);
          return status;
        }
        const inserted = await sql`INSERT INTO check_statuses (account_id, check_id, doc, state) VALUES (${accountId}, ${checkId}, ${doc}, ${checkStateOf(status)})
          ON CONFLICT (account_id, check_id) DO NOTHING`.execute(tx);
        // Another replica stored the check's first status meanwhile: fold into that one.
        if (Number(inserted.numAffectedRows ?? 0) === 1) return status;
      }
    });
  }

  async list(accountId: string): Promise<CheckStatus[]> {
    text('accountId', accountId);
    const { rows } = await sql<{ doc: string }>`SELECT s.doc FROM check_statuses s JOIN checks c ON c.account_id = s.account_id AND c.id = s.check_id
      WHERE s.account_id = ${accountId} ORDER BY c.seq`.execute(this.#db);
    return rows.map((row) => JSON.parse(row.doc) as CheckStatus);
  }

  async find(accountId: string, checkId: string): Promise<CheckStatus | undefined> {
    text('accountId', accountId);
    text('checkId', checkId);
    const { rows } = await sql<{ doc: string }>`SELECT s.doc FROM check_statuses s JOIN checks c ON c.account_id = s.account_id AND c.id = s.check_id
      WHERE s.account_id = ${accountId} AND s.check_id = ${checkId}`.execute(this.#db);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].doc) as CheckStatus);
  }
}
