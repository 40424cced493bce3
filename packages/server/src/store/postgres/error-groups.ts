/**
 * The ErrorGroups port on PostgreSQL (migrations.ts, step 16), as store/sqlite/error-groups.ts keeps
 * the rows: one per (check, hash of the cleaned message), its state as JSON, `seq` the order started.
 * A fold locks the group's row (or, for a group's first error, loses the insert to a replica that
 * started it first and reads again), so replicas folding the same error at once lose no occurrence.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import { applyArchivePatch, recordError, type ArchivePatch, type ErrorGroupState } from '../error-group-rules.js';
import { checkErrorGroupPage, checkErrorOccurrences, text } from '../port-rules.js';
import type { ErrorGroups, ErrorOccurrence } from '../ports.js';
import type { PostgresSchema } from './database.js';
import { withinTransaction } from './documents.js';

/** On the pool, or on a unit of work's transaction. */
export class PostgresErrorGroups implements ErrorGroups {
  readonly #db: Kysely<PostgresSchema>;

  constructor(db: Kysely<PostgresSchema>) {
    this.#db = db;
  }

  async fold(accountId: string, occurrences: readonly ErrorOccurrence[]): Promise<void> {
    checkErrorOccurrences(accountId, occurrences);
    if (occurrences.length === 0) return;
    await withinTransaction(this.#db, async (tx) => {
      for (const occurrence of occurrences) await this.#foldOne(tx, accountId, occurrence);
    });
  }

  async #foldOne(tx: Transaction<PostgresSchema>, accountId: string, occurrence: ErrorOccurrence): Promise<void> {
    const fresh = recordError(undefined, occurrence, randomUUID);
    for (;;) {
      const { rows } = await sql<{ state: string }>`SELECT state FROM error_groups
        WHERE account_id = ${accountId} AND check_id = ${occurrence.checkId} AND error_hash = ${fresh.errorHash} FOR UPDATE`.execute(tx);
      if (rows[0] !== undefined) {
        const next = recordError(JSON.parse(rows[0].state) as ErrorGroupState, occurrence, randomUUID);
        await sql`UPDATE error_groups SET state = ${JSON.stringify(next)} WHERE account_id = ${accountId} AND id = ${next.id}`.execute(tx);
        return;
      }
      const inserted = await sql`INSERT INTO error_groups (account_id, id, check_id, error_hash, state)
        VALUES (${accountId}, ${fresh.id}, ${fresh.checkId}, ${fresh.errorHash}, ${JSON.stringify(fresh)})
        ON CONFLICT (account_id, check_id, error_hash) DO NOTHING`.execute(tx);
      // Another replica started the group meanwhile: fold into that one.
      if (Number(inserted.numAffectedRows ?? 0) === 1) return;
    }
  }

  async ofCheck(accountId: string, checkId: string, paging: { readonly page: number; readonly limit: number }): Promise<{ items: ErrorGroupState[]; total: number }> {
    checkErrorGroupPage(accountId, checkId, paging);
    const { rows } = await sql<{ state: string; total: number }>`SELECT state, COUNT(*) OVER () AS total FROM error_groups
      WHERE account_id = ${accountId} AND check_id = ${checkId} ORDER BY seq LIMIT ${paging.limit} OFFSET ${(paging.page - 1) * paging.limit}`.execute(this.#db);
    // A page past the last one has no rows to count with: the total comes from a count of its own.
    const total = rows[0] !== undefined ? Number(rows[0].total) : await this.#countOf(accountId, checkId);
    return { items: rows.map((row) => JSON.parse(row.state) as ErrorGroupState), total };
  }

  async #countOf(accountId: string, checkId: string): Promise<number> {
    const { rows } = await sql<{ total: number }>`SELECT COUNT(*) AS total FROM error_groups WHERE account_id = ${accountId} AND check_id = ${checkId}`.execute(this.#db);
    return Number(rows[0]?.total ?? 0);
  }

  async find(accountId: string, id: string): Promise<ErrorGroupState | undefined> {
    text('accountId', accountId);
    text('id', id);
    const { rows } = await sql<{ state: string }>`SELECT state FROM error_groups WHERE account_id = ${accountId} AND id = ${id}`.execute(this.#db);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].state) as ErrorGroupState);
  }

  async archive(accountId: string, id: string, patch: ArchivePatch, nowMs: number): Promise<ErrorGroupState | undefined> {
    text('accountId', accountId);
    text('id', id);
    return withinTransaction(this.#db, async (tx) => {
      const { rows } = await sql<{ state: string }>`SELECT state FROM error_groups WHERE account_id = ${accountId} AND id = ${id} FOR UPDATE`.execute(tx);
      if (rows[0] === undefined) return undefined;
      const next = applyArchivePatch(JSON.parse(rows[0].state) as ErrorGroupState, patch, nowMs);
      await sql`UPDATE error_groups SET state = ${JSON.stringify(next)} WHERE account_id = ${accountId} AND id = ${id}`.execute(tx);
      return next;
    });
  }
}
